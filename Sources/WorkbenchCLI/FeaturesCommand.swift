import ArgumentParser
import Foundation
import Workbench

struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Embed images: one 1280-d EfficientNet-Lite0 feature vector per image.",
        discussion: """
            Folders are walked recursively in natural order (2.jpg before 10.jpg). Each file that cannot be read \
            gets one line on stderr and is skipped (--strict stops at the first one instead); the exit status is 1 \
            when any file failed. -o writes a regular file atomically (a failed run leaves no partial file) and \
            writes a device or pipe (-o /dev/null) through.

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
    @OptionGroup var skipping: StrictOption

    func run() throws {
        try Console.run {
            let list = try ImageFileList.expand(inputs)
            if skipping.strict, let first = list.unreadable.first { throw first }
            for problem in list.unreadable { Console.warn("\(problem)") }
            guard !list.files.isEmpty || !list.unreadable.isEmpty else {
                throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))")
            }
            // Embedding is a raw measurement: always computed, never served from the training cache.
            let extractor = compute.extractor(backbone: try backboneOptions.load(), usesCache: false)
            let sink = try output.map { path throws(OutputFile.Failure) in try OutputFile.open(path: path) } ?? Console.standardOutput
            let progress = ProgressBar(total: list.files.count, label: "features")
            var failures = list.unreadable.count
            var stop: Error?
            extractor.extract(paths: list.files) { index, path, result in
                defer { progress.update(completed: index + 1) }
                switch result {
                case .success(let features):
                    do {
                        try sink.write(json ? jsonLine(path: path, features: features) : textLine(path: path, features: features))
                    } catch {
                        stop = error
                        return false
                    }
                case .failure(let error):
                    failures += 1
                    if skipping.strict {
                        stop = error
                        return false
                    }
                    progress.finish()
                    Console.warn("\(error)")
                }
                return true
            }
            progress.finish()
            if let stop {
                // A file is dropped whole; what already went to stdout is gone past recall.
                if sink !== Console.standardOutput { sink.abandon() }
                throw stop
            }
            try sink.commit()
            let total = list.files.count + list.unreadable.count
            let seconds = progress.elapsed
            let embedded = total - failures
            Console.warn("\(embedded) of \(total) images embedded in \(String(format: "%.2f", seconds)) s "
                         + "(\(String(format: "%.1f", Double(embedded) / max(seconds, 1e-9))) images/s)"
                         + (failures > 0 ? ", \(failures) failed" : ""))
            if failures > 0 { throw ExitCode(1) }
        }
    }

    private func jsonLine(path: String, features: [Float]) -> String {
        "{\"path\":\(jsonString(path)),\"features\":[\(features.map(jsonNumber).joined(separator: ","))]}\n"
    }

    private func textLine(path: String, features: [Float]) -> String {
        "\(path)\t\(features.map { "\($0)" }.joined(separator: " "))\n"
    }
}
