import ArgumentParser
import Foundation
import Workbench

struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Embed images: one 1280-d EfficientNet-Lite0 feature vector per image.",
        discussion: """
            Folders are walked recursively in natural order (2.jpg before 10.jpg). Each unreadable file gets one \
            line on stderr and is skipped; the exit status is 1 when any file failed.

            Examples:
              workbench features photo.jpg
              workbench features datasets/drawings --json -o features.jsonl
              workbench features drawing.png photo.jpg photos/ --threads 1
            """)

    @Argument(help: ArgumentHelp("Image files or folders.", valueName: "image-or-folder"))
    var inputs: [String]

    @Flag(help: "Write JSON Lines: {\"path\": ..., \"features\": [1280 numbers]} per image.")
    var json = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout (atomically).", valueName: "file"))
    var output: String?

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var backboneOptions: BackboneOptions

    func run() throws {
        try Console.run {
            let paths = try ImageFileList.expand(inputs)
            guard !paths.isEmpty else { throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))") }
            // Embedding is a raw measurement: always computed, never served from the training cache.
            let extractor = compute.extractor(backbone: try backboneOptions.load(), usesCache: false)
            let sink = try OutputSink(path: output)
            var committed = false
            defer { if !committed { sink.abandon() } }
            let progress = ProgressBar(total: paths.count, label: "features")
            var failures = 0
            extractor.extract(paths: paths) { index, path, result in
                switch result {
                case .success(let features):
                    sink.write(json ? jsonLine(path: path, features: features) : textLine(path: path, features: features))
                case .failure(let error):
                    progress.finish()
                    Console.warn("\(error)")
                    failures += 1
                }
                progress.update(completed: index + 1)
            }
            progress.finish()
            try sink.commit()
            committed = true
            let seconds = progress.elapsed
            let embedded = paths.count - failures
            Console.warn("\(embedded) of \(paths.count) images embedded in \(String(format: "%.2f", seconds)) s "
                         + "(\(String(format: "%.1f", Double(embedded) / max(seconds, 1e-9))) images/s)"
                         + (failures > 0 ? ", \(failures) failed" : ""))
            if failures > 0 { throw ExitCode(1) }
        }
    }

    private func jsonLine(path: String, features: [Float]) -> String {
        "{\"path\":\(jsonString(path)),\"features\":[\(features.map { "\($0)" }.joined(separator: ","))]}\n"
    }

    private func textLine(path: String, features: [Float]) -> String {
        "\(path)\t\(features.map { "\($0)" }.joined(separator: " "))\n"
    }
}
