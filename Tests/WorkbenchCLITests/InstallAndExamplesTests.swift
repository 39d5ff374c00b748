import Foundation
import XCTest
import _TestSupport

/// The first ten minutes of a new user: `scripts/install.sh` into a fresh prefix, then every example of
/// `workbench --help` and of each command's `--help`, run as written by a shell in a folder outside the project
/// that holds the files the examples name, with the installed binary on the PATH and no `WORKBENCH_WEIGHTS`.
/// Also the small promises around them: a bare `workbench`, the default model name, `--label` with `--top`, and
/// set-up's answer to a missing Debian package without root.
final class InstallAndExamplesTests: XCTestCase {
    /// The installed prefix and the example folder, made once for every test of this class.
    struct Fixture {
        var root: URL
        /// `PREFIX` given to install.sh: `bin/workbench`, `share/workbench/…`.
        var prefix: URL
        /// Outside the project: `datasets/drawings`, `Training Data`, `Testing Data`, `photo.jpg`, `drawing.png`,
        /// `photos/`, `movie.mp4`, `frames/`, `clips/`, `MovieData.json`, `Drawings.wbmodel`, and `a.mp4`, `b.mp4`,
        /// `c.mp4` with their phase files `a.json`, `b.json`, `c.json` (sync and trace).
        var work: URL
        /// What install.sh printed on stderr.
        var installMessages: String
        /// The environment of a user who installed: PATH with PREFIX/bin first, a private HOME and cache.
        var environment: [String: String]

        var workbench: String { prefix.appendingPathComponent("bin/workbench").path }
    }

    nonisolated(unsafe) private static var made: Result<Fixture, Error>?
    nonisolated(unsafe) private static var base: URL?

    private func fixture() throws -> Fixture {
        if Self.made == nil { Self.made = Result { try Self.makeFixture() } }
        return try XCTUnwrap(Self.made).get()
    }

    override class func tearDown() {
        if let base = Self.base { try? FileManager.default.removeItem(at: base) }
        super.tearDown()
    }

