/// What a cached feature vector depends on: the image's bytes, how it was preprocessed, and which backbone
/// weights computed it. Changing any of them gives a different entry.
public struct FeatureCacheKey: Hashable, Sendable {
    /// SHA-256 of the image file.
    public var contentHash: ContentHash
    /// Identifies the preprocessing recipe, e.g. "tf_crop_pad32-224".
    public var preprocessingID: String
    /// Identifies the backbone weights, e.g. their SHA-256.
    public var backboneID: String

    /// Creates a key.
    public init(contentHash: ContentHash, preprocessingID: String, backboneID: String) {
        self.contentHash = contentHash
        self.preprocessingID = preprocessingID
        self.backboneID = backboneID
    }

    /// The key for the image file at `path` (hashes the file).
    public init(imagePath path: String, preprocessingID: String, backboneID: String) throws(DatasetError) {
        self.init(contentHash: try ContentHash.ofFile(path: path), preprocessingID: preprocessingID, backboneID: backboneID)
    }

    /// An unambiguous byte form: a tag, then each field prefixed by its length, so no two keys share it.
    var canonicalBytes: [UInt8] {
        var bytes = Array("workbench-feature-key/1".utf8)
        for field in [contentHash.bytes, Array(preprocessingID.utf8), Array(backboneID.utf8)] {
            bytes += Array("\n\(field.count):".utf8)
            bytes += field
        }
        return bytes
    }

    /// The entry's file name stem: SHA-256 of `canonicalBytes` in hexadecimal.
    var fileStem: String { ContentHash.of(canonicalBytes).hex }
}
