import ArgumentParser
import Foundation
import Workbench

struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Embed images: one 1280-d EfficientNet-Lite0 feature vector per image.",
        discussion: """
            Prints each image's 1280 features. Folders are walked recursively in natural order; a file that cannot \
            be read gets one line on stderr and is skipped (--strict stops instead), and the exit status is then 1. \
            --fill-cache stores the features in the feature cache instead, so that train, evaluate and classify skip \
            the network; --shard I/N embeds only that part of the images. --model embeds with a model file's \
            backbone and preprocessing.

            Examples:
              workbench features photo.jpg
              workbench features datasets/drawings --json -o features.jsonl
              workbench features drawing.png photo.jpg photos/ --threads 1
              workbench features datasets/drawings --fill-cache --shard 0/2
              workbench features photo.jpg --model Drawings.wbmodel

            Docs: docs/classify-and-evaluate.md
            """)

    @Argument(help: ArgumentHelp("Image files or folders.", valueName: "image-or-folder"))
    var inputs: [String]

    @Flag(help: "Write JSON Lines: {\"path\": ..., \"features\": [1280 numbers]} per image.")
    var json = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout (atomically).", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Store the features in the feature cache and write no vectors (see --shard).")
    var fillCache = false

    @Option(
        name: .long,
        help: ArgumentHelp("Embed with this model file's backbone and preprocessing (default: set-up's pretrained backbone).", valueName: "model"))
    var model: String?

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var backboneOptions: BackboneOptions
    @OptionGroup var skipping: StrictOption
    @OptionGroup var sharding: ShardOptions

    func validate() throws {
        if fillCache, json || output != nil { throw ValidationError("--fill-cache writes no vectors: leave out --json and -o") }
        if model != nil, backboneOptions.backbone != nil { throw ValidationError("--model brings its own backbone: leave out --backbone") }
    }

    func run() throws {
        try Console.run {
            var request = FeaturesRequest(inputs: inputs)
            request.shard = try sharding.resolve()
            request.strict = skipping.strict
            request.fillsCache = fillCache
            request.backbone = model.map { BackboneSource.model(path: $0) } ?? backboneOptions.source
            request.features = compute.settings(usesCache: fillCache)
            let progress = ImageFilesProgress(label: "features")
            defer { progress.clear() }
            // -o is opened before any work, so a run never ends without its file.
            request.output = output
            let vectors = fillCache ? nil : try FeatureVectorWriter(output: output, json: json)
            let embed = {
                try FeaturesWorkflow.run(request, events: progress.render, deliver: { vectors?.write(path: $0, features: $1) ?? true })
            }
            let outcome = try vectors?.committing(embed, isEmpty: { $0.images == 0 }) ?? embed()
            progress.clear()
            // A shard that holds none of the images has nothing to say.
            guard outcome.images > 0 else { return }
            Console.warn(FeaturesRendering.summary(outcome, fillsCache: fillCache))
            if outcome.failed > 0 { throw ExitCode(1) }
        }
    }
}
