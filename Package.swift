// swift-tools-version: 6.0
import PackageDescription

// Grouped by role; dependencies point down, and each target declares exactly the modules it imports:
// WorkbenchCLI → Workbench (the API: one file per workflow) → the engines:
//   ClassifierTraining (the train run) → {Inference, Training, FineTuning, Augmentation, Datasets, ModelFiles}
//   Reports (the pages' assembly) → {Pages (the page writers) → {ImageCodecs, FileFormats}, ClassifierTraining, Inference,
//   Video}
//   Labeling (markers, MovieData, results) → Video (ffmpeg: frame sources, probe, rendering) → {ExternalProcesses, Phases}
//   Overlays (what Workbench draws over a video: the trace curve) → FileFormats
//   ClusterJobs (shards, Slurm scripts) → ExternalProcesses; Export (ONNX, Core ML) → {Models, ModelFiles}
// DetectorTraining (the detector's head, loop, views, scores, model conversion) → {CenterNetHead, DetectionMetrics,
//   Detection, Inference, FineTuning, TrainableLayers, ModelFiles}
// DetectionMetrics (COCO average precision), CenterNetHead (targets, losses, decoding) → DetectionAnnotations
//   (annotations.json against the pictures' headers) → {Datasets, ImageCodecs}
// Inference (backbone, scheduler, cache use and filling, classifier) → {Models, ModelFiles, Datasets, LogisticHead, ImageCodecs}
// FineTuning → TrainableLayers → Models (stage table, pretrained network) → Layers → TensorCore → CBLAS
// ImageCodecs → {CJPEGShim → libjpeg, CPNGShim → CPNG, CWebPShim → libwebp, CHEIFShim → libheif, CTIFFShim → libtiff,
// CGIFShim → giflib}; FileFormats (safetensors, JSON, atomic writes, the
// path-and-reason errors, WorkbenchError) sits at the bottom, importing nothing.
let package = Package(
    name: "Workbench",
    products: [
        .executable(name: "workbench", targets: ["WorkbenchCLI"]),
        .executable(name: "workbench-bench-network", targets: ["BenchNetwork"]),
        .executable(name: "workbench-bench-training", targets: ["BenchTraining"]),
        .executable(name: "workbench-bench-finetune", targets: ["BenchFineTune"]),
        .executable(name: "workbench-bench-detector", targets: ["BenchDetector"]),
        .executable(name: "workbench-bench-neighbours", targets: ["BenchNeighbours"]),
        // Run by set-up: the person detector's frozen TensorFlow graph to Workbench's safetensors file.
        .executable(name: "workbench-convert-detector", targets: ["ConvertDetector"]),
        .library(name: "Workbench", targets: ["Workbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.28.0"),
        // `swift package generate-documentation --target Workbench`: the library's API as DocC pages.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Tests only: the generators (and seeded random source) of the hostile-name property tests in _TestSupport.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // C libraries, each behind one small target.
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // libjpeg and libpng report fatal errors by longjmp (libjpeg's default calls exit()): these C shims arm
        // setjmp around every library call and hand Swift an error string instead.
        .target(name: "CJPEGShim", exclude: ["README.md"], linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CPNGShim", dependencies: ["CPNG"], exclude: ["README.md"]),
        // The other formats people's pictures come in, each behind its own shim: libwebp (status codes), libheif
        // (heif_error values; HEIC, iPhone photos), libtiff (its printing error handlers replaced per reader),
        // giflib (error codes). BMP needs no library (ImageCodecs/BMPDecoder.swift).
        .target(
            name: "CWebPShim", exclude: ["README.md"],
            linkerSettings: [.linkedLibrary("webpdemux"), .linkedLibrary("webp")]),
        .target(name: "CHEIFShim", exclude: ["README.md"], linkerSettings: [.linkedLibrary("heif")]),
        .target(name: "CTIFFShim", exclude: ["README.md"], linkerSettings: [.linkedLibrary("tiff")]),
        .target(name: "CGIFShim", exclude: ["README.md"], linkerSettings: [.linkedLibrary("gif")]),
        // AVX2 + FMA and AVX-512 kernels (files without a suffix are the AVX2 ones), enabled per function (target
        // attributes) behind a runtime CPU check in dispatch.c.
        .target(name: "CKernels", exclude: ["README.md"]),
        // The same for the trainable layers' backward passes.
        .target(name: "CTrainingKernels", exclude: ["README.md"]),

        // Files: safetensors, JSON, atomic writes, bounded reads, the path-and-reason error (Foundation only).
        .target(name: "FileFormats", exclude: ["README.md"]),

        // The one place an external program (ffmpeg, ffprobe, sbatch) is found, started, run and stopped.
        .target(name: "ExternalProcesses", dependencies: ["FileFormats"], exclude: ["README.md"]),

        // Numerics and the network.
        .target(name: "TensorCore", dependencies: ["CBLAS"], exclude: ["README.md"]),
        .target(name: "Layers", dependencies: ["TensorCore", "CKernels"], exclude: ["README.md"]),
        .target(name: "Models", dependencies: ["Layers", "FileFormats"], exclude: ["README.md"]),
        // Trainable layers (forward/backward pairs, each beside its naive reference) and the trainable
        // EfficientNet-Lite0 built from the inference network's weights; the inference path stays as it is.
        .target(
            name: "TrainableLayers", dependencies: ["Models", "Layers", "FileFormats", "TensorCore", "CTrainingKernels"],
            exclude: ["README.md"]),
        // The fine-tuning loop: optimizers (each beside its reference), the schedule, LP-FT over the trainable top
        // with the frozen layers on the inference path.
        .target(
            name: "FineTuning", dependencies: ["TrainableLayers", "Models", "TensorCore"],
            exclude: ["README.md"]),

        // Images and data.
        .target(
            name: "ImageCodecs",
            dependencies: [
                "CJPEGShim", "CPNGShim", "CWebPShim", "CHEIFShim", "CTIFFShim", "CGIFShim", "FileFormats",
            ], exclude: ["README.md"]),
        .target(
            name: "Datasets",
            dependencies: [
                "FileFormats", .product(name: "Crypto", package: "swift-crypto"),
            ], exclude: ["README.md"]),
        // Create ML's augmentations between decoding and the network, ending in the model's preprocessing.
        .target(name: "Augmentation", dependencies: ["FileFormats", "ImageCodecs", "TensorCore"], exclude: ["README.md"]),

        // The head, the model file, labeling, export, pages, cluster jobs.
        .target(name: "LogisticHead", dependencies: ["TensorCore"], exclude: ["README.md"]),
        // Exact k nearest neighbours by cosine over feature vectors (blocked GEMM, beside a naive reference).
        .target(name: "Neighbours", dependencies: ["TensorCore"], exclude: ["README.md"]),
        // What is wrong with a dataset, from values: confident learning, copies and leaks, outliers (doctor's rules).
        .target(name: "DataAudit", dependencies: ["Neighbours"], exclude: ["README.md"]),
        .target(
            name: "ModelFiles",
            dependencies: [
                "FileFormats", "ImageCodecs", .product(name: "Crypto", package: "swift-crypto"),
            ], exclude: ["README.md"]),
        // ffmpeg and ffprobe: frame sources (videos and numbered-frame folders), probing, and rendering (review
        // copies, highlight reels); the processes start in ExternalProcesses.
        .target(name: "Video", dependencies: ["Datasets", "ExternalProcesses", "FileFormats", "ImageCodecs", "Phases"], exclude: ["README.md"]),
        .target(name: "Labeling", dependencies: ["Video", "FileFormats", "ImageCodecs", "Inference", "TensorCore"], exclude: ["README.md"]),
        // Where in the frame: detectors (the person detector's network on the shared layers), boxes, clips.
        .target(
            name: "Detection", dependencies: ["Datasets", "FileFormats", "ImageCodecs", "Layers", "Models", "TensorCore", "Video"],
            exclude: ["README.md"]),
        // Object-detection datasets: Create ML's annotations.json (and detect --json's output) read against the
        // pictures' headers; boxes as edges, negatives, one-line errors naming the entry.
        .target(name: "DetectionAnnotations", dependencies: ["Datasets", "FileFormats", "ImageCodecs"], exclude: ["README.md"]),
        // How good a detector is: COCO-style average precision as pycocotools computes it, and the precision and
        // recall at a score threshold (the threshold of best F1 among them).
        .target(name: "DetectionMetrics", dependencies: ["DetectionAnnotations"], exclude: ["README.md"]),
        // CenterNet's head math on plain arrays: targets (Gaussian centre heat maps, sizes, offsets, a mask), the
        // penalty-reduced focal and L1 losses with their gradients, and decoding by 3 × 3 peaks (beside a reference).
        .target(name: "CenterNetHead", dependencies: ["DetectionAnnotations"], exclude: ["README.md"]),
        // Training a detector on the frozen backbone's stride-16 and stride-32 maps: the CenterNet head (layers from
        // TrainableLayers), views that move the boxes with the pixels, the loop, the held-out choice and the scores.
        .target(
            name: "DetectorTraining",
            dependencies: [
                "CenterNetHead", "Detection", "DetectionAnnotations", "DetectionMetrics", "FileFormats", "FineTuning", "ImageCodecs",
                "Inference", "ModelFiles", "Models", "TensorCore", "TrainableLayers",
            ], exclude: ["README.md"]),
        // The person detector's converter: a frozen TensorFlow graph read through a GraphDef schema subset (generated
        // once, like Export's), batch norm folded, anchors generated from the graph's anchor-generator constants.
        .target(
            name: "DetectorConversion",
            dependencies: [
                "FileFormats", "Layers", "Models", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ], exclude: ["README.md"]),
        .executableTarget(name: "ConvertDetector", dependencies: ["DetectorConversion"]),
        // When in the video: phases in a fixed order, found from per-frame probabilities or written by hand.
        .target(name: "Phases", dependencies: ["FileFormats"], exclude: ["README.md"]),
        // What Workbench draws over a video itself for ffmpeg to composite: the ball-flight curve, its anti-aliased
        // stroke (beside a naive reference) and its animation.
        .target(name: "Overlays", dependencies: ["FileFormats"], exclude: ["README.md"]),
        // ONNX and Core ML writers; their protobuf messages are generated once (scripts/setup/generate-protos.sh).
        .target(
            name: "Export",
            dependencies: [
                "Augmentation", "ImageCodecs", "Layers", "Models", "ModelFiles", "FileFormats",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ], exclude: ["README.md"]),
        // The page writers: self-contained HTML pages with inline SVG charts and data: URI pictures, plain values in and
        // markup out; they import no trainer, only the JSON quoting and the picture encoders.
        .target(name: "Pages", dependencies: ["FileFormats", "ImageCodecs"], exclude: ["README.md"]),
        // The pages' assembly from a training run, an evaluation, a detector's scoring or a video's phases (pictures,
        // activation maps, the worst pictures first).
        .target(
            name: "Reports",
            dependencies: [
                "ClassifierTraining", "DataAudit", "Datasets", "DetectionAnnotations", "DetectionMetrics", "FileFormats", "ImageCodecs",
                "Inference", "LogisticHead", "Models", "Pages", "TensorCore", "Video",
            ], exclude: ["README.md"]),
        // Cluster jobs: shards of the inputs, Slurm batch scripts and their submission.
        .target(name: "ClusterJobs", dependencies: ["ExternalProcesses", "FileFormats"], exclude: ["README.md"]),
        // The network at work: the backbone, the scheduler over worker threads, the feature cache, a classifier's
        // predictions.
        .target(
            name: "Inference",
            dependencies: [
                "Augmentation", "Datasets", "FileFormats", "ImageCodecs", "ModelFiles", "Models", "TensorCore", "LogisticHead",
            ], exclude: ["README.md"]),
        // The run of `train`: scan, features, held-out selection, fit, calibration, fine-tuning, evaluation, model.
        .target(
            name: "ClassifierTraining",
            dependencies: [
                "Augmentation", "Datasets", "FileFormats", "FineTuning", "ImageCodecs", "Inference", "ModelFiles", "Models",
                "TensorCore", "TrainableLayers", "LogisticHead",
            ], exclude: ["README.md"]),
        // The public API: one file per workflow, request in, result out, progress by callback.
        .target(
            name: "Workbench",
            dependencies: [
                "Augmentation", "ClassifierTraining", "ClusterJobs", "DataAudit", "Datasets", "DetectionAnnotations", "DetectionMetrics",
                "DetectorTraining",
                "Export",
                "FileFormats", "FineTuning", "Detection", "ImageCodecs", "Inference", "Labeling", "ModelFiles", "Models", "Overlays", "Phases",
                "Reports", "TensorCore",
                "LogisticHead", "Neighbours", "Video",
            ], exclude: ["README.md"]),
        // The Swift runtime and Foundation are linked in statically, so an installed `workbench` runs without the
        // toolchain (no LD_LIBRARY_PATH, no toolchain left in place). Only the link differs: the objects stay those
        // of a plain build (`--static-swift-stdlib` would compile everything again), so the static libraries
        // Foundation's own objects ask for are named here. lld, because gold prints a warning for the mktemp in
        // the toolchain's static Foundation. Release builds only (the installed binary is one): a target's linker
        // settings also reach the test bundle that imports it (WorkbenchCLIParserTests), which links XCTest dynamically.
        .executableTarget(
            name: "WorkbenchCLI",
            dependencies: [
                "Workbench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], exclude: ["README.md"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-use-ld=lld",
                        "-lCoreFoundation", "-l_FoundationCollections", "-l_FoundationICU", "-l_FoundationCShims",
                    ],
                    .when(configuration: .release))
            ]),

        // Benchmarks.
        .target(name: "BenchSupport", exclude: ["README.md"]),
        .executableTarget(
            name: "BenchNetwork", dependencies: ["BenchSupport", "Layers", "Models", "ImageCodecs", "TensorCore"], exclude: ["README.md"]),
        .executableTarget(name: "BenchTraining", dependencies: ["BenchSupport", "LogisticHead", "TensorCore"]),
        .executableTarget(name: "BenchDetector", dependencies: ["BenchSupport", "Detection", "ImageCodecs"]),
        .executableTarget(name: "BenchNeighbours", dependencies: ["BenchSupport", "Neighbours", "TensorCore"]),
        .executableTarget(name: "BenchFineTune", dependencies: ["BenchSupport", "TrainableLayers", "Models", "TensorCore"], exclude: ["README.md"]),

        // Tests.
        .target(
            name: "_TestSupport",
            dependencies: [
                "FileFormats", "ImageCodecs", .product(name: "PropertyBased", package: "swift-property-based"),
            ], exclude: ["README.md"]),
        .testTarget(name: "FileFormatsTests", dependencies: ["FileFormats", "TensorCore", "_TestSupport"]),
        .testTarget(name: "TensorCoreTests", dependencies: ["TensorCore", "_TestSupport"]),
        .testTarget(name: "LayersTests", dependencies: ["Layers", "_TestSupport"]),
        .testTarget(
            name: "TrainableLayersTests",
            dependencies: ["TrainableLayers", "Models", "Layers", "ImageCodecs", "FileFormats", "TensorCore", "_TestSupport"]),
        .testTarget(name: "FineTuningTests", dependencies: ["FineTuning", "TrainableLayers", "Models", "TensorCore", "_TestSupport"]),
        .testTarget(
            name: "ModelsTests", dependencies: ["Models", "ImageCodecs", "FileFormats", "TensorCore", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ImageCodecsTests", dependencies: ["ImageCodecs", "CPNGShim", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AugmentationTests",
            dependencies: [
                "Augmentation", "ImageCodecs", "Models", "TensorCore", "_TestSupport",
            ]),
        .testTarget(name: "DatasetsTests", dependencies: ["Datasets", "_TestSupport"]),
        .testTarget(name: "NeighboursTests", dependencies: ["Neighbours", "TensorCore", "_TestSupport"]),
        .testTarget(name: "DataAuditTests", dependencies: ["DataAudit", "Neighbours", "_TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "LogisticHeadTests", dependencies: ["LogisticHead", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ModelFilesTests", dependencies: ["ModelFiles", "FileFormats", "ImageCodecs", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ExportTests",
            dependencies: [
                "Augmentation", "Export", "ImageCodecs", "Models", "ModelFiles", "FileFormats", "_TestSupport",
                // The detector's export is held to the head and decoder it was trained with.
                "CenterNetHead", "DetectorTraining", "TrainableLayers",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]),
        .testTarget(name: "VideoTests", dependencies: ["Video", "Labeling", "Phases", "TensorCore", "ImageCodecs", "_TestSupport"]),
        .testTarget(
            name: "LabelingTests", dependencies: ["Labeling", "Video", "FileFormats", "ImageCodecs", "TensorCore", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ReportsTests",
            dependencies: [
                "Reports", "Pages", "DataAudit", "DetectionAnnotations", "DetectionMetrics", "ImageCodecs", "LogisticHead", "_TestSupport",
            ]),
        .testTarget(
            name: "DetectionTests", dependencies: ["Detection", "Models", "ImageCodecs", "FileFormats", "TensorCore", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "DetectionAnnotationsTests", dependencies: ["DetectionAnnotations", "ImageCodecs", "_TestSupport"]),
        .testTarget(
            name: "DetectionMetricsTests", dependencies: ["DetectionMetrics", "DetectionAnnotations", "FileFormats", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "DetectorTrainingTests",
            dependencies: [
                "DetectorTraining", "CenterNetHead", "Detection", "DetectionAnnotations", "DetectionMetrics", "FileFormats", "ImageCodecs",
                "Inference", "Models",
                "TrainableLayers", "TensorCore", "_TestSupport",
            ]),
        .testTarget(
            name: "CenterNetHeadTests", dependencies: ["CenterNetHead", "DetectionAnnotations", "_TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "DetectorConversionTests", dependencies: ["DetectorConversion", "Models", "FileFormats", "_TestSupport"]),
        .testTarget(name: "PhasesTests", dependencies: ["Phases", "_TestSupport"]),
        .testTarget(name: "OverlaysTests", dependencies: ["Overlays", "_TestSupport"]),
        .testTarget(name: "ClusterJobsTests", dependencies: ["ClusterJobs", "_TestSupport"]),
        // The workflows in-process, through the library's API; WorkbenchCLITests keeps the binary's own behaviour.
        .testTarget(name: "WorkbenchTests", dependencies: ["Workbench", "_TestSupport"]),
        .testTarget(name: "WorkbenchCLITests", dependencies: ["DetectionAnnotations", "_TestSupport"]),
        // The CLI in-process (the executable target, imported @testable): the Slurm scripts' command lines parsed by
        // the commands' own parser, and the wording of the library's error hints.
        .testTarget(
            name: "WorkbenchCLIParserTests",
            dependencies: [
                "WorkbenchCLI", "Workbench", "_TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
    ]
)
