import Foundation
import XCTest
import _TestSupport

/// Odd inputs and failing outputs through the release binary: each is one line naming the file and the reason, a
/// non-zero exit where the command cannot do its job, never a crash, a hang, a half-written file or a silent loss.
final class HostileInputCommandTests: XCTestCase {
    nonisolated(unsafe) static var root: URL!
    nonisolated(unsafe) static var dataset: URL!
    nonisolated(unsafe) static var model: String!
    nonisolated(unsafe) static var environment: [String: String] = [:]

    private var folder: URL!
    private var dataset: URL { Self.dataset }
    private var model: String { Self.model }
    private let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")

    /// One tiny cat-versus-espresso dataset and its model for every test; features cached in a private folder.
    override class func setUp() {
        super.setUp()
        do {
            root = try WorkbenchBinary.temporaryFolder()
            environment = ["WORKBENCH_CACHE": root.appendingPathComponent("cache").path, "SOURCE_DATE_EPOCH": "1700000000"]
            let repository = WorkbenchBinary.repositoryRoot()
            dataset = root.appendingPathComponent("tiny")
            try python([
                repository.appendingPathComponent("scripts/fixtures/make-tiny-dataset.py").path,
                repository.appendingPathComponent("Tests/ModelsTests/Fixtures").path, dataset.path,
            ])
            model = root.appendingPathComponent("tiny.wbmodel").path
            let train = try WorkbenchBinary.run(["train", dataset.path, "-o", model], environment: environment)
            precondition(train.status == 0, train.standardError)
        } catch {
            fatalError("HostileInputCommandTests set-up failed: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Helpers

    /// Runs the project's Python (Pillow is installed there by scripts/setup.sh).
    static func python(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ProjectPython.interpreter())
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "python3 \(arguments) failed")
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> WorkbenchBinary.Outcome {
        try WorkbenchBinary.run(arguments, environment: Self.environment, file: file, line: line)
    }

    /// Runs the binary with stdout sent to `standardOutput` (a device, or a pipe nobody reads), stderr captured.
    private func run(_ arguments: [String], standardOutput: FileHandle) throws -> (status: Int32, errorLines: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try WorkbenchBinary.path())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(Self.environment) { $1 }
        let errorPath = folder.appendingPathComponent("stderr-\(UUID().uuidString)").path
        XCTAssertTrue(FileManager.default.createFile(atPath: errorPath, contents: nil))
        process.standardOutput = standardOutput
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let errors = try String(contentsOfFile: errorPath, encoding: .utf8)
        return (process.terminationStatus, errors.split(separator: "\n").map(String.init))
    }

    /// Writes `name` as an RGB image of `width × height` (PNG or JPEG by extension) with Pillow.
    private func makeImage(_ path: String, width: Int, height: Int) throws {
        try Self.python(["-c", "import sys; from PIL import Image; Image.new('RGB', (\(width), \(height)), (200, 90, 30)).save(sys.argv[1])", path])
    }

    /// Creates a file whose name is raw bytes, not necessarily UTF-8, holding `contents`.
    private func createFile(in folder: String, rawName: [UInt8], contents: Data) {
        var path = Array(folder.utf8) + [UInt8(ascii: "/")] + rawName + [0]
        let descriptor = path.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    private func isCharacterDevice(_ path: String) -> Bool {
        var information = stat()
        return lstat(path, &information) == 0 && (information.st_mode & S_IFMT) == S_IFCHR
    }

    private func feature(lines text: String) -> [(path: String, values: [Float])] {
        text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", maxSplits: 1)
            return (String(fields[0]), fields.count > 1 ? fields[1].split(separator: " ").compactMap { Float(String($0)) } : [])
        }
    }

    // MARK: - 1. Images 1 pixel wide or high

    func testImagesOnePixelWideOrHighWorkInEveryCommand() throws {
        // A dataset of the tiny one plus thin images in each label.
        let thin = folder.appendingPathComponent("thin")
        try FileManager.default.copyItem(at: dataset.appendingPathComponent("Training Data"), to: thin)
        let thinFiles = ["cat/w1.png": (1, 40), "cat/h1.jpg": (40, 1), "espresso/one.png": (1, 1), "espresso/w1.jpg": (1, 30)]
        for (name, size) in thinFiles { try makeImage(thin.appendingPathComponent(name).path, width: size.0, height: size.1) }
        let paths = thinFiles.keys.sorted().map { thin.appendingPathComponent($0).path }

        let features = try run(["features"] + paths)
        XCTAssertEqual(features.status, 0, features.standardError)
        let lines = feature(lines: features.standardOutput)
        XCTAssertEqual(lines.map(\.path), paths)
        for line in lines {
            XCTAssertEqual(line.values.count, 1280, line.path)
            XCTAssertTrue(line.values.allSatisfy(\.isFinite), line.path)
        }

        let classify = try run(["classify", model, "--json"] + paths)
        XCTAssertEqual(classify.status, 0, classify.standardError)
        XCTAssertEqual(classify.standardOutput.split(separator: "\n").count, 4)

        let evaluate = try run(["evaluate", model, thin.path])
        XCTAssertEqual(evaluate.status, 0, evaluate.standardError)

        let trained = folder.appendingPathComponent("thin.wbmodel").path
        let train = try run(["train", thin.path, "-o", trained, "--validation-fraction", "0"])
        XCTAssertEqual(train.status, 0, train.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: trained))

        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try makeImage(frames.appendingPathComponent("1.png").path, width: 1, height: 1)
        try makeImage(frames.appendingPathComponent("2.jpg").path, width: 30, height: 1)
        let label = try run(["label", model, frames.path])
        XCTAssertEqual(label.status, 0, label.standardError)
        XCTAssertEqual(label.standardOutput.split(separator: "\n").count, 2, label.standardOutput)
    }

