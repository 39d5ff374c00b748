import Foundation
import Inference

extension Classifier {
    /// The training report the model file carries, if it parses.
    public var trainingReport: TrainingReport? {
        try? JSONDecoder().decode(TrainingReport.self, from: Data(modelFile.trainingReportJSON.utf8))
    }
}
