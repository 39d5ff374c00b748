import Foundation

/// A folder of Workbench's own under the temporary directory (`TMPDIR`), for the files one piece of work hands to
/// another program (ffmpeg's scripts, pictures, segments), removed when the work ends and on an interrupt
/// (`InterruptCleanup`). Its path may hold any character `TMPDIR` does: a program is given the files by fixed
/// names relative to the folder (its working directory), never the folder's path inside its own syntax.
public struct TemporaryFolder: Sendable {
    /// Marks the failure to create the folder.
    public enum FailureDomain {}
    /// The folder could not be made: its path and the reason.
    public typealias Failure = FileError<FailureDomain>

    /// The folder's absolute path.
    public let path: String
    private let registration: InterruptCleanup.Registration

    /// Creates `PREFIX-UUID` under the temporary directory, registered for removal on an interrupt.
    public static func make(prefix: String) throws(Failure) -> TemporaryFolder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        // Registered first: an interrupt between the two steps removes a folder that may just have been made.
        let registration = InterruptCleanup.removeOnInterrupt(folder: path)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            InterruptCleanup.forget(registration)
            throw Failure(path: path, reason: "cannot create temporary folder: \(error.localizedDescription)")
        }
        return TemporaryFolder(path: path, registration: registration)
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
        InterruptCleanup.forget(registration)
    }
}
