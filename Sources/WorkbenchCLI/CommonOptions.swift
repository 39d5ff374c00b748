import ArgumentParser
import TensorCore
import Workbench

/// Options every command that runs the network shares.
struct ComputeOptions: ParsableArguments {
    @Option(name: .long, help: "Worker threads (default: all cores).")
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp("The backbone weights (default: models/efficientnet-lite0.safetensors from set-up).", valueName: "path"))
    var backbone: String?

    @Option(name: .long, help: ArgumentHelp("Refuse images larger than this many megapixels.", valueName: "megapixels"))
    var maxMegapixels: Int = 300

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if maxMegapixels < 1 { throw ValidationError("--max-megapixels must be at least 1") }
    }

    var threadCount: Int { threads ?? Parallel.coreCount }
}
