import FileFormats
import Foundation
import TensorCore
import XCTest

/// `OutputFile` (write through devices, atomic for files, every failure reported), `InputFile` (regular files
/// only, never blocking, bounded), and the safetensors checks on weights and layout.
final class FileSafetyTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "file-safety-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Issue 45, item 9: a folder to create that is a looping symbolic link is named as a loop, not "a file is in
    /// the way"; a plain file there still is.
    func testCreatingAFolderWhereALinkLoopsNamesTheLoop() throws {
        let loop = folder + "/loop"
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop")
        XCTAssertThrowsError(try FolderCreation.create(loop)) { error in
            XCTAssertEqual("\(error)", "\(loop): cannot create the folder: too many levels of symbolic links (ELOOP)")
        }
        let file = folder + "/file"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        XCTAssertThrowsError(try FolderCreation.create(file)) { error in
            XCTAssertEqual("\(error)", "\(file): cannot create the folder: a file is in the way")
        }
        XCTAssertEqual(fileType(loop), S_IFLNK, "the link is left as it was")
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// The `S_IFMT` bits of what is at `path` (symbolic links not followed).
    private func fileType(_ path: String) -> mode_t {
        var information = stat()
        XCTAssertEqual(lstat(path, &information), 0, path)
        return information.st_mode & S_IFMT
    }

    // MARK: - OutputFile

    func testErrnoTextNamesTheSymbol() {
        XCTAssertEqual(SystemError.describe(ENOSPC), "no space left on device (ENOSPC)")
        XCTAssertEqual(SystemError.describe(EPIPE), "broken pipe (EPIPE)")
    }

    func testDevicesAreWrittenThroughNeverReplaced() throws {
        // Only what this test leaves counts: other programs on the machine may leave their own files in /dev.
        func partialFiles() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.contains(".partial-") })
        }
        let before = try partialFiles()
        try AtomicFile.write([1, 2, 3], to: "/dev/null")
        XCTAssertEqual(fileType("/dev/null"), S_IFCHR, "/dev/null must still be the device")
        XCTAssertThrowsError(try AtomicFile.write([1, 2, 3], to: "/dev/full")) { error in
            XCTAssertEqual("\(error)", "/dev/full: cannot write: no space left on device (ENOSPC)")
        }
        XCTAssertEqual(fileType("/dev/full"), S_IFCHR, "/dev/full must still be the device")
        XCTAssertEqual(try partialFiles().subtracting(before), [])
    }

    func testWritesThroughIsTrueForDevicesAndFIFOsAndLinksToThemOnly() throws {
        let fifo = folder + "/pipe", file = folder + "/file.txt", link = folder + "/null-link"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        try AtomicFile.write([1], to: file)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        for path in ["/dev/null", "/dev/full", fifo, link] {
            XCTAssertTrue(OutputFile.writesThrough(path: path), path)
        }
        for path in [file, folder!, folder + "/missing.txt", folder + "/missing/out.bin"] {
            XCTAssertFalse(OutputFile.writesThrough(path: path), path)
        }
    }

    func testFailureIsKeptAndRethrownAndTheOutputCanBeAbandoned() throws {
        let output = try OutputFile.open(path: "/dev/full")
        XCTAssertEqual(output.kind, .writeThrough)
        try output.write("buffered, not yet written")
        XCTAssertNil(output.failure)
        XCTAssertThrowsError(try output.flush())
        XCTAssertEqual(output.failure?.reason, "cannot write: no space left on device (ENOSPC)")
        XCTAssertThrowsError(try output.write("more")) { XCTAssertEqual($0 as? OutputFile.Failure, output.failure) }
        output.abandon()
    }

    func testFIFOIsWrittenThrough() throws {
        let fifo = folder + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let received = Received()
        let reader = Thread {
            // Reads until the writer closes its end.
            let descriptor = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                received.append(buffer[0..<count])
            }
            close(descriptor)
            received.finish()
        }
        reader.start()
        try AtomicFile.write(Array("through the pipe".utf8), to: fifo)
        received.waitUntilFinished()
        XCTAssertEqual(received.bytes, Array("through the pipe".utf8))
        XCTAssertEqual(fileType(fifo), S_IFIFO, "the FIFO must not be replaced by a file")
    }

    func testRegularFileIsReplacedAtomicallyKeepingItsModeAndItsLink() throws {
        let target = folder + "/target.txt"
        try AtomicFile.write(Array("old".utf8), to: target)
        XCTAssertEqual(chmod(target, 0o600), 0)
        let link = folder + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.txt")
        try AtomicFile.write(Array("new".utf8), to: link)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "target.txt", "the link stays a link")
        XCTAssertEqual(FileManager.default.contents(atPath: target), Data("new".utf8))
        XCTAssertEqual(try mode(target), 0o600, "the replaced file keeps its permissions")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["link.txt", "target.txt"])
    }

    func testLinkToAFileStillToBeMadeCreatesItWhereItPoints() throws {
        let link = folder + "/later.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder + "/made.txt")
        try AtomicFile.write(Array("x".utf8), to: link)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), folder + "/made.txt")
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/made.txt"), Data("x".utf8))
    }

    func testAbandonedOutputLeavesTheOldFileAndNoTemporary() throws {
        let path = folder + "/keep.txt"
        try AtomicFile.write(Array("previous".utf8), to: path)
        let output = try OutputFile.open(path: path)
        XCTAssertEqual(output.kind, .atomic)
        try output.write("half of something")
        try output.flush()
        output.abandon()
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("previous".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["keep.txt"])
    }

    func testFoldersAndMissingFoldersAreRefusedWithOneLine() {
        XCTAssertThrowsError(try AtomicFile.write([1], to: folder)) { error in
            XCTAssertEqual("\(error)", "\(folder!): cannot write: is a folder")
        }
        XCTAssertThrowsError(try AtomicFile.write([1], to: folder + "/missing/out.bin")) { error in
            XCTAssertEqual("\(error)", "\(folder!)/missing/out.bin: cannot write: folder \(folder!)/missing does not exist")
        }
    }

    // MARK: - InputFile

    func testInputFileRefusesWhatIsNotARegularFileUnopened() throws {
        let fifo = folder + "/x.png"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for (path, reason) in [
            (fifo, "not a regular file (a FIFO)"), ("/dev/zero", "not a regular file (a character device)"),
            (folder!, "is a folder, not a file"), (folder + "/none", "no such file"),
        ] {
            XCTAssertThrowsError(try InputFile.open(path: path, maximumBytes: .max)) { error in
                XCTAssertEqual((error as? InputFile.Failure)?.reason, reason, path)
            }
        }
    }

    func testInputFileChecksTheSizeBeforeReading() throws {
        let path = folder + "/big.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertEqual(truncate(path, 5_000_000), 0)
        XCTAssertThrowsError(try InputFile.open(path: path, maximumBytes: 4_000_000)) { error in
            XCTAssertEqual((error as? InputFile.Failure)?.kind, .tooLarge(byteCount: 5_000_000, limit: 4_000_000))
            XCTAssertEqual((error as? InputFile.Failure)?.reason, "file is 5.0 MB, over the limit of 4.0 MB")
        }
        let file = try InputFile.open(path: path, maximumBytes: 5_000_000)
        XCTAssertEqual(try file.readAll().count, 5_000_000)
        XCTAssertEqual(InputFile.describe(byteCount: 999), "999 bytes")
        XCTAssertEqual(InputFile.describe(byteCount: 3_221_225_472), "3.2 GB")
    }

    // MARK: - OrderedPipeline stops when asked

    func testPipelineStopsStartingJobsWhenDeliveryDeclines() {
        let started = Counter()
        var delivered: [Int] = []
        OrderedPipeline.run(
            count: 1000, threads: 2, window: 4,
            work: { index in
                started.increment()
                return index
            },
            deliverUntil: { index, _ in
                delivered.append(index)
                return index < 9
            })
        XCTAssertEqual(delivered, Array(0...9))
        XCTAssertLessThan(started.value, 30, "at most the window's worth of jobs past the stop may have started")
    }

    // MARK: - Safetensors: finite weights, tensors that tile the data

    func testNonFiniteWeightsAreRefusedNamingTheTensor() throws {
        for (bad, shown) in [(Float.nan, "nan"), (Float.infinity, "inf"), (-Float.infinity, "-inf")] {
            let bytes = SafetensorsFile(tensors: [
                "good": .init(shape: [2], values: [1, 2]),
                "head.weight": .init(shape: [3], values: [0, bad, 1]),
            ]).serialized()
            XCTAssertThrowsError(try SafetensorsFile.parse(bytes, path: "m.safetensors")) { error in
                XCTAssertEqual("\(error)", "m.safetensors: tensor 'head.weight' holds \(shown) at index 1: weights must be finite numbers")
            }
        }
    }

    /// A container with a hand-written header, so offsets can be anything.
    private func container(header: String, dataBytes: Int) -> [UInt8] {
        var headerBytes = Array(header.utf8)
        while (8 + headerBytes.count) % 8 != 0 { headerBytes.append(0x20) }
        let length = UInt64(headerBytes.count)
        return (0..<8).map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) } + headerBytes + [UInt8](repeating: 0, count: dataBytes)
    }

    func testOverlappingGappedOrTrailingTensorsAreRefused() throws {
        let cases: [(String, Int, String)] = [
            (
                #"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#, 12,
                "tensors 'a' (data bytes 0..<8) and 'b' (4..<12) overlap"
            ),
            (
                #"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#, 8,
                "tensors 'a' (data bytes 0..<8) and 'b' (0..<8) overlap"
            ),
            (
                #"{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#, 8,
                "data bytes 0..<4 belong to no tensor (a gap before 'a')"
            ),
            (
                #"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#, 12,
                "data bytes 4..<12 after the last tensor belong to no tensor"
            ),
        ]
        for (header, dataBytes, reason) in cases {
            XCTAssertThrowsError(try SafetensorsFile.parse(container(header: header, dataBytes: dataBytes), path: "t")) { error in
                XCTAssertEqual("\(error)", "t: \(reason)")
            }
        }
        let tiled = container(
            header: #"{"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
            dataBytes: 8)
        XCTAssertEqual(try SafetensorsFile.parse(tiled, path: "t").tensors.count, 2, "any order in the header is fine")
    }

    func testReadRefusesDevicesAndFIFOs() throws {
        let fifo = folder + "/weights.safetensors"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertThrowsError(try SafetensorsFile.read(path: fifo)) { error in
            XCTAssertEqual("\(error)", "\(fifo): not a regular file (a FIFO)")
        }
        XCTAssertThrowsError(try SafetensorsFile.read(path: "/dev/zero")) { error in
            XCTAssertEqual("\(error)", "/dev/zero: not a regular file (a character device)")
        }
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

private final class Received: @unchecked Sendable {
    private let condition = NSCondition()
    private var collected: [UInt8] = []
    private var finished = false
    func append(_ chunk: ArraySlice<UInt8>) { condition.lock(); collected += chunk; condition.unlock() }
    func finish() { condition.lock(); finished = true; condition.broadcast(); condition.unlock() }
    func waitUntilFinished() { condition.lock(); while !finished { condition.wait() }; condition.unlock() }
    var bytes: [UInt8] { condition.lock(); defer { condition.unlock() }; return collected }
}
