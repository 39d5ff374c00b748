import ArgumentParser

@main
struct WorkbenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workbench",
        abstract: "Train image classifiers from folders of pictures, on this machine.",
        discussion: """
            A pretrained EfficientNet-Lite0 turns each image into 1280 features; a classifier head is trained on them.

            Examples:
              workbench features photos/ --json -o features.jsonl
            """,
        version: WorkbenchVersion.current,
        subcommands: [FeaturesCommand.self]
    )
}

enum WorkbenchVersion {
    static let current = "0.1.0"
}
