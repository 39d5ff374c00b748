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

            --fill-cache stores the features in the feature cache instead (as train does), so that train, \
            evaluate and classify over those images later skip the network; images already cached are skipped. \
            With --shard I/N (or inside a Slurm array job) only that part of the images is embedded: \
            `workbench slurm features` fills the cache of a whole dataset this way.

            --model embeds with a model file's backbone and preprocessing instead of set-up's pretrained network: \
            a fine-tuned model's features are those its head sees.

            Examples:
              workbench features photo.jpg
              workbench features datasets/drawings --json -o features.jsonl
              workbench features drawing.png photo.jpg photos/ --threads 1
              workbench features datasets/drawings --fill-cache --shard 0/2
              workbench features photo.jpg --model Drawings.wbmodel
            """)

    @Argument(help: ArgumentHelp("Image files or folders.", valueName: "image-or-folder"))
    var inputs: [String]

    @Flag(help: "Write JSON Lines: {\"path\": ..., \"features\": [1280 numbers]} per image.")
    var json = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout (atomically).", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Store the features in the feature cache and write no vectors (see --shard).")
    var fillCache = false

    @Option(name: .long, help: ArgumentHelp("Embed with this model file's backbone and preprocessing (default: set-up's pretrained backbone).", valueName: "model"))
    var model: String?

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var backboneOptions: BackboneOptions
    @OptionGroup var skipping: StrictOption
    @OptionGroup var sharding: ShardOptions

    func validate() throws {
        if fillCache, json || output != nil { throw ValidationError("--fill-cache writes no vectors: leave out --json and -o") }
        if model != nil, backboneOptions.backbone != nil { throw ValidationError("--model brings its own backbone: leave out --backbone") }
    }

    /// The model file's backbone (with its preprocessing) when --model is given, else set-up's.
    private func backbone() throws -> Backbone {
        if let model { return try Classifier.load(path: model).backbone }
        return try backboneOptions.load()
    }

    func run() throws {
        try Console.run {
            var list = try ImageFileList.expand(inputs)
            guard !list.files.isEmpty || !list.unreadable.isEmpty else {
                throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))")
            }
            if let shard = try sharding.resolve() {
                let total = list.files.count + list.unreadable.count
                list = list.shard(shard)
                Console.warn("shard \(shard): \(list.files.count + list.unreadable.count) of \(total) images")
                if list.files.isEmpty && list.unreadable.isEmpty { return }
            }
            if skipping.strict, let first = list.unreadable.first { throw first }
            for problem in list.unreadable { Console.warn("\(problem)") }
            if fillCache { return try fill(list) }
            // Embedding is a raw measurement: always computed, never served from the training cache.
            let extractor = compute.extractor(backbone: try backbone(), usesCache: false)
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

    private func fill(_ list: ImageFileList) throws {
        let extractor = compute.extractor(backbone: try backbone(), usesCache: true)
        let progress = ProgressBar(total: list.files.count, label: "features")
        let outcome = try FeatureCacheFill.fill(paths: list.files, extractor: extractor, strict: skipping.strict,
                                                progress: { done, _ in progress.update(completed: done) },
                                                failure: { error in progress.finish(); Console.warn("\(error)") })
        progress.finish()
        let failed = outcome.failed + list.unreadable.count
        Console.warn("\(outcome.cached) of \(list.files.count + list.unreadable.count) images in the feature cache after "
                     + "\(String(format: "%.2f", progress.elapsed)) s" + (failed > 0 ? ", \(failed) failed" : ""))
        if failed > 0 { throw ExitCode(1) }
    }

    private func jsonLine(path: String, features: [Float]) -> String {
        "{\"path\":\(jsonString(path)),\"features\":[\(features.map(jsonNumber).joined(separator: ","))]}\n"
    }

    private func textLine(path: String, features: [Float]) -> String {
        "\(path)\t\(features.map { "\($0)" }.joined(separator: " "))\n"
    }
}
