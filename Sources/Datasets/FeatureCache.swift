import FileFormats
import Foundation

/// Feature vectors on disk, so an image already seen by the same backbone and preprocessing costs a file read
/// instead of a forward pass.
///
/// One file per entry, `<folder>/<first two hex digits>/<key hex>.feat` (see `FeatureCacheEntry` for the bytes).
/// Entries are written with `AtomicFile.write` (temporary file + rename), so processes and threads storing at the
/// same time never leave a half-written entry; a damaged entry is detected by its checksum, deleted, and reported
/// as missing. The cache is an optimisation: every failure degrades to "not cached".
public struct FeatureCache: Sendable {
    /// The cache's root folder.
    public let folder: String

    /// Opens the cache at `folder`, or else at `defaultFolder(environment:)`. Nothing is created until a store.
    public init(folder: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.folder = folder ?? Self.defaultFolder(environment: environment)
    }

    /// `$WORKBENCH_CACHE`, else `$XDG_CACHE_HOME/workbench/features`, else `~/.cache/workbench/features`.
    public static func defaultFolder(environment: [String: String]) -> String {
        if let explicit = environment["WORKBENCH_CACHE"], !explicit.isEmpty { return explicit }
        if let cacheHome = environment["XDG_CACHE_HOME"], !cacheHome.isEmpty { return cacheHome + "/workbench/features" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/workbench/features"
    }

    /// The file that holds `key`'s entry.
    public func path(for key: FeatureCacheKey) -> String {
        let stem = key.fileStem
        return "\(folder)/\(stem.prefix(2))/\(stem).feat"
    }

    /// The cached features, or nil when there is no entry or it is damaged (a damaged entry is deleted).
    public func lookup(_ key: FeatureCacheKey) -> [Float]? {
        let path = path(for: key)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        if let features = FeatureCacheEntry.decode([UInt8](data), key: key.canonicalBytes) { return features }
        unlink(path)
        return nil
    }

    /// Stores `features` for `key`, replacing any previous entry atomically.
    public func store(_ key: FeatureCacheKey, features: [Float]) throws(DatasetError) {
        let path = path(for: key)
        let entryFolder = (path as NSString).deletingLastPathComponent
        try Self.makeFolders(entryFolder)
        do {
            try AtomicFile.write(FeatureCacheEntry.encode(key: key.canonicalBytes, features: features), to: path)
        } catch {
            throw DatasetError(path: path, reason: "\(error.reason) (feature cache entry)")
        }
    }

    /// The cached features for `key`, or `compute()`'s result, stored for next time. A failed store is ignored:
    /// the features are still correct, only not cached.
    public func features<Failure: Error>(
        for key: FeatureCacheKey, compute: () throws(Failure) -> [Float]
    ) throws(Failure) -> [Float] {
        if let cached = lookup(key) { return cached }
        let features = try compute()
        try? store(key, features: features)
        return features
    }

    /// The entry's folder, created as needed while other processes may be creating it too.
    private static func makeFolders(_ path: String) throws(DatasetError) {
        do {
            try FolderCreation.create(path)
        } catch {
            throw DatasetError(path: error.path, reason: error.reason.replacingOccurrences(of: "the folder", with: "the feature cache folder"))
        }
    }
}
