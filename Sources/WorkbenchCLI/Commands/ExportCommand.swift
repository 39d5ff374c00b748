import ArgumentParser
import Workbench

extension ExportWorkflow.Format: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a trained model as ONNX or Core ML, for other runtimes and iOS apps.",
        discussion: """
            ONNX: input "image", float RGB pixels 0-255, shape [N, 3, 224, 224] (normalisation inside); output \
            "probabilities" [N, labels]; metadata "labels" and "preprocessing" say how to crop and resize. Core ML: \
            a neural-network classifier (iOS 13+) with image input "image" (RGB 224 x 224) and outputs "classLabel" \
            and "classLabelProbs", as Create ML's image classifiers have, so Vision's VNCoreMLRequest works unchanged.

            A detector (train on annotations) exports to ONNX: input "image" [N, 3, S, S], the whole picture \
            resized to its input side S; outputs "boxes" [N, cells, 4] and "scores" [N, cells, labels] per cell \
            of the stride-16 grid (peaks only); metadata "decoding" and "score_threshold" give detect's selection. \
            As Core ML it is the pipeline Vision's object detection reads (network, then non-maximum suppression; \
            outputs "confidence" and "coordinates").

            Examples:
              workbench export Drawings.wbmodel --format onnx
              workbench export Drawings.wbmodel --format coreml -o Drawings.mlmodel
              workbench export Drawings.wbmodel --format onnx --tta -o Averaged.onnx
              workbench export Shapes.wbmodel --format onnx
              workbench export Shapes.wbmodel --format coreml

            --tta builds the test-time views (the image, its centre 7/8, both mirrored) into the ONNX graph, whose \
            output is then the mean of their probabilities, as classify --tta gives; a model trained with --tta \
            exports that way by default (--no-tta: plain). Core ML cannot carry them: it warns and says so in the \
            metadata.
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Option(name: .long, help: "onnx or coreml.")
    var format: ExportWorkflow.Format

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (default: the model's name with .onnx or .mlmodel).", valueName: "file"))
    var output: String?

    @OptionGroup(title: "Test-time augmentation") var testTime: TestTimeAugmentationOptions

    func run() throws {
        try Console.run {
            let destination = output ?? ExportWorkflow.defaultOutputPath(model: model, format: format)
            for warning in try ExportWorkflow.export(modelAt: model, format: format, to: destination,
                                                     testTimeAugmentation: testTime.tta) {
                Console.warn(warning)
            }
            Console.outputLine("\(format == .onnx ? "ONNX" : "Core ML") model written to \(destination)")
        }
    }
}
