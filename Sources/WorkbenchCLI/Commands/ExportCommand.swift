import ArgumentParser
import Workbench

extension ExportWorkflow.Format: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a trained model as ONNX or Core ML, for other runtimes and iOS apps.",
        discussion: """
            ONNX (input "image", float RGB 0-255; a classifier outputs "probabilities", a detector "boxes" and \
            "scores" per cell) or Core ML (what Vision's classification or object detection reads). The metadata \
            says how to prepare the input. --tta builds a classifier's test-time views into the ONNX graph (a model \
            trained with --tta exports that way unless --no-tta); Core ML cannot carry them, and a detector refuses \
            --tta.

            Examples:
              workbench export Drawings.wbmodel --format onnx
              workbench export Drawings.wbmodel --format coreml -o Drawings.mlmodel
              workbench export Drawings.wbmodel --format onnx --tta -o Averaged.onnx
              workbench export Shapes.wbmodel --format onnx
              workbench export Shapes.wbmodel --format coreml

            Docs: docs/export.md
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
            var request = ExportRequest(model: model, format: format)
            (request.output, request.testTimeAugmentation) = (output, testTime.tta)
            let result = try ExportWorkflow.run(request) { event in
                if case .warning(let line) = event { Console.warn(line) }
            }
            Console.outputLine("\(result.format == .onnx ? "ONNX" : "Core ML") model written to \(result.output)")
        }
    }
}