    // MARK: - 2. Failing writes

    func testResultsToAFullOrClosedStdoutExitNonZeroWithOneLine() throws {
        let image = fixtures.appendingPathComponent("coffee.jpg").path
        let full = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        let commands: [[String]] = [
            ["features", image], ["classify", model, image], ["classify", model, image, "--json"],
            ["evaluate", model, dataset.appendingPathComponent("Testing Data").path, "--json"],
            ["inspect", model], ["train", dataset.path, "-o", folder.appendingPathComponent("m.wbmodel").path, "--json"],
        ]
        for arguments in commands {
            let outcome = try run(arguments, standardOutput: full)
            XCTAssertEqual(outcome.status, 1, "\(arguments)")
            XCTAssertEqual(
                outcome.errorLines.filter { $0.hasPrefix("workbench: ") },
                ["workbench: stdout: cannot write: no space left on device (ENOSPC)"], "\(arguments): \(outcome.errorLines)")
        }
        // A pipe whose reader is gone: EPIPE (SIGPIPE is ignored), reported, not a silent death by signal.
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let closed = try run(["classify", model, image], standardOutput: pipe.fileHandleForWriting)
        XCTAssertEqual(closed.status, 1)
        XCTAssertEqual(closed.errorLines, ["workbench: stdout: cannot write: broken pipe (EPIPE)"])
    }

    func testOutputFilesAreWrittenThroughDevicesAndAtomicallyOtherwise() throws {
        let image = fixtures.appendingPathComponent("coffee_224.png").path
        let toFull = try run(["features", image, "-o", "/dev/full"])
        XCTAssertEqual(toFull.status, 1)
        XCTAssertEqual(toFull.errorLines, ["workbench: /dev/full: cannot write: no space left on device (ENOSPC)"])
        XCTAssertTrue(isCharacterDevice("/dev/full"), "/dev/full must never be replaced by a file")

        let toNull = try run(["features", image, "-o", "/dev/null"])
        XCTAssertEqual(toNull.status, 0, toNull.standardError)
        XCTAssertTrue(isCharacterDevice("/dev/null"), "/dev/null must never be replaced by a file")

        let toStdout = try run(["features", image, "-o", "/dev/stdout"])
        XCTAssertEqual(toStdout.status, 0, toStdout.standardError)
        XCTAssertEqual(feature(lines: toStdout.standardOutput).map(\.path), [image], "written through to stdout")

        // A symbolic link keeps pointing at its file, which keeps its permissions.
        let target = folder.appendingPathComponent("target.txt").path
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(target, 0o640), 0)
        let link = folder.appendingPathComponent("link.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        XCTAssertEqual(try run(["features", image, "-o", link]).status, 0)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), target)
        XCTAssertEqual(feature(lines: try String(contentsOfFile: target, encoding: .utf8)).map(\.path), [image])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int, 0o640)

