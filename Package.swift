// swift-tools-version: 6.0
import PackageDescription

// Grouped by role; dependencies point down:
// WorkbenchCLI → Workbench → {Labeling, Training, ModelFiles, Datasets} → Models → Layers → TensorCore → CBLAS
// Datasets → ImageCodecs → {CPNG, CJPEGShim}
let package = Package(
    name: "Workbench",
    products: [
        .executable(name: "workbench", targets: ["WorkbenchCLI"]),
        .library(name: "Workbench", targets: ["Workbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries, each behind one small target.
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),

        // Numerics and the network.
        .target(name: "TensorCore", dependencies: ["CBLAS"]),
        .target(name: "Layers", dependencies: ["TensorCore"]),
        .target(name: "Models", dependencies: ["Layers", "TensorCore", "ImageCodecs"]),

        // Images and data.
        .target(name: "ImageCodecs", dependencies: ["CPNG", "CJPEGShim"]),
        .target(name: "Datasets", dependencies: ["ImageCodecs", "TensorCore"]),

        // Workflows.
        .target(name: "Training", dependencies: ["TensorCore"]),
        .target(name: "ModelFiles", dependencies: ["TensorCore"]),
        .target(name: "Labeling", dependencies: ["ImageCodecs"]),
        .target(name: "Workbench", dependencies: [
            "Models", "ImageCodecs", "Datasets", "Training", "ModelFiles", "Labeling", "TensorCore",
        ]),
        .executableTarget(name: "WorkbenchCLI", dependencies: [
            "Workbench",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Tests.
        .target(name: "_TestSupport"),
        .testTarget(name: "TensorCoreTests", dependencies: ["TensorCore", "_TestSupport"]),
        .testTarget(name: "LayersTests", dependencies: ["Layers", "TensorCore", "_TestSupport"]),
        .testTarget(name: "ModelsTests", dependencies: ["Models", "ImageCodecs", "_TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "_TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "DatasetsTests", dependencies: ["Datasets", "_TestSupport"]),
        .testTarget(name: "TrainingTests", dependencies: ["Training", "_TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "ModelFilesTests", dependencies: ["ModelFiles", "_TestSupport"]),
        .testTarget(name: "LabelingTests", dependencies: ["Labeling", "_TestSupport"]),
        .testTarget(name: "WorkbenchCLITests", dependencies: ["Workbench", "_TestSupport"]),
    ]
)
