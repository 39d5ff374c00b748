import Foundation

/// Whole-file writes that never leave a half-written file behind: the bytes go to a temporary file in the
/// destination's folder (same file system), are flushed, and the temporary file is renamed over the destination.
public enum AtomicFile {
    /// A failed atomic write; `reason` is one line.
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: [UInt8], to path: String) throws(WriteError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WriteError(path: path, reason: "folder \(folder) does not exist")
        }
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw WriteError(path: path, reason: String(cString: strerror(errno)))
        }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                written += result
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, reason: failure)
        }
    }

    /// Writes UTF-8 text atomically.
    public static func write(text: String, to path: String) throws(WriteError) {
        try write(Array(text.utf8), to: path)
    }
}
