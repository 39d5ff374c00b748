import ArgumentParser
import Foundation
import Workbench

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a model file (classifier or detector) holds: labels, input, size, training report.",
        discussion: """
            Examples:
              workbench inspect Drawings.wbmodel
              workbench inspect Drawings.wbmodel --json
              workbench inspect Shapes.wbmodel

            Docs: docs/classify-and-evaluate.md, docs/model-file.md
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        try Console.run {
            let size = (try? FileManager.default.attributesOfItem(atPath: model)[.size] as? Int) ?? 0
            if DetectorModelFile.isDetector(path: model) {
                let file = try DetectorModelFile.read(path: model)
                try Console.output(
                    json
                        ? DetectorSummaryRendering.json(file, path: model, fileBytes: size)
                        : DetectorSummaryRendering.text(file, path: model, fileBytes: size))
                return
            }
            let classifier = try Classifier.load(path: model)
            try Console.output(
                json
                    ? ModelSummaryRendering.json(classifier, fileBytes: size)
                    : ModelSummaryRendering.text(classifier, fileBytes: size))
        }
    }
}