        // The model file and the report are checked writes too.
        for arguments in [["-o", "/dev/full"], ["-o", folder.appendingPathComponent("r.wbmodel").path, "--report", "/dev/full"]] {
            let train = try run(["train", dataset.path] + arguments)
            XCTAssertEqual(train.status, 1, "\(arguments)")
            XCTAssertEqual(
                train.errorLines.filter { $0.hasPrefix("workbench: ") },
                ["workbench: /dev/full: cannot write: no space left on device (ENOSPC)"], "\(arguments): \(train.standardError)")
        }
        XCTAssertTrue(isCharacterDevice("/dev/full"))

        // A model written through a device gets no page beside it: no /dev/null.html (which a normal user could not
        // write, so `-o /dev/null` failed for one before any work).
        let discarded = try run(["train", dataset.path, "-o", "/dev/null"])
        XCTAssertEqual(discarded.status, 0, discarded.standardError)
        XCTAssertTrue(discarded.standardOutput.hasSuffix("model written to /dev/null\n"), discarded.standardOutput)
        XCTAssertFalse(discarded.standardOutput.contains("report written"), discarded.standardOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/null.html"))
    }

    func testAFileThatCannotGrowLeavesNoPartialFile() throws {
        // `ulimit -f 4` (4 KiB): one text line of features is 13 KB, so the write fails with EFBIG half-way.
        let output = folder.appendingPathComponent("out.txt").path
        let script = "ulimit -f 4; exec \"$0\" features \"$1\" -o \"$2\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script, try WorkbenchBinary.path(), fixtures.appendingPathComponent("coffee_224.png").path, output]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "not killed by SIGXFSZ: \(text)")
        XCTAssertEqual(process.terminationStatus, 1, text)
        XCTAssertEqual(text, "workbench: \(output): cannot write: file too large (EFBIG)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no output and no temporary file")
    }

    // MARK: - 3. Model files with non-finite weights

