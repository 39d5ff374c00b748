import ClassifierTraining
import FileFormats
import Inference

/// `workbench train`: a classifier from folders of images (the run itself is `ClassifierTraining.TrainingRun`).
public enum TrainingWorkflow {
    /// Trains a model as `request` asks, reporting progress to `events`; the model is returned, not written.
    public static func run(
        _ request: TrainingRequest, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingResult {
        try TrainingRun.run(request, extractor: extractor, events: events)
    }
}
