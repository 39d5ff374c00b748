import Foundation

/// What `workbench features` is asked to embed, and how.
public struct FeaturesRequest: Sendable {
    /// Image files and folders (walked recursively, `ImageFileList.expand`).
    public var inputs: [String]
    /// Only this part of the images (`--shard I/N`); nil is all of them.
    public var shard: Shard?
    /// Whether the first file that cannot be read ends the run instead of being skipped and counted.
    public var strict = false
    /// Store the features in the feature cache instead of delivering them (`--fill-cache`; `FeatureCacheFill`).
    public var fillsCache = false
    /// The network: set-up's pretrained weights by default, or a model file's own (fine-tuned) copy.
    public var backbone = BackboneSource.pretrained(path: nil)
    /// Threads and pixel limit of the network (whether the cache is used is `fillsCache`'s to say).
    public var features = FeatureSettings()
    /// The file `deliver` writes the vectors to, if any (the caller opens and writes it): checked before any work,
    /// like every output, against every image and the backbone's file.
    public var output: String?

    /// Embeds `inputs`, every image, skipping unreadable files.
    public init(inputs: [String]) { self.inputs = inputs }
}

/// How a features run went.
public struct FeaturesResult: Sendable, Equatable {
    /// Images of the run (its shard's), unreadable entries included; 0 when the shard holds none.
    public var images: Int
    /// Images whose features were delivered, or, filling the cache, are now in it.
    public var done: Int
    /// Images that could not be read (each reported as `.skipped`).
    public var failed: Int
    /// Seconds from the backbone being ready to the last image.
    public var seconds: Double
}

/// `workbench features`: one 1280-d feature vector per image, delivered in input order, or (`fillsCache`) stored in
/// the feature cache for a later `train` to read.
///
/// Embedding is a raw measurement: it never reads the cache. Unreadable files are reported and counted (or with
/// `strict` the first is thrown); the backbone is read only once the inputs are known, so a bad input fails first.
public enum FeaturesWorkflow {
    /// Runs `request` (its backbone, its threads and pixel limit; whether the cache is used, `fillsCache` decides).
    /// `deliver` gets each vector in input order; when it returns false (its output failed) no more images are
    /// started and the run returns what it has.
    public static func run(
        _ request: FeaturesRequest, events: (ImageFilesEvent) -> Void, deliver: (_ path: String, _ features: [Float]) -> Bool
    ) throws(WorkbenchError) -> FeaturesResult {
        let list = try ImageFileList.gather(request.inputs, shard: request.shard, strict: request.strict, events: events)
        try WritableOutput.checkConflicts(
            inputs: request.inputs + list.files + [request.backbone.filePath].compactMap { $0 }, outputs: [request.output])
        var outcome = FeaturesResult(images: list.count, done: 0, failed: list.unreadable.count, seconds: 0)
        if list.count == 0 { return outcome }
        var settings = request.features
        settings.usesCache = request.fillsCache
        let extractor = FeatureExtractor(backbone: try request.backbone.load(), settings: settings)
        let started = Date()
        events(.started(images: list.files.count))
        if request.fillsCache {
            let fill = try FeatureCacheFill.fill(
                paths: list.files, extractor: extractor, strict: request.strict,
                progress: { events(.progress(done: $0, total: $1)) },
                failure: { events(.skipped($0)) })
            outcome.done = fill.cached
            outcome.failed += fill.failed
        } else {
            var stop: WorkbenchError?
            extractor.extract(paths: list.files) { index, path, result in
                defer { events(.progress(done: index + 1, total: list.files.count)) }
                switch result {
                case .success(let vector):
                    guard deliver(path, vector) else { return false }
                    outcome.done += 1
                case .failure(let error):
                    outcome.failed += 1
                    if request.strict {
                        stop = error
                        return false
                    }
                    events(.skipped(error))
                }
                return true
            }
            if let stop { throw stop }
        }
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }
}
