// libFuzzer harness over the results folder of a sharded label run (`MovieResultFolder`): the bytes up to the
// first NUL are `manifest.json`, the rest the result file of the manifest's first movie (or of movie "3" when the
// manifest does not load), written into a scratch folder and read back as `label --results` and `label merge` do.
// Whatever loads must write and load back equal (manifest and result), and a merge may only return results made by
// the manifest's model and settings. Anything else than a thrown error is a finding.
import FileFormats
import Foundation
import Labeling

/// The scratch folders of this process, removed when libFuzzer exits.
private let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("result-folder-fuzz-\(getpid())").path
private let readFolder = scratch + "/read"
private let writeFolder = scratch + "/write"
private let cleanup: Void = {
    atexit { try? FileManager.default.removeItem(atPath: scratch) }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResultFolder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = cleanup
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let manifestBytes = Array(bytes[..<split]), resultBytes = split < bytes.count ? Array(bytes[(split + 1)...]) : nil

    try? FileManager.default.removeItem(atPath: readFolder)
    try? FileManager.default.createDirectory(atPath: readFolder + "/movies", withIntermediateDirectories: true)
    let folder = MovieResultFolder(path: readFolder)
    guard write(manifestBytes, to: readFolder + "/manifest.json") else { fatalError("cannot write the scratch folder \(readFolder)") }
    let manifest = try? folder.loadManifest()
    let movie = manifest?.movies.first ?? .init(id: "3", path: "/films/3.mp4")
    // An id too long for a file name has no result file to write: nothing to read either.
    if let resultBytes, !write(resultBytes, to: folder.resultPath(id: movie.id)) { return 0 }

    let result = try? folder.loadResult(for: movie)
    if let result, let manifest {
        let done = (try? folder.hasResult(for: movie, origin: manifest.origin)) ?? false
        guard done == result.origin.makesTheSameMarkers(as: manifest.origin) else {
            fatalError("hasResult says \(done) for a result of \(result.origin), the run's being \(manifest.origin)")
        }
    }
    if let merged = try? folder.allResults() {
        guard let manifest, merged.manifest == manifest, merged.results.count == manifest.movies.count else {
            fatalError("a merge returned \(merged.results.count) results for \(String(describing: manifest))")
        }
        for stored in merged.results where !stored.origin.makesTheSameMarkers(as: manifest.origin) {
            fatalError("a merge let in a result of \(stored.origin), the run's being \(manifest.origin)")
        }
    }

    // Round trips: what loads is written again and loads back the same.
    guard manifest != nil || result != nil else { return 0 }
    try? FileManager.default.removeItem(atPath: writeFolder)
    // A task stores results only into a folder `prepare` made; without a manifest to prepare with, make it bare.
    try? FileManager.default.createDirectory(atPath: writeFolder, withIntermediateDirectories: true)
    let copy = MovieResultFolder(path: writeFolder)
    if let manifest {
        do {
            try copy.prepare(manifest)
        } catch {
            fatalError("a loaded manifest cannot be written again: \(error)")
        }
        guard let again = try? copy.loadManifest(), again == manifest else { fatalError("the manifest changed on a round trip: \(manifest)") }
    }
    if let result {
        do {
            try copy.store(result)
        } catch {
            fatalError("a loaded result cannot be written again: \(error)")
        }
        guard let again = try? copy.loadResult(for: movie), again == result else { fatalError("the result changed on a round trip: \(result)") }
    }
    return 0
}

private func write(_ bytes: [UInt8], to path: String) -> Bool {
    FileManager.default.createFile(atPath: path, contents: Data(bytes))
}
