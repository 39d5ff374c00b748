import Foundation
@testable import Workbench
import XCTest
import _TestSupport

/// A detector made of plain values: it finds nothing. The outputs are refused before it would run.
private struct SeesNothing: ObjectDetecting {
    let labels = ["person"]
    func detect(in image: RGBImage, minimumConfidence: Float) -> [DetectedObject] { [] }
}

/// Issue 45's property, in-process: for every workflow that writes and each of its outputs, pointed at each file
/// the workflow reads (the dataset's pictures and annotations as listed, the testing and validation folders', a
/// picture named with `../`, negatives, the model, the backbone and detector weights, phase files, frames) and at
/// each of its other outputs, also through a symbolic and a hard link: refused before any work in one line, and
/// every file of the scratch folder byte-identical afterwards, with nothing added. Decoys only: every file named is
/// in the scratch folder, and the check comes before any of them is read as what it claims to be.
final class OutputConflictPropertyTests: XCTestCase {
    private var folder: URL!

    /// A classifier trained once on pictures made here, for the workflows that load their model before the check.
    nonisolated(unsafe) private static var trained: Result<String, Error>?

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("output-property-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    override class func tearDown() {
        if case .success(let model) = trained { try? FileManager.default.removeItem(atPath: (model as NSString).deletingLastPathComponent) }
        super.tearDown()
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A small PNG of one colour at `name` (folders made as needed).
    @discardableResult
    private func picture(_ name: String, shade: UInt8 = 128) throws -> String {
        let file = path(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let pixels = (0..<(16 * 16 * 3)).map { UInt8(truncatingIfNeeded: Int(shade) + $0 % 7) }
        try Data(PNGEncoder.encode(RGBImage(width: 16, height: 16, pixels: pixels), name: name)).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// A file of bytes that are no model, video or weights: what the check must protect without reading.
    @discardableResult
    private func decoy(_ name: String) throws -> String {
        let file = path(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("decoy \(name)\n".utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The shared classifier (labels `a` and `b`), copied into the scratch folder as `m.wbmodel`.
    private func model() throws -> String {
        if Self.trained == nil {
            Self.trained = Result {
                let root = FileManager.default.temporaryDirectory.appendingPathComponent("output-property-model-\(UUID().uuidString)")
                for label in ["a", "b"] {
                    for index in 0..<6 {
                        let file = root.appendingPathComponent("data/\(label)/\(index).png")
                        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                        var pixels = [UInt8](repeating: 0, count: 32 * 32 * 3)
                        for offset in pixels.indices { pixels[offset] = UInt8((label == "a" ? 40 : 200) + (offset * 7 + index * 13) % 30) }
                        try Data(PNGEncoder.encode(RGBImage(width: 32, height: 32, pixels: pixels), name: file.path)).write(to: file)
                    }
                }
                var request = TrainingWorkflowRequest(datasetPath: root.appendingPathComponent("data").path)
                request.training.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
                request.output = TrainingOutput(model: root.appendingPathComponent("m.wbmodel").path, page: .none)
                request.features = FeatureSettings(threads: 2, usesCache: false)
                return try TrainingWorkflow.run(request).modelPath
            }
        }
        let copy = path("m.wbmodel")
        try FileManager.default.copyItem(atPath: try XCTUnwrap(Self.trained).get(), toPath: copy)
        return copy
    }

    // MARK: The property

    /// Every entry below the scratch folder: a file's bytes, a link's target, a folder's name.
    private func snapshot() -> [String: Data] {
        var entries: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let name = enumerator?.nextObject() as? String {
            let full = path(name)
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: full) {
                entries[name] = Data("link to \(target)".utf8)
            } else {
                var isFolder: ObjCBool = false
                FileManager.default.fileExists(atPath: full, isDirectory: &isFolder)
                entries[name] = isFolder.boolValue ? Data("folder".utf8) : FileManager.default.contents(atPath: full) ?? Data()
            }
        }
        return entries
    }

    /// Asserts that `body` is refused in one line, as an output over an input or over another output (or, for a
    /// video output named like no video, by its ending), and that the scratch folder is exactly as before.
    private func assertRefused(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        let before = snapshot()
        do {
            try body()
            XCTFail("\(what): not refused", file: file, line: line)
        } catch {
            let text = "\(error)"
            XCTAssertFalse(text.contains("\n"), "\(what): one line: \(text)", file: file, line: line)
            let refusals = ["an output must not replace an input", "each output needs a file of its own", "cannot write a video ending in"]
            XCTAssertTrue(refusals.contains { text.contains($0) }, "\(what): refused as an output clash: \(text)", file: file, line: line)
        }
        XCTAssertEqual(snapshot(), before, "\(what): nothing changed, nothing added", file: file, line: line)
    }

    /// One output of a request: its name and how to point it at a path.
    private struct Output<Request> {
        let name: String
        let set: (inout Request, String) -> Void
    }

    /// The property for one workflow: with each output at a path of its own (`out/<command>-<name>`), each output
    /// pointed at each of `reads` (and at links to the first of them) and at each other output's path is refused
    /// before any work. Returns `base` with those paths, for further cases.
    @discardableResult
    private func assertEveryClashRefused<Request>(
        _ command: String, base given: Request, reads: [String], outputs: [Output<Request>],
        file: StaticString = #filePath, line: UInt = #line, run: (Request) throws -> Void
    ) throws -> Request {
        XCTAssertFalse(reads.isEmpty)
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        var base = given
        let paths = Dictionary(uniqueKeysWithValues: outputs.map { ($0.name, path("out/\(command)-\($0.name)")) })
        for output in outputs { output.set(&base, paths[output.name]!) }
        let symbolic = path("links/\(command)-symbolic"), hard = path("links/\(command)-hard")
        try FileManager.default.createDirectory(atPath: path("links"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: reads[0])
        let fileRead = reads.first { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
        }
        if let fileRead { try FileManager.default.linkItem(atPath: fileRead, toPath: hard) }
        for output in outputs {
            let targets = reads + [symbolic] + (fileRead == nil ? [] : [hard]) + outputs.filter { $0.name != output.name }.map { paths[$0.name]! }
            for target in targets {
                var request = base
                output.set(&request, target)
                assertRefused("\(command) \(output.name) \(target)", file: file, line: line) { try run(request) }
            }
        }
        try FileManager.default.removeItem(atPath: symbolic)
        if fileRead != nil { try FileManager.default.removeItem(atPath: hard) }
        return base
    }

    // MARK: Training

    func testClassifierTrainingRefusesEveryPictureTheBackboneAndItsOtherOutputs() throws {
        let dataset = path("c"), testing = path("t"), validation = path("v")
        let pictures = [
            try picture("c/address/0.png"), try picture("c/address/1.png", shade: 30), try picture("c/phone/0.png", shade: 200),
            try picture("c/phone/1.png", shade: 220), try picture("t/address/0.png"), try picture("t/phone/0.png"),
            try picture("v/address/0.png"), try picture("v/phone/0.png"),
        ]
        let backbone = try decoy("backbone.safetensors")
        var base = TrainingWorkflowRequest(datasetPath: dataset)
        base.training.testingPath = testing
        base.training.validationPath = validation
        base.backbone = .pretrained(path: backbone)
        base = try assertEveryClashRefused(
            "train", base: base, reads: pictures + [dataset, testing, validation, backbone],
            outputs: [
                Output(name: "model") { $0.output.model = $1 },
                Output(name: "report") { $0.output.report = $1 },
                Output(name: "page") { $0.output.page = .at($1) },
            ]
        ) { _ = try TrainingWorkflow.run($0) }
        // An output inside an input folder that replaces nothing read is no clash (a model beside the pictures, its
        // page over a file the scan passes over): the run gets past the check and stops at the decoy backbone.
        try decoy("c/address/1.html")
        var beside = base
        beside.output = TrainingOutput(model: path("c/address/1.wbmodel"))
        XCTAssertThrowsError(try TrainingWorkflow.run(beside)) { XCTAssertTrue("\($0)".hasPrefix("\(backbone): "), "\($0)") }
        // The control: with no clash the run gets past the check and stops at the decoy backbone.
        XCTAssertThrowsError(try TrainingWorkflow.run(base)) { XCTAssertTrue("\($0)".hasPrefix("\(backbone): "), "\($0)") }
    }

    func testDetectorTrainingRefusesTheAnnotationsEveryPictureNegativesAndOutsideNames() throws {
        let dataset = folder.appendingPathComponent("d"), testing = folder.appendingPathComponent("dt")
        let boxes = try SyntheticDetectionDataset.write(to: dataset, count: 3, side: 48, seed: 1)
        try SyntheticDetectionDataset.write(to: testing, count: 2, side: 48, seed: 2)
        // A picture the annotations name with "../", and a negative no entry names.
        try FileManager.default.copyItem(atPath: dataset.appendingPathComponent("picture-000.png").path, toPath: path("outside.png"))
        let annotations = dataset.appendingPathComponent("annotations.json").path
        var entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: annotations))) as? [[String: Any]])
        var outside = entries[0]
        outside["image"] = "../outside.png"
        entries.append(outside)
        try JSONSerialization.data(withJSONObject: entries).write(to: URL(fileURLWithPath: annotations))
        let negative = try picture("d/negatives/empty.png", shade: 90)
        let backbone = try decoy("backbone.safetensors")
        var base = DetectorTrainingWorkflowRequest(datasetPath: dataset.path, testingPath: testing.path)
        base.backbone = .pretrained(path: backbone)
        let sets = try DetectorTrainingWorkflow.annotationSets(base)
        XCTAssertEqual(sets.training.negatives.map(\.path).map { URL(fileURLWithPath: $0).lastPathComponent }, ["empty.png"])
        let reads =
            [annotations] + boxes.keys.sorted().map { dataset.appendingPathComponent($0).path }
            + [
                path("outside.png"), negative, testing.appendingPathComponent("annotations.json").path,
                testing.appendingPathComponent("picture-001.png").path, backbone, dataset.path,
            ]
        try assertEveryClashRefused(
            "train-detector", base: base, reads: reads,
            outputs: [
                Output(name: "model") { $0.modelPath = $1 },
                Output(name: "report") { $0.reportPath = $1 },
                Output(name: "page") { $0.page = .at($1) },
            ]
        ) { _ = try DetectorTrainingWorkflow.run($0) }
    }

    // MARK: Detection

    func testDetectOnPicturesRefusesCopiesOverThePicturesAndTheWeights() throws {
        let pictures = [try picture("p/one.png"), try picture("p/two.png", shade: 10)]
        let weights = try decoy("weights/m.wbmodel")
        var base = DetectionRequest(inputs: [path("p")])
        base.detector = .model(path: weights)
        base.annotate = path("boxes")
        // A folder whose "one.png" is a link to the model: the copy would be written through it.
        try FileManager.default.createDirectory(atPath: path("linked"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("linked/one.png"), withDestinationPath: weights)
        for (what, folder) in [("the pictures' folder", path("p")), ("a link to the weights", path("linked"))] {
            var request = base
            request.annotate = folder
            assertRefused("detect --annotate \(what)") { _ = try DetectionWorkflow.run(request, detector: SeesNothing()) { _ in } }
        }
        XCTAssertEqual(pictures.count, 2)
    }

    func testDetectOnVideosRefusesTheVideoTheWeightsEachOtherAndTheClips() throws {
        let video = path("v.mp4")
        let made = try WorkbenchBinary.runProcess(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=black:s=64x48:r=5:d=1", "-pix_fmt", "yuv420p", video],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(made.status, 0, made.standardError)
        let weights = try decoy("m.wbmodel")
        var base = DetectionRequest(inputs: [video])
        base.detector = .model(path: weights)
        base.clips = path("clips")
        func run(_ request: DetectionRequest) throws { _ = try DetectionWorkflow.run(request, detector: SeesNothing()) { _ in } }
        base = try assertEveryClashRefused(
            "detect", base: base, reads: [video, weights],
            outputs: [
                Output(name: "annotate") { $0.annotate = $1 },
                Output(name: "vtt") { $0.vtt = $1 },
                Output(name: "html") { $0.html = $1 },
            ], run: run)
        // Clips are named v-1.mp4, v-2.mp4 … in their folder: no other output and no input may have such a name
        // there, nor be what such a name there links to.
        for (name, set) in [
            ("annotate", { (request: inout DetectionRequest, path: String) in request.annotate = path }),
            ("vtt", { (request: inout DetectionRequest, path: String) in request.vtt = path }),
            ("html", { (request: inout DetectionRequest, path: String) in request.html = path }),
        ] {
            var request = base
            set(&request, path("clips/v-1.mp4"))
            assertRefused("detect \(name) over a clip") { try run(request) }
        }
        var intoInputs = base
        intoInputs.clips = path("weights")
        let clipNamedWeights = try decoy("weights/v-3.mp4")
        intoInputs.detector = .model(path: clipNamedWeights)
        assertRefused("detect clips over the weights") { try run(intoInputs) }
        try FileManager.default.createDirectory(atPath: path("clips"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("clips/v-12.mp4"), withDestinationPath: weights)
        assertRefused("detect clips through a link to the weights") { try run(base) }
        try FileManager.default.removeItem(atPath: path("clips/v-12.mp4"))
        // Names no clip takes are no clash: the run gets past the check (and writes into the clips folder).
        var control = base
        control.annotate = path("clips/v.mp4")
        XCTAssertNoThrow(try run(control))
    }

    // MARK: Labeling, phases, sync, trace

    func testLabelRefusesTheMovieTheFramesTheModelAndEachOther() throws {
        let model = try model()
        let classifier = try Classifier.load(path: model)
        let movie = try decoy("movie.mp4")
        var base = LabelingRequest(movies: [movie], model: .loaded(classifier))
        base.highlights = HighlightRequest(label: "a", output: path("out/h.mp4"))
        let outputs: [Output<LabelingRequest>] = [
            Output(name: "movie-data") { $0.movieData = MovieDataEntry(path: $1) },
            Output(name: "html") { $0.review.html = $1 },
            Output(name: "vtt") { $0.review.vtt = $1 },
            Output(name: "annotate") { $0.review.annotate = $1 },
            Output(name: "highlights") { $0.highlights?.output = $1 },
        ]
        try assertEveryClashRefused("label", base: base, reads: [movie, model], outputs: outputs) { _ = try LabelingWorkflow.run($0) }
        // A frames folder is its frames (a file per movie put into the folder itself is no clash: frames/frames.vtt).
        let frame = try picture("frames/1.png")
        var frames = base
        frames.movies = [path("frames")]
        try assertEveryClashRefused("label-frames", base: frames, reads: [frame], outputs: outputs) {
            _ = try LabelingWorkflow.run($0)
        }
        // Sharded: the results folder's manifest and result files are its outputs.
        let shard = try Shard(index: 0, count: 1)
        for (what, movies, results) in [
            ("a frames folder", [path("frames")], path("frames")),
            ("a movie named like the manifest", [try decoy("r/manifest.json")], path("r")),
            ("the model", [movie], model),
        ] {
            let request = ShardedLabeling.ShardRequest(movies: movies, shard: shard, results: results, model: .loaded(classifier))
            assertRefused("label --results over \(what)") { _ = try ShardedLabeling.run(request) }
        }
        try decoy("results/manifest.json")
        assertRefused("label merge over the manifest") {
            _ = try MovieDataMergeWorkflow.run(MovieDataMergeRequest(results: path("results"), movieData: path("results/manifest.json")))
        }
    }

    func testPhasesSyncAndTraceRefuseTheirVideosPhaseFilesModelAndEachOther() throws {
        let model = try model()
        let video = try decoy("swing.mp4")
        var phases = PhasesWorkflow.Request(video: video, order: ["a", "b"])
        phases.model = model
        try assertEveryClashRefused(
            "phases", base: phases, reads: [video, model],
            outputs: [
                Output(name: "output") { $0.output = $1 },
                Output(name: "vtt") { $0.subtitles = $1 },
                Output(name: "html") { $0.page = $1 },
            ]
        ) { _ = try PhasesWorkflow.run($0) }
        let other = try decoy("other.mp4"), phaseFiles = [try decoy("swing.json"), try decoy("other.json")]
        let sync = SyncRequest(videos: [video, other], phaseFiles: phaseFiles, output: path("out/sync.mp4"))
        try assertEveryClashRefused(
            "sync", base: sync, reads: [video, other] + phaseFiles,
            outputs: [Output(name: "output") { $0.output = $1 }]
        ) { _ = try SyncWorkflow.run($0) }
        var byModel = SyncRequest(videos: [video, other], phaseFiles: [], output: path("out/sync.mp4"))
        byModel.phaseModel = SyncPhaseModel(model: .path(model), order: ["a", "b"])
        byModel.output = model
        assertRefused("sync --model -o the model") { _ = try SyncWorkflow.run(byModel) }
        let points = [OverlayPoint(x: 1, y: 1), OverlayPoint(x: 2, y: 2), OverlayPoint(x: 3, y: 1)]
        let trace = TraceRequest(video: video, points: points, start: 0, output: path("out/trace.mp4"))
        try assertEveryClashRefused(
            "trace", base: trace, reads: [video],
            outputs: [Output(name: "output") { $0.output = $1 }]
        ) { _ = try TraceWorkflow.run($0) }
    }

    // MARK: Evaluation, export, features

    func testEvaluateExportAndFeaturesRefuseEveryFileTheyRead() throws {
        let model = try model()
        let images = [try picture("e/a/0.png"), try picture("e/b/0.png", shade: 220)]
        var evaluation = EvaluationRequest(folder: path("e"), model: .loaded(try Classifier.load(path: model)))
        try assertEveryClashRefused(
            "evaluate", base: evaluation, reads: images + [model, path("e")],
            outputs: [Output(name: "html") { $0.page = $1 }]
        ) { _ = try EvaluationWorkflow.run($0) }
        let dataset = folder.appendingPathComponent("boxes")
        let boxes = try SyntheticDetectionDataset.write(to: dataset, count: 2, side: 48, seed: 3)
        let detector = try decoy("detector.wbmodel")
        var detectorEvaluation = DetectorEvaluationRequest(modelPath: detector, datasetPath: dataset.path)
        try assertEveryClashRefused(
            "evaluate-detector", base: detectorEvaluation,
            reads: [detector, dataset.appendingPathComponent("annotations.json").path] + boxes.keys.map { dataset.appendingPathComponent($0).path },
            outputs: [Output(name: "html") { $0.page = $1 }]
        ) { _ = try DetectorEvaluationWorkflow.run($0) }
        var export = ExportRequest(model: model, format: .onnx)
        try assertEveryClashRefused(
            "export", base: export, reads: [model],
            outputs: [Output(name: "output") { $0.output = $1 }]
        ) { _ = try ExportWorkflow.run($0) }
        let backbone = try decoy("backbone.safetensors")
        var features = FeaturesRequest(inputs: [path("e")])
        features.backbone = .pretrained(path: backbone)
        try assertEveryClashRefused(
            "features", base: features, reads: images + [backbone],
            outputs: [Output(name: "output") { $0.output = $1 }]
        ) { _ = try FeaturesWorkflow.run($0, events: { _ in }, deliver: { _, _ in true }) }
    }
}