    func testModelWithANaNWeightIsRefusedNamingTheTensor() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: model)))
        let headerLength = (0..<8).reduce(0) { $0 | Int(bytes[$1]) << (8 * $1) }
        let header = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes[8..<(8 + headerLength)])) as? [String: Any])
        let offsets = try XCTUnwrap((header["head.weight"] as? [String: Any])?["data_offsets"] as? [Int])
        let nan = Float.nan.bitPattern
        for index in 0..<4 { bytes[8 + headerLength + offsets[0] + 4 * 3 + index] = UInt8(truncatingIfNeeded: nan >> (8 * UInt32(index))) }
        let broken = folder.appendingPathComponent("nan.wbmodel").path
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        // Sealed again, as a writer without the finite check would: not the checksum but the NaN is refused.
        try Self.python([
            "-c",
            """
            import hashlib, struct, sys
            data = open(sys.argv[1], "rb").read()
            length = struct.unpack("<Q", data[:8])[0]
            key = b'"tensor_data_sha256":"'
            start = 8 + data[8:8 + length].index(key) + len(key)
            digest = hashlib.sha256(data[8 + length:]).hexdigest().encode()
            open(sys.argv[1], "wb").write(data[:start] + digest + data[start + 64:])
            """, broken,
        ])
        for arguments in [["classify", broken, fixtures.appendingPathComponent("coffee.jpg").path, "--json"], ["inspect", broken]] {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 1)
            XCTAssertEqual(
                outcome.errorLines, ["workbench: \(broken): corrupted: tensor 'head.weight' holds nan at index 3: weights must be finite numbers"])
            XCTAssertEqual(outcome.standardOutput, "", "nothing printed, certainly not nan")
        }
    }

    // MARK: - 4. Names that are not UTF-8, symbolic-link loops

    func testNamesThatAreNotUTF8AreReportedAndLinkLoopsEmbedEachImageOnce() throws {
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let image = try Data(contentsOf: fixtures.appendingPathComponent("coffee_224.png"))
        try image.write(to: photos.appendingPathComponent("good.png"))
        try image.write(to: photos.appendingPathComponent("sub/deeper.png"))
        createFile(in: photos.path, rawName: Array("caf".utf8) + [0xE9] + Array(".png".utf8), contents: image)
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("sub/loop").path, withDestinationPath: "..")
        // Walked after sub/ (natural order), so it leads to a folder already walked.
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("zz-again").path, withDestinationPath: "sub")

        let outcome = try run(["features", photos.path])
        XCTAssertEqual(outcome.status, 1, "a file could not be read")
        XCTAssertEqual(
            feature(lines: outcome.standardOutput).map(\.path),
            [photos.appendingPathComponent("good.png").path, photos.appendingPathComponent("sub/deeper.png").path],
            "each image once, however many links lead to its folder")
        XCTAssertEqual(
            outcome.errorLines.dropLast(),
            [
                "\(photos.path)/caf\\xE9.png: name is not valid UTF-8, so it cannot be opened (shown with \\x escapes); rename it"
            ])
        XCTAssertTrue(outcome.errorLines.last?.hasPrefix("2 of 3 images embedded") ?? false, outcome.standardError)
    }

    // MARK: - 5. FIFOs, devices, huge files and header bombs: bounded memory, one line each, the run goes on

    func testHostileFilesCostBoundedMemoryAndOneLineEach() throws {
        let hostile = folder.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: fixtures.appendingPathComponent("coffee.jpg"))
        try jpeg.write(to: hostile.appendingPathComponent("1-good.jpg"))
        // 3 GB of nothing (sparse), and a real JPEG followed by 3 GB of zeros.
        let sparse = hostile.appendingPathComponent("2-sparse.jpg").path
        XCTAssertTrue(FileManager.default.createFile(atPath: sparse, contents: nil))
        XCTAssertEqual(truncate(sparse, 3 << 30), 0)
        let junk = hostile.appendingPathComponent("3-junk.jpg").path
        try jpeg.write(to: URL(fileURLWithPath: junk))
        XCTAssertEqual(truncate(junk, off_t(jpeg.count + (3 << 30))), 0)
        // 65 bytes claiming 1,000,000 × 299 pixels (299 megapixels: under the limit).
        try Data(Self.headerOnlyPNG(width: 1_000_000, height: 299)).write(to: hostile.appendingPathComponent("4-bomb.png"))
        try FileManager.default.createSymbolicLink(atPath: hostile.appendingPathComponent("5-zero.jpg").path, withDestinationPath: "/dev/zero")
        XCTAssertEqual(mkfifo(hostile.appendingPathComponent("6-fifo.png").path, 0o644), 0)

        let expectedLines: (String, String) -> [String] = { sparseReason, junkReason in
            [
                "\(hostile.path)/5-zero.jpg: not a regular file (a character device); not opened",
                "\(hostile.path)/6-fifo.png: not a regular file (a FIFO); not opened",
                "\(hostile.path)/2-sparse.jpg: \(sparseReason)",
                junkReason.isEmpty ? nil : "\(hostile.path)/3-junk.jpg: \(junkReason)",
                "\(hostile.path)/4-bomb.png: truncated or corrupt PNG data: Not enough image data",
            ].compactMap { $0 }
        }
        let tooLarge = "larger than an image of at most 300 megapixels can be (limit 2.5 GB)"
        // Default limit: the 3 GB files are refused by their size, unread.
        let refused = try measure(["features", hostile.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(
            Array(refused.errorLines.dropLast()),
            expectedLines("file is 3.2 GB, \(tooLarge)", "file is 3.2 GB, \(tooLarge)"))
        XCTAssertTrue(refused.errorLines.last?.hasPrefix("1 of 6 images embedded") ?? false, "\(refused.errorLines)")
        XCTAssertLessThan(refused.peakMegabytes, 500, "peak memory")
        // A limit that lets them through: the files are streamed, never read whole, and the JPEG before the junk
        // decodes (it ends before the zeros start).
        let streamed = try measure(["features", hostile.path, "--max-megapixels", "1000"])
        XCTAssertEqual(streamed.status, 1)
        XCTAssertEqual(
            Array(streamed.errorLines.dropLast()), expectedLines("not a picture Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)", ""))
        XCTAssertTrue(streamed.errorLines.last?.hasPrefix("2 of 6 images embedded") ?? false, "\(streamed.errorLines)")
        XCTAssertLessThan(streamed.peakMegabytes, 500, "peak memory")
        print(
            "peak memory of features over hostile files: \(refused.peakMegabytes) MB (refused by size), "
                + "\(streamed.peakMegabytes) MB (streamed)")
    }

    /// Runs the binary under a Python parent that reports its child's peak resident size (`RUSAGE_CHILDREN`), so
    /// the number is this run's alone.
    private func measure(_ arguments: [String]) throws -> (status: Int32, errorLines: [String], peakMegabytes: Double) {
        let errorPath = folder.appendingPathComponent("measure-stderr").path
        let reportPath = folder.appendingPathComponent("measure-report").path
        let script = """
            import resource, subprocess, sys
            with open(sys.argv[1], "w") as errors:
                status = subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=errors, stdin=subprocess.DEVNULL).returncode
            open(sys.argv[2], "w").write(f"{status} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
            """
        try Self.python(["-c", script, errorPath, reportPath, try WorkbenchBinary.path()] + arguments)
        let report = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: " ")
        let errors = try String(contentsOfFile: errorPath, encoding: .utf8).split(separator: "\n").map(String.init)
        return (Int32(report[0])!, errors, Double(report[1])! / 1024)
    }

    // MARK: - 6. Numeric options

    func testNumericOptionsAreValidatedWithAClearMessage() throws {
        let image = fixtures.appendingPathComponent("coffee.jpg").path
        let cases: [([String], String)] = [
            (["features", image, "--threads", "0"], "--threads must be between 1 and 256, got 0"),
            (["features", image, "--threads=-2"], "--threads must be between 1 and 256, got -2"),
            (["classify", model, image, "--threads", "100000"], "--threads must be between 1 and 256, got 100000"),
            (["evaluate", model, dataset.path, "--max-megapixels", "0"], "--max-megapixels must be between 1 and 100000, got 0"),
            (["features", image, "--max-megapixels", "9223372036854775807"], "--max-megapixels must be between 1 and 100000"),
            (["classify", model, image, "--top", "0"], "--top must be at least 1, got 0"),
            (["train", dataset.path, "--l2", "nan"], "--l2 must be a number from 0 to 1000000000.0, got nan"),
            (["train", dataset.path, "--l2", "inf"], "--l2 must be a number from 0 to 1000000000.0, got inf"),
            (["train", dataset.path, "--l2=-1"], "--l2 must be a number from 0 to 1000000000.0, got -1.0"),
            (["train", dataset.path, "--l2", "1e300"], "--l2 must be a number from 0 to 1000000000.0, got 1e+300"),
            (["train", dataset.path, "--validation-fraction", "nan"], "--validation-fraction must be at least 0 and below 1, got nan"),
            (["train", dataset.path, "--validation-fraction", "1"], "--validation-fraction must be at least 0 and below 1, got 1.0"),
            (["train", dataset.path, "--max-iterations", "0"], "--max-iterations must be between 1 and 1000000, got 0"),
            (["train", dataset.path, "--max-iterations", "5000000"], "--max-iterations must be between 1 and 1000000, got 5000000"),
        ]
        for (arguments, message) in cases {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): usage errors exit 64")
            XCTAssertTrue(outcome.errorLines.first?.hasPrefix("Error: \(message)") ?? false, "\(arguments): \(outcome.errorLines)")
        }
        // The creation date's number comes from the environment; a bad one stops the run before any work.
        for value in ["nan", "1e300", "-5", "99999999999999"] {
            let model = folder.appendingPathComponent("date.wbmodel").path
            let outcome = try WorkbenchBinary.run(
                ["train", dataset.path, "-o", model],
                environment: Self.environment.merging(["SOURCE_DATE_EPOCH": value]) { $1 })
            XCTAssertEqual(outcome.status, 1, value)
            XCTAssertEqual(
                outcome.errorLines, ["workbench: SOURCE_DATE_EPOCH must be whole seconds since 1970, from 0 to 253402300799; got '\(value)'"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: model))
        }
    }

    // MARK: - 7. Skips are counted; --strict stops at the first

    func testSkippedFilesAreCountedAndStrictStopsAtTheFirst() throws {
        let images = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("coffee.jpg"), to: images.appendingPathComponent("1.jpg"))
        XCTAssertEqual(mkfifo(images.appendingPathComponent("2.png").path, 0o644), 0)
        try Data("not a picture".utf8).write(to: images.appendingPathComponent("3.jpg"))

        let features = try run(["features", images.path])
        XCTAssertEqual(features.status, 1)
        XCTAssertEqual(features.errorLines.count, 3, features.standardError)
        XCTAssertTrue(features.errorLines.last?.hasSuffix(", 2 failed") ?? false, features.standardError)
        let classify = try run(["classify", model, images.path])
        XCTAssertEqual(classify.status, 1)
        XCTAssertEqual(classify.errorLines.last, "2 of 3 images could not be classified")

        let output = folder.appendingPathComponent("strict.txt").path
        for arguments in [["features", images.path, "--strict", "-o", output], ["classify", model, images.path, "--strict"]] {
            let strict = try run(arguments)
            XCTAssertEqual(strict.status, 1)
            XCTAssertEqual(strict.errorLines, ["workbench: \(images.path)/2.png: not a regular file (a FIFO); not opened"], "\(arguments)")
            XCTAssertEqual(strict.standardOutput, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a stopped run writes no output file")

        // In a dataset: counted in the report (and in evaluate's JSON), or with --strict the end of the run.
        let data = folder.appendingPathComponent("data")
        try FileManager.default.copyItem(at: dataset, to: data)
        let fifo = data.appendingPathComponent("Training Data/cat/fifo.png").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let broken = data.appendingPathComponent("Testing Data/cat/broken.jpg").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: broken))
        let report = folder.appendingPathComponent("report.json").path
        let trained = folder.appendingPathComponent("data.wbmodel").path
        let train = try run(["train", data.path, "-o", trained, "--report", report])
        XCTAssertEqual(train.status, 0, train.standardError)
        XCTAssertTrue(train.standardOutput.contains("2 unreadable images skipped"), train.standardOutput)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let unreadable = try XCTUnwrap(written["unreadable"] as? [[String: String]])
        XCTAssertEqual(unreadable.compactMap { $0["path"] }, [fifo, broken])

        let evaluate = try run(["evaluate", trained, data.appendingPathComponent("Testing Data").path, "--json"])
        XCTAssertEqual(evaluate.status, 0, evaluate.standardError)
        let evaluation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(evaluate.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual((evaluation["unreadable"] as? [[String: String]])?.compactMap { $0["path"] }, [broken])
        XCTAssertNotNil(evaluation["accuracy"] as? Double)

        let strictModel = folder.appendingPathComponent("strict.wbmodel").path
        let strictTrain = try run(["train", data.path, "-o", strictModel, "--strict"])
        XCTAssertEqual(strictTrain.status, 1)
        XCTAssertEqual(strictTrain.errorLines.filter { $0.hasPrefix("workbench: ") }, ["workbench: \(fifo): not a regular file (a FIFO); not opened"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: strictModel))
    }

    /// A PNG signature, an IHDR for an 8-bit RGB `width × height` image, an empty IDAT and IEND (CRCs computed).
    static func headerOnlyPNG(width: UInt32, height: UInt32) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        let emptyZlib: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", emptyZlib) + chunk("IEND", [])
    }
}
