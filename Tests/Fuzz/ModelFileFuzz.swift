// libFuzzer harness over the model-file loader: the bytes are a model file on disk, read by `ModelFile.read`
// (container checks, then the safetensors parser, then the content rules) and, separately, by the generic
// `SafetensorsFile.parse`. A file that loads must survive a write and a second read byte for byte: the writer and
// the reader agree on every file the reader accepts. Anything else than a thrown error is a finding.
import FileFormats
import Foundation
import ModelFiles

/// One scratch folder per process (tmpfs when there is one), reused by every input.
private let scratch: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let folder = base + "/workbench-fuzz-model-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: scratch) }
    return folder
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? SafetensorsFile.parse(bytes, path: "input")

    let input = scratch + "/input.wbmodel"
    guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else {
        fatalError("cannot write the scratch file \(input)")
    }
    guard let model = try? ModelFile.read(path: input) else { return 0 }

    let first = scratch + "/first.wbmodel", second = scratch + "/second.wbmodel"
    do {
        try model.write(path: first)
        try ModelFile.read(path: first).write(path: second)
    } catch {
        fatalError("a model that loads cannot be written and read back: \(error)")
    }
    guard FileManager.default.contents(atPath: first) == FileManager.default.contents(atPath: second) else {
        fatalError("writing a loaded model twice gives different bytes")
    }
    return 0
}