    private static func makeFixture() throws -> Fixture {
        let root = WorkbenchBinary.repositoryRoot()
        let base = try WorkbenchBinary.temporaryFolder()
        Self.base = base
        let prefix = base.appendingPathComponent("prefix"), work = base.appendingPathComponent("work")
        let home = base.appendingPathComponent("home")
        for folder in [work, home] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        var inherited = ProcessInfo.processInfo.environment
        inherited["WORKBENCH_WEIGHTS"] = nil
        inherited["WORKBENCH_BINARY"] = nil

        // install.sh as a user would run it, from the clone, with PREFIX/bin not yet on the PATH.
        let install = try WorkbenchBinary.runProcess(
            "/bin/bash", [root.appendingPathComponent("scripts/install.sh").path, prefix.path],
            environment: installing(inherited), workingDirectory: base)
        guard install.status == 0 else { throw TestMedia.Failure("scripts/install.sh exited with \(install.status): \(install.standardError)") }

        var environment = inherited
        environment["PATH"] = prefix.appendingPathComponent("bin").path + ":/usr/local/bin:/usr/bin:/bin"
        environment["HOME"] = home.path
        environment["WORKBENCH_CACHE"] = base.appendingPathComponent("cache").path
        environment["SOURCE_DATE_EPOCH"] = "1700000000"

        // The sample dataset's stand-in: two labels named like two of the drawings' (cat photos as Mammal,
        // espresso as Dessert), so the examples' --label and --highlights name real labels.
        let dataset = work.appendingPathComponent("datasets/drawings")
        try TestMedia.tinyDataset(at: dataset, labels: ("Mammal", "Dessert"), environment: inherited)
        let files = FileManager.default
        for split in ["Training Data", "Testing Data"] {
            try files.copyItem(at: dataset.appendingPathComponent(split), to: work.appendingPathComponent(split))
        }
        let sources = root.appendingPathComponent("Tests/ModelsTests/Fixtures")
        try files.copyItem(at: sources.appendingPathComponent("chelsea.jpg"), to: work.appendingPathComponent("photo.jpg"))
        let cats = try TestMedia.pictures(dataset.appendingPathComponent("Training Data/Mammal"))
        let coffees = try TestMedia.pictures(dataset.appendingPathComponent("Training Data/Dessert"))
        try files.copyItem(at: cats[0], to: work.appendingPathComponent("drawing.png"))
        let photos = work.appendingPathComponent("photos")
        try files.createDirectory(at: photos, withIntermediateDirectories: true)
        try files.copyItem(at: sources.appendingPathComponent("chelsea.jpg"), to: photos.appendingPathComponent("cat.jpg"))
        try files.copyItem(at: sources.appendingPathComponent("coffee.jpg"), to: photos.appendingPathComponent("coffee.jpg"))
        let frames = work.appendingPathComponent("frames")
        try files.createDirectory(at: frames, withIntermediateDirectories: true)
        for (index, picture) in (cats.prefix(2) + coffees.prefix(2)).enumerated() {
            try files.copyItem(at: picture, to: frames.appendingPathComponent("\(index + 1).png"))
        }

        // Videos: movie.mp4 is 2 s of a cat then 2 s of espresso (short: a dozen examples label, detect or find
        // phases in it, each decoding and sampling all of it); clips/ holds a cat clip and an espresso clip,
        // 6 s each, so the highlights example finds a video whose top label is Mammal.
        let clips = work.appendingPathComponent("clips")
        try files.createDirectory(at: clips, withIntermediateDirectories: true)
        try TestMedia.video(pictures: [cats[1], coffees[1]], seconds: 2, to: work.appendingPathComponent("movie.mp4"), environment: inherited)
        try TestMedia.video(pictures: [cats[2]], seconds: 6, to: clips.appendingPathComponent("cat.mp4"), environment: inherited)
        try TestMedia.video(pictures: [coffees[2]], seconds: 6, to: clips.appendingPathComponent("espresso.mp4"), environment: inherited)
        // sync and trace: a.mp4 (with sound), b.mp4 and c.mp4, 160 x 120, and a phase file for each.
        for (name, seconds, phases) in [("a", 3, [0.2, 0.9, 1.8, 2.6]), ("b", 4, [0.5, 1.0, 2.5, 3.5]), ("c", 3, [0.0, 1.0, 1.5, 3.0])] {
            var arguments = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=\(seconds)"]
            if name == "a" { arguments += ["-f", "lavfi", "-i", "sine=duration=\(seconds)", "-c:a", "aac"] }
            arguments += ["-c:v", "libx264", "-pix_fmt", "yuv420p", work.appendingPathComponent("\(name).mp4").path]
            try TestMedia.check(WorkbenchBinary.runProcess("/usr/bin/env", arguments, environment: inherited), "making \(name).mp4")
            let labels = ["address", "swing", "finish"]
            let entries = labels.indices.map { #"{"label": "\#(labels[$0])", "start": \#(phases[$0]), "end": \#(phases[$0 + 1])}"# }
            try #"{"video": "\#(name).mp4", "order": ["address", "swing", "finish"], "phases": [\#(entries.joined(separator: ", "))]}"#
                .write(to: work.appendingPathComponent("\(name).json"), atomically: true, encoding: .utf8)
        }
        // The detector's examples: shapes/, a Create ML object-detection folder (red squares and blue discs).
        try SyntheticDetectionDataset.write(to: work.appendingPathComponent("shapes"), count: 12, side: 160, seed: 27)
        try #"[{"id": 3, "title": "The Movie", "markers": {}}, {"id": 4, "title": "Another", "markers": {"2": "Dessert"}}]"#
            .write(to: work.appendingPathComponent("MovieData.json"), atomically: true, encoding: .utf8)

        let fixture = Fixture(root: root, prefix: prefix, work: work, installMessages: install.standardError, environment: environment)
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                fixture.workbench, ["train", "datasets/drawings", "-o", "Drawings.wbmodel"],
                environment: environment, workingDirectory: work), "training Drawings.wbmodel")
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                fixture.workbench, ["train", "shapes", "-o", "Shapes.wbmodel"],
                environment: environment, workingDirectory: work), "training Shapes.wbmodel")
        // The folder as made, before any test writes into it: the documentation's examples start from copies of it.
        try files.copyItem(at: work, to: pristine(base))
        return fixture
    }

    /// Where `makeFixture` keeps the example folder as it made it.
    private static func pristine(_ base: URL) -> URL {
        base.appendingPathComponent("pristine")
    }

    /// `environment` for running install.sh from inside the suite: it installs the binary under test
    /// (`INSTALL_BINARY`) rather than building, because `swift test` holds the build folder a build would wait for.
    /// The build itself is tested on a package of its own (`testInstallRebuildsChangedSourcesAndNeverInstallsAStaleBinary`).
    static func installing(_ environment: [String: String]) throws -> [String: String] {
        var environment = environment
        environment["INSTALL_BINARY"] = try WorkbenchBinary.path()
        return environment
    }

    // MARK: - Install

    func testInstallPlacesTheBinaryAndTheBackboneAndSaysWhenItsBinFolderIsNotOnThePath() throws {
        let fixture = try fixture()
        let files = FileManager.default
        XCTAssertTrue(files.isExecutableFile(atPath: fixture.workbench))
        let installed = fixture.prefix.appendingPathComponent("share/workbench/efficientnet-lite0.safetensors").path
        let original = fixture.root.appendingPathComponent("models/efficientnet-lite0.safetensors").path
        XCTAssertTrue(files.contentsEqual(atPath: installed, andPath: original), "the backbone is installed byte for byte")
        XCTAssertTrue(
            files.contentsEqual(
                atPath: fixture.prefix.appendingPathComponent("share/workbench/ssdlite-mobilenetv2-person.safetensors").path,
                andPath: fixture.root.appendingPathComponent("models/ssdlite-mobilenetv2-person.safetensors").path),
            "the person detector is installed byte for byte")
        XCTAssertTrue(files.contentsEqual(atPath: fixture.workbench, andPath: try WorkbenchBinary.path()), "the binary under test is installed")
        XCTAssertTrue(fixture.installMessages.contains("\(fixture.prefix.path)/bin is not on your PATH"), fixture.installMessages)
        XCTAssertTrue(fixture.installMessages.contains("export PATH=\"\(fixture.prefix.path)/bin:$PATH\""), fixture.installMessages)

        // With PREFIX/bin on the PATH, install says nothing about it.
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = fixture.prefix.appendingPathComponent("bin").path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let again = try WorkbenchBinary.runProcess(
            "/bin/bash", [fixture.root.appendingPathComponent("scripts/install.sh").path, fixture.prefix.path],
            environment: Self.installing(environment))
        XCTAssertEqual(again.status, 0, again.standardError)
        XCTAssertFalse(again.standardError.contains("not on your PATH"), again.standardError)

        // Into ~/.local of a Debian user, whose ~/.profile puts ~/.local/bin on the PATH once it exists: log in again.
        let home = try WorkbenchBinary.temporaryFolder()
        defer { try? files.removeItem(at: home) }
        try #"if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n"#
            .write(to: home.appendingPathComponent(".profile"), atomically: true, encoding: .utf8)
        var user = ProcessInfo.processInfo.environment
        user["HOME"] = home.path
        let local = try WorkbenchBinary.runProcess(
            "/bin/bash",
            [
                fixture.root.appendingPathComponent("scripts/install.sh").path,
                home.appendingPathComponent(".local").path,
            ],
            environment: Self.installing(user))
        XCTAssertEqual(local.status, 0, local.standardError)
        XCTAssertTrue(files.isExecutableFile(atPath: home.appendingPathComponent(".local/bin/workbench").path))
        XCTAssertTrue(
            local.standardError.contains(
                "\(home.path)/.local/bin is not on this shell's PATH yet; your ~/.profile adds it: "
                    + "log in again, or run  . ~/.profile"), local.standardError)
        XCTAssertFalse(local.standardError.contains("export PATH"), local.standardError)
    }

    /// install.sh builds before it copies, so a user who pulled new sources and installs gets them, not the binary
    /// of an earlier build; without swift on the PATH (sudo resets it), or in a `.build` another user owns, it never
    /// builds and installs the existing binary only when no source is newer. Run on a one-file package named like
    /// the project's product, built by the real toolchain, so each install's result shows which source it built.
    func testInstallRebuildsChangedSourcesAndNeverInstallsAStaleBinary() throws {
        let files = FileManager.default
        let clone = try WorkbenchBinary.temporaryFolder()
        defer { try? files.removeItem(at: clone) }
        for folder in ["models", "Sources/workbench"] {
            try files.createDirectory(at: clone.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Self.copyScripts(["install.sh", "setup/build-release.sh"], into: clone)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Stand-in", products: [.executable(name: "workbench", targets: ["workbench"])],
                              targets: [.executableTarget(name: "workbench")])

        """.write(to: clone.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try Data("backbone".utf8).write(to: clone.appendingPathComponent("models/efficientnet-lite0.safetensors"))
        try Data("detector".utf8).write(to: clone.appendingPathComponent("models/ssdlite-mobilenetv2-person.safetensors"))
        let source = clone.appendingPathComponent("Sources/workbench/main.swift")
        func edit(_ version: String) throws {
            try "print(\"\(version)\")\n".write(to: source, atomically: false, encoding: .utf8)
        }
        let prefix = clone.appendingPathComponent("prefix")
        let installed = prefix.appendingPathComponent("bin/workbench").path
        func version() throws -> String {
            try WorkbenchBinary.runProcess(installed, ["--version"], environment: [:]).standardOutput
        }
        func install(_ environment: [String: String]) throws -> WorkbenchBinary.Outcome {
            try WorkbenchBinary.runProcess(
                "/bin/bash", [clone.appendingPathComponent("scripts/install.sh").path, prefix.path],
                environment: environment, workingDirectory: clone)
        }
        var withSwift = ProcessInfo.processInfo.environment
        withSwift["INSTALL_BINARY"] = nil
        // Without swift: only the tools install.sh uses, wherever swift lives.
        var withoutSwift = withSwift
        withoutSwift["PATH"] = try Self.pathOfOnly(
            [
                "cat", "chmod", "cp", "dirname", "find", "grep", "id", "mkdir", "mktemp", "mv",
                "rm", "stat", "tail",
            ], in: clone.appendingPathComponent("tools"))

        try edit("first")
        let first = try install(withSwift)
        XCTAssertEqual(first.status, 0, first.standardError)
        XCTAssertEqual(try version(), "first\n")
        XCTAssertTrue(
            files.contentsEqual(
                atPath: prefix.appendingPathComponent("share/workbench/efficientnet-lite0.safetensors").path,
                andPath: clone.appendingPathComponent("models/efficientnet-lite0.safetensors").path))
        XCTAssertTrue(
            files.contentsEqual(
                atPath: prefix.appendingPathComponent("share/workbench/ssdlite-mobilenetv2-person.safetensors").path,
                andPath: clone.appendingPathComponent("models/ssdlite-mobilenetv2-person.safetensors").path))

        // The sources changed since the last build (a pull): install builds them.
        try edit("second")
        let second = try install(withSwift)
        XCTAssertEqual(second.status, 0, second.standardError)
        XCTAssertEqual(try version(), "second\n", "install.sh copied the binary of the earlier build")
        XCTAssertTrue(second.standardError.contains("install: installed workbench second as \(installed)"), second.standardError)

        // No swift, nothing newer than the build: the existing binary is installed, and the message says why.
        let existing = try install(withoutSwift)
        XCTAssertEqual(existing.status, 0, existing.standardError)
        XCTAssertEqual(
            existing.errorLines.first,
            "install: swift is not on the PATH: installing the existing .build/release/workbench (no source changed since it was built)")

        // No swift and a source newer than the build: refused, the installed binary left as it was.
        try edit("third")
        let stale = try install(withoutSwift)
        XCTAssertEqual(stale.status, 1, stale.standardError)
        XCTAssertEqual(
            stale.errorLines,
            [
                "install: Sources/workbench/main.swift changed since .build/release/workbench was built and swift "
                    + "is not on the PATH: run scripts/setup.sh as the clone's owner first, then this again"
            ])
        XCTAssertEqual(try version(), "second\n")

        // INSTALL_BINARY (relative to where install.sh runs) is installed as it is, without a build or a check.
        var given = withoutSwift
        given["INSTALL_BINARY"] = ".build/release/workbench"
        let asGiven = try install(given)
        XCTAssertEqual(asGiven.status, 0, asGiven.standardError)
        XCTAssertTrue(asGiven.errorLines.first?.hasPrefix("install: installed workbench second as ") == true, asGiven.standardError)
        given["INSTALL_BINARY"] = "Package.swift"
        let notProgram = try install(given)
        XCTAssertEqual(notProgram.status, 1, notProgram.standardError)
        XCTAssertEqual(notProgram.errorLines, ["install: INSTALL_BINARY=\(clone.path)/Package.swift is not an executable file"])

        // The change undone and built (swift build may leave the binary's time as it was): the build's stamp, not
        // the binary's time, tells that no source changed since, so the install without swift goes ahead.
        try edit("second")
        let undone = try install(withSwift)
        XCTAssertEqual(undone.status, 0, undone.standardError)
        let afterUndo = try install(withoutSwift)
        XCTAssertEqual(afterUndo.status, 0, afterUndo.standardError)
        XCTAssertEqual(try version(), "second\n")

        // Root installing another user's clone does not build in it (that would leave root-owned files in .build).
        if getuid() == 0 {
            try edit("third")
            let build = clone.appendingPathComponent(".build").path
            XCTAssertEqual(try WorkbenchBinary.runProcess("/bin/chown", ["nobody", build], environment: [:]).status, 0)
            let foreign = try install(withSwift)
            XCTAssertEqual(foreign.status, 1, foreign.standardError)
            XCTAssertEqual(
                foreign.errorLines,
                [
                    "install: Sources/workbench/main.swift changed since .build/release/workbench was built and "
                        + ".build belongs to nobody, so this user does not build in it: run scripts/setup.sh as the "
                        + "clone's owner first, then this again"
                ])
            XCTAssertEqual(try version(), "second\n")
        }
    }

    /// `scripts/install.sh --help` answers with its usage; it used to take `--help` for a relative PREFIX and install
    /// into `./--help/bin`. Any other option is refused, and nothing is built or written either way.
    func testInstallAnswersHelpAndRefusesOptionsInsteadOfTakingThemForAPrefix() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = WorkbenchBinary.repositoryRoot().appendingPathComponent("scripts/install.sh").path
        let usage =
            "usage: scripts/install.sh [PREFIX]   (default: ~/.local for a normal user, /usr/local for root; "
            + "installs PREFIX/bin/workbench)"
        for option in ["--help", "-h"] {
            let help = try WorkbenchBinary.runProcess(
                "/bin/bash", [script, option], environment: ProcessInfo.processInfo.environment,
                workingDirectory: folder)
            XCTAssertEqual(help.status, 0, help.standardError)
            XCTAssertEqual(help.standardOutput, usage + "\n")
        }
        for arguments in [["--prefix=/opt/wb"], [""], ["one", "two"]] {
            let refused = try WorkbenchBinary.runProcess(
                "/bin/bash", [script] + arguments, environment: ProcessInfo.processInfo.environment,
                workingDirectory: folder)
            XCTAssertEqual(refused.status, 2, "\(arguments): \(refused.standardError)")
            XCTAssertEqual(refused.errorLines.last, "install: " + usage, "\(arguments)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing was installed here")
    }

    func testInstalledBinaryFindsItsBackboneFromAnyFolderWithoutEnvironment() throws {
        let fixture = try fixture()
        // features needs the backbone itself (classify takes it from the model): it must come from PREFIX/share.
        let outcome = try WorkbenchBinary.runProcess(
            fixture.workbench, ["features", "photo.jpg"],
            environment: fixture.environment, workingDirectory: fixture.work)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(outcome.standardOutput.split(separator: "\t").last?.split(separator: " ").count, 1280)

        // Without the installed copy, nothing else is found from here: the error says how to fix it.
        let share = fixture.prefix.appendingPathComponent("share")
        let hidden = fixture.prefix.appendingPathComponent("share-hidden")
        try FileManager.default.moveItem(at: share, to: hidden)
        defer { try? FileManager.default.moveItem(at: hidden, to: share) }
        let missing = try WorkbenchBinary.runProcess(
            fixture.workbench, ["features", "photo.jpg"],
            environment: fixture.environment, workingDirectory: fixture.work)
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(
            missing.errorLines,
            [
                "workbench: backbone weights efficientnet-lite0.safetensors not found: run scripts/install.sh "
                    + "(or scripts/setup.sh in the clone), set WORKBENCH_WEIGHTS, or give the weights file's path"
            ])
    }

    func testInstalledBinaryCarriesItsSwiftRuntimeAndRunsWithoutTheToolchain() throws {
        let fixture = try fixture()
        // Only system libraries are loaded at run time: none of the toolchain's (libswiftCore, Foundation, dispatch).
        let dynamic = try WorkbenchBinary.runProcess("/usr/bin/readelf", ["-d", fixture.workbench], environment: fixture.environment)
        XCTAssertEqual(dynamic.status, 0, dynamic.standardError)
        let needed = dynamic.standardOutput.components(separatedBy: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertFalse(needed.isEmpty, dynamic.standardOutput)
        for line in needed {
            for library in ["libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "_FoundationICU"] {
                XCTAssertFalse(line.contains(library), line)
            }
        }
        // And it runs with a bare environment: no PATH to the toolchain, no LD_LIBRARY_PATH, no HOME.
        let bare = try WorkbenchBinary.runProcess(
            "/usr/bin/env",
            [
                "-i", "PATH=/usr/bin:/bin", fixture.workbench, "classify",
                "Drawings.wbmodel", "photo.jpg",
            ],
            environment: [:], workingDirectory: fixture.work)
        XCTAssertEqual(bare.status, 0, bare.standardError)
        XCTAssertTrue(bare.standardOutput.hasPrefix("photo.jpg\tMammal\t"), bare.standardOutput)
    }

    /// A normal user may write `/dev/null` but not create files in `/dev`: a device given as an output is checked
    /// for being writable itself, not its folder. Run as `nobody` when the tests run as root.
    func testADeviceOutputNeedsNoWritableFolder() throws {
        let fixture = try fixture()
        var environment = fixture.environment
        let cache = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: cache.path)
        environment["WORKBENCH_CACHE"] = cache.path
        environment["HOME"] = cache.path
        let command = [fixture.workbench, "evaluate", "Drawings.wbmodel", "Testing Data", "--html", "/dev/null"]
        let outcome =
            getuid() == 0
            ? try WorkbenchBinary.runProcess(
                "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command,
                environment: environment, workingDirectory: fixture.work)
            : try WorkbenchBinary.runProcess(
                command[0], Array(command.dropFirst()), environment: environment,
                workingDirectory: fixture.work)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(outcome.standardOutput.contains("accuracy"), outcome.standardOutput)
    }

    // MARK: - Every example

    func testEveryHelpExampleRunsAsWrittenAfterInstall() throws {
        let fixture = try fixture()
        let help = try run(fixture, [fixture.workbench, "--help"])
        let commands = try subcommands(help)
        XCTAssertEqual(
            commands,
            ["doctor", "train", "evaluate", "classify", "label", "detect", "phases", "sync", "trace", "export", "inspect", "features", "slurm"])
        // Commands with subcommands of their own (`label merge`, `slurm label`) have examples too.
        var nested: [String] = []
        for command in commands {
            let text = try run(fixture, [fixture.workbench, command, "--help"])
            if text.contains("SUBCOMMANDS:") { nested += try subcommands(text).map { "\(command) \($0)" } }
        }
        XCTAssertEqual(nested, ["label merge", "slurm label", "slurm features"])
        var examples: [String] = []
        for command in [nil] + (commands + nested).map(Optional.some) {
            let text = command == nil ? help : try run(fixture, [fixture.workbench] + command!.split(separator: " ").map(String.init) + ["--help"])
            let found = try self.examples(in: text, of: command ?? "workbench")
            XCTAssertFalse(found.isEmpty, "\(command ?? "workbench") --help has no examples")
            if let command { XCTAssertTrue(found.allSatisfy { $0.hasPrefix("workbench \(command) ") }, "\(found)") }
            examples += found
        }
        XCTAssertGreaterThanOrEqual(examples.count, 25)
        // The root help and a parent's (`label`, `slurm`) repeat some of their commands' examples: each line runs once.
        var seen = Set<String>()
        for example in examples where seen.insert(example).inserted {
            let outcome = try WorkbenchBinary.runProcess(
                "/bin/sh", ["-c", example], environment: fixture.environment,
                workingDirectory: fixture.work)
            XCTAssertEqual(outcome.status, 0, "\(example)\n\(outcome.standardError)")
        }
        // What the examples promise to write is there.
        for written in [
            "Drawings.wbmodel", "Shapes.wbmodel", "Shapes.onnx", "Shapes.mlmodel", "report.json", "features.jsonl", "predictions.jsonl",
            "Drawings.onnx",
            "Drawings.mlmodel", "reel.mp4", "p.json",
            "side.mp4", "grid.mp4", "flight.mp4",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.work.appendingPathComponent(written).path), written)
        }
        let movieData = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: fixture.work.appendingPathComponent("MovieData.json"))) as? [[String: Any]])
        let movie = try XCTUnwrap(movieData.first { "\($0["id"] ?? "")" == "3" })
        XCTAssertEqual((movie["markers"] as? [String: String])?.count, 4, "one marker a second of the 4-second movie")
    }

    // MARK: - The documentation's examples and links

    /// Every ```sh block of README.md and docs/*.md (not docs/evidence/), run as written with /bin/sh -e in a copy of
    /// the example folder as it was made (one copy per page, its blocks in order), with the installed binary first on the PATH and
    /// the clone's `scripts/` and `.venv/` linked in for the blocks that call them. A block marked
    /// `<!-- not run: REASON -->` on the line right before its fence is skipped, and the reason is required.
    func testEveryDocumentedExampleRunsAsWritten() throws {
        let fixture = try fixture()
        let files = FileManager.default
        let pages = try Self.documentationPages(root: fixture.root, includeEvidence: false)
        var ran = 0, skipped: [String] = []
        for page in pages {
            let blocks = try Self.shellBlocks(in: page, root: fixture.root)
            let runnable = blocks.filter { $0.notRun == nil }
            skipped += blocks.compactMap { block in block.notRun.map { "\(block.name): \($0)" } }
            guard !runnable.isEmpty else { continue }
            let copy = try XCTUnwrap(Self.base).appendingPathComponent("examples-\(page.deletingPathExtension().lastPathComponent)")
            try? files.removeItem(at: copy)
            try files.copyItem(at: Self.pristine(try XCTUnwrap(Self.base)), to: copy)
            defer { try? files.removeItem(at: copy) }
            for link in ["scripts", ".venv"] {
                try files.createSymbolicLink(at: copy.appendingPathComponent(link), withDestinationURL: fixture.root.appendingPathComponent(link))
            }
            for block in runnable {
                let outcome = try WorkbenchBinary.runProcess(
                    "/bin/sh", ["-e", "-c", block.text], environment: fixture.environment,
                    workingDirectory: copy)
                XCTAssertEqual(outcome.status, 0, "\(block.name) failed:\n\(block.text)\n\(outcome.standardError)")
                ran += 1
            }
        }
        print("documented examples: \(ran) blocks ran, \(skipped.count) not run:\n" + skipped.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(ran, 25, "fewer sh blocks ran than the docs hold")
        XCTAssertLessThanOrEqual(skipped.count, 12, "more blocks are marked not run than the docs should need:\n\(skipped.joined(separator: "\n"))")
    }

    /// Every relative link of README.md and docs/**/*.md names a file that exists, and an anchor into a Markdown
    /// file names one of its headings (GitHub's slugs).
    func testEveryRelativeLinkInTheDocumentationResolves() throws {
        let root = WorkbenchBinary.repositoryRoot()
        var checked = 0
        for page in try Self.documentationPages(root: root, includeEvidence: true) {
            let name = Self.relativeName(page, root: root)
            for target in try Self.links(in: String(contentsOf: page, encoding: .utf8)) {
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page : page.deletingLastPathComponent().appendingPathComponent(parts[0]).standardizedFileURL
                XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), "\(name): link \(target) names no file")
                if parts.count == 2, file.pathExtension == "md", FileManager.default.fileExists(atPath: file.path) {
                    let anchors = Self.headingAnchors(try String(contentsOf: file, encoding: .utf8))
                    XCTAssertTrue(anchors.contains(parts[1]), "\(name): link \(target) names no heading of \(file.lastPathComponent)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 50)
    }

    /// README.md is the front door: at most 150 lines, and its table links every docs page and names every command of
    /// `workbench --help` beside the page that documents it (which names the command too).
    func testTheReadmeLinksAPageForEveryCommandAndEveryPage() throws {
        let fixture = try fixture()
        let readme = try String(contentsOf: fixture.root.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertLessThanOrEqual(readme.components(separatedBy: "\n").count - 1, 150, "README.md is over 150 lines")
        let rows = readme.components(separatedBy: "\n").filter { $0.hasPrefix("| [docs/") }
        let linked = Set(rows.compactMap { row in try? Self.links(in: row).first })
        for page in try Self.documentationPages(root: fixture.root, includeEvidence: false) where page.lastPathComponent != "README.md" {
            XCTAssertTrue(linked.contains("docs/\(page.lastPathComponent)"), "README's table does not link docs/\(page.lastPathComponent)")
        }
        XCTAssertTrue(linked.contains("docs/evidence/README.md"), "README's table does not link the evidence pages")
        for command in try subcommands(try run(fixture, [fixture.workbench, "--help"])) {
            let row = rows.first { $0.contains("`workbench \(command)`") || $0.contains("`workbench \(command) ") }
            XCTAssertNotNil(row, "README's table names no page for `workbench \(command)`")
            guard let row, let target = try Self.links(in: row).first else { continue }
            let page = try String(contentsOf: fixture.root.appendingPathComponent(target), encoding: .utf8)
            XCTAssertTrue(page.contains("workbench \(command)"), "\(target) does not mention `workbench \(command)`")
        }
    }

    /// Every command's `--help` (the nested ones too) names the docs page that documents it on a `Docs:` line (the root
    /// help names README.md), and each page it names exists.
    func testEveryHelpNamesItsDocsPage() throws {
        let fixture = try fixture()
        var commands = try subcommands(try run(fixture, [fixture.workbench, "--help"])).map { [$0] }
        commands += [["label", "merge"], ["slurm", "label"], ["slurm", "features"]]
        let page = try NSRegularExpression(pattern: #"docs/[a-z-]+\.md|README\.md"#)
        for command in [[String]()] + commands {
            let help = try run(fixture, [fixture.workbench] + command + ["--help"])
            let line = help.components(separatedBy: "\n").first { $0.hasPrefix("Docs: ") }
            let name = (["workbench"] + command).joined(separator: " ")
            XCTAssertNotNil(line, "\(name) --help has no Docs: line")
            guard let line else { continue }
            let named = page.matches(in: line, range: NSRange(line.startIndex..., in: line)).compactMap {
                Range($0.range, in: line).map { String(line[$0]) }
            }
            XCTAssertFalse(named.isEmpty, "\(name) --help: \(line)")
            for path in named {
                XCTAssertTrue(
                    FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(path).path),
                    "\(name) --help names \(path), which is not there")
            }
        }
    }

    /// README.md, then docs/*.md in name order (and with `includeEvidence`, docs/evidence/*.md).
    static func documentationPages(root: URL, includeEvidence: Bool) throws -> [URL] {
        let docs = root.appendingPathComponent("docs")
        func markdown(_ folder: URL) throws -> [URL] {
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        return [root.appendingPathComponent("README.md")] + (try markdown(docs))
            + (includeEvidence ? try markdown(docs.appendingPathComponent("evidence")) : [])
    }

    static func relativeName(_ page: URL, root: URL) -> String {
        String(page.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
    }

    /// A ```sh block: where it is, its text, and the reason of a `<!-- not run: … -->` marker right before it.
    struct ShellBlock {
        var name: String
        var text: String
        var notRun: String?
    }

    /// The ```sh blocks of a page. A `not run` marker that is not right before a ```sh fence, or gives no reason,
    /// fails the test; so does a block that is never closed.
    static func shellBlocks(in page: URL, root: URL) throws -> [ShellBlock] {
        let name = relativeName(page, root: root)
        let lines = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [ShellBlock] = []
        var index = 0, inOtherBlock = false
        while index < lines.count {
            let line = lines[index]
            if inOtherBlock {
                if line.trimmingCharacters(in: .whitespaces) == "```" { inOtherBlock = false }
                index += 1
                continue
            }
            if line.hasPrefix("<!-- not run") {
                let next = index + 1 < lines.count ? lines[index + 1] : ""
                XCTAssertEqual(next, "```sh", "\(name):\(index + 1): a not-run marker must be right before a ```sh fence")
            }
            if line.hasPrefix("```") {
                let language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                if language == "sh" {
                    let start = index
                    var body: [String] = []
                    index += 1
                    while index < lines.count && lines[index] != "```" { body.append(lines[index]); index += 1 }
                    XCTAssertLessThan(index, lines.count, "\(name):\(start + 1): a ```sh block is never closed")
                    var reason: String?
                    if start > 0, lines[start - 1].hasPrefix("<!-- not run") {
                        let marker = lines[start - 1]
                        let text =
                            marker.hasPrefix("<!-- not run:") && marker.hasSuffix("-->")
                            ? marker.dropFirst("<!-- not run:".count).dropLast(3).trimmingCharacters(in: .whitespaces) : ""
                        XCTAssertFalse(text.isEmpty, "\(name):\(start): a not-run marker must say why: <!-- not run: REASON -->")
                        reason = text
                    }
                    blocks.append(
                        ShellBlock(
                            name: "\(name) block \(blocks.count + 1) (line \(start + 1))",
                            text: body.joined(separator: "\n") + "\n", notRun: reason))
                } else {
                    inOtherBlock = true
                }
            }
            index += 1
        }
        return blocks
    }

    /// The targets of a page's Markdown links, outside code blocks and code spans.
    static func links(in text: String) throws -> [String] {
        var prose: [String] = [], inCode = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if !inCode { prose.append(line) }
        }
        let withoutSpans = try NSRegularExpression(pattern: "`[^`]*`")
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var targets: [String] = []
        for line in prose {
            let plain = withoutSpans.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "``")
            for match in link.matches(in: plain, range: NSRange(plain.startIndex..., in: plain)) {
                if let range = Range(match.range(at: 1), in: plain) { targets.append(String(plain[range])) }
            }
        }
        return targets
    }

    /// GitHub's anchors of a page's headings: lower-cased, punctuation but `-` and `_` dropped, spaces as `-`.
    static func headingAnchors(_ text: String) -> Set<String> {
        var anchors = Set<String>(), inCode = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let slug = String(
                title.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " " }
                    .map(Character.init)
            ).replacingOccurrences(of: " ", with: "-")
            anchors.insert(slug)
        }
        return anchors
    }

    /// `SUBCOMMANDS:` of the root help: the first word of each line indented by two spaces.
    private func subcommands(_ help: String) throws -> [String] {
        let lines = help.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex(of: "SUBCOMMANDS:"), help)
        return lines[(start + 1)...].prefix { !$0.isEmpty }
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The lines of a help's `Examples:` block. Each must be one whole `workbench …` line: a wrapped or otherwise
    /// broken line fails here rather than run as half a command.
    private func examples(in help: String, of command: String) throws -> [String] {
        let lines = help.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex(of: "Examples:"), "\(command) --help has no Examples: block")
        let block = lines[(start + 1)...].prefix { !$0.isEmpty }
        for line in block where !line.hasPrefix("  workbench ") {
            XCTFail("\(command) --help: example line \"\(line)\" is not a whole `workbench …` command (wrapped?)")
        }
        return block.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    // MARK: - Small promises

    func testBareWorkbenchPrintsHelpAndFails() throws {
        let fixture = try fixture()
        let outcome = try WorkbenchBinary.runProcess(fixture.workbench, [], environment: fixture.environment, workingDirectory: fixture.work)
        XCTAssertEqual(outcome.status, 64, "a usage error, like any other missing argument")
        XCTAssertEqual(outcome.standardOutput, "")
        XCTAssertTrue(outcome.standardError.contains("USAGE: workbench <subcommand>"), outcome.standardError)
        XCTAssertTrue(outcome.standardError.contains("SUBCOMMANDS:"), outcome.standardError)
        let help = try run(fixture, [fixture.workbench, "--help"])
        XCTAssertEqual(outcome.standardError.trimmingCharacters(in: .newlines), help.trimmingCharacters(in: .newlines))
    }

    func testDefaultModelNameIsTheDatasetFolderWithItsFirstLetterUpperCased() throws {
        let fixture = try fixture()
        let folder = fixture.work.appendingPathComponent("default-name")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let dataset = fixture.work.appendingPathComponent("datasets/drawings").path
        let outcome = try WorkbenchBinary.runProcess(
            fixture.workbench, ["train", dataset], environment: fixture.environment,
            workingDirectory: folder)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        // The HTML report goes beside the model, named after it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["Drawings.html", "Drawings.wbmodel"])
        XCTAssertTrue(
            outcome.standardOutput.hasSuffix("report written to Drawings.html\nmodel written to Drawings.wbmodel\n"),
            outcome.standardOutput)
    }

    func testLabelAndTopCombineInTextAndJSON() throws {
        let fixture = try fixture()
        let json = try run(fixture, [fixture.workbench, "classify", "Drawings.wbmodel", "photo.jpg", "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let probabilities = try XCTUnwrap(object["probabilities"] as? [String: Double])
        XCTAssertEqual(object["label"] as? String, "Mammal", "the photo is the cat")
        // The text prints the Float the JSON spells in shortest form: back to that Float, then four decimals.
        func rounded(_ probability: Double) -> String { String(format: "%.4f", Double(Float(probability))) }

        // --label alone: the asked label and its confidence only.
        let alone = try run(fixture, [fixture.workbench, "classify", "Drawings.wbmodel", "photo.jpg", "--label", "Dessert"])
        XCTAssertEqual(alone, "photo.jpg\tDessert\t\(rounded(probabilities["Dessert"]!))\n")

        // --label with --top 2: the asked label first, then the two best, best first.
        let text = try run(fixture, [fixture.workbench, "classify", "Drawings.wbmodel", "photo.jpg", "--label", "Dessert", "--top", "2"])
        let ranked = probabilities.sorted { $0.value > $1.value }
        let expected = ["photo.jpg", "Dessert", rounded(probabilities["Dessert"]!)] + ranked.flatMap { [$0.key, rounded($0.value)] }
        XCTAssertEqual(text, expected.joined(separator: "\t") + "\n")

        let combined = try run(
            fixture, [fixture.workbench, "classify", "Drawings.wbmodel", "photo.jpg", "--label", "Dessert", "--top", "2", "--json"])
        let line = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(combined.utf8)) as? [String: Any])
        XCTAssertEqual(line["label"] as? String, "Dessert")
        XCTAssertEqual(try XCTUnwrap(line["confidence"] as? Double), probabilities["Dessert"]!, accuracy: 1e-6)
        let top = try XCTUnwrap(line["top"] as? [[String: Any]])
        XCTAssertEqual(top.map { $0["label"] as? String }, ranked.map { $0.key })
        XCTAssertEqual(top.compactMap { $0["probability"] as? Double }, ranked.map { $0.value })
    }

    /// Without root, a missing Debian package is one `sudo apt-get install` line and a failure, before anything
    /// else happens (no sudo call, no .venv). Run on a copy of setup.sh as `nobody` when the tests run as root.
    func testSetupWithoutRootPrintsTheSudoLineForAMissingPackageAndStops() throws {
        let copy = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: copy) }
        try Self.copyScripts(["setup.sh"], into: copy)
        let scripts = copy.appendingPathComponent("scripts")
        for folder in [copy, scripts] {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SETUP_DEBIAN_PACKAGES"] = "ffmpeg workbench-test-missing-package python3 workbench-test-missing-too"
        let command = [scripts.appendingPathComponent("setup.sh").path]
        let outcome =
            getuid() == 0
            ? try WorkbenchBinary.runProcess(
                "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/bash"] + command,
                environment: environment)
            : try WorkbenchBinary.runProcess("/bin/bash", command, environment: environment)
        XCTAssertEqual(outcome.status, 1, outcome.standardError)
        XCTAssertEqual(outcome.standardOutput, "", "set-up prints everything on stderr")
        XCTAssertEqual(
            outcome.errorLines,
            [
                "setup: missing Debian packages: workbench-test-missing-package workbench-test-missing-too. Install them as root, then run this again:",
                "    sudo apt-get install -y workbench-test-missing-package workbench-test-missing-too",
            ])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: copy.path), ["scripts"], "set-up stopped before making anything")
    }

    /// A user who skipped the toolchain step hears so first, before set-up spends minutes on the Python tools and
    /// the backbone (it used to say so only after them). Run on a copy of setup.sh whose Debian packages are present,
    /// with a PATH that holds only the tools set-up calls before the check.
    func testSetupWithoutSwiftSaysSoBeforeDownloadingAnything() throws {
        let files = FileManager.default
        let copy = try WorkbenchBinary.temporaryFolder()
        defer { try? files.removeItem(at: copy) }
        try Self.copyScripts(["setup.sh"], into: copy)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = try Self.pathOfOnly(["dirname", "dpkg-query", "grep", "id"], in: copy.appendingPathComponent("tools"))
        environment["SETUP_DEBIAN_PACKAGES"] = "python3"
        let outcome = try WorkbenchBinary.runProcess(
            "/bin/bash", [copy.appendingPathComponent("scripts/setup.sh").path],
            environment: environment, workingDirectory: copy)
        XCTAssertEqual(outcome.status, 1, outcome.standardError)
        XCTAssertEqual(outcome.standardOutput, "")
        XCTAssertEqual(
            outcome.errorLines,
            [
                "setup: swift not found: install Swift 6.x for Linux from swift.org (6.3 for Debian 12), "
                    + "unpack it and put its usr/bin on PATH"
            ])
        XCTAssertEqual(
            try files.contentsOfDirectory(atPath: copy.path).sorted(), ["scripts", "tools"],
            "set-up stopped before making .venv/ or models/")
    }

    // MARK: - Helpers

    /// Copies of the project's `scripts/PATH` files (`install.sh`, `setup/build-release.sh`) at the same paths in
    /// `folder/scripts/`, to run a script on a stand-in clone.
    static func copyScripts(_ paths: [String], into folder: URL) throws {
        let scripts = folder.appendingPathComponent("scripts")
        for path in paths {
            let copy = scripts.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: WorkbenchBinary.repositoryRoot().appendingPathComponent("scripts/\(path)"),
                to: copy)
        }
    }

    /// `folder`, made to hold links to the named system tools and nothing else: a PATH without swift (or any other
    /// tool a script must do without), wherever swift is installed.
    static func pathOfOnly(_ tools: [String], in folder: URL) throws -> String {
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        for tool in tools {
            let path = try XCTUnwrap(["/usr/bin/\(tool)", "/bin/\(tool)"].first { files.isExecutableFile(atPath: $0) }, tool)
            try files.createSymbolicLink(atPath: folder.appendingPathComponent(tool).path, withDestinationPath: path)
        }
        return folder.path
    }

    /// Standard output of a run in the example folder, failing on a non-zero exit.
    private func run(_ fixture: Fixture, _ command: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let outcome = try WorkbenchBinary.runProcess(
            command[0], Array(command.dropFirst()), environment: fixture.environment,
            workingDirectory: fixture.work)
        XCTAssertEqual(outcome.status, 0, "\(command.joined(separator: " ")): \(outcome.standardError)", file: file, line: line)
        return outcome.standardOutput
    }
}
