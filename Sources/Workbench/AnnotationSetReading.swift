import DetectionAnnotations
import Foundation

extension AnnotationReader {
    /// Reads `path`, an annotations file or a folder holding `fileName`, with the workbench's one-line errors
    /// (a missing path says so before the reader is asked), pictures over `maximumPixels` refused. What `train`
    /// and `evaluate` share for a detector.
    static func readFileOrFolder(_ path: String, maximumPixels: Int) throws(WorkbenchError) -> AnnotationSet {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw WorkbenchError(path: path, reason: "no such file or folder")
        }
        return try WorkbenchError.passingOn {
            isFolder.boolValue ? try read(folder: path, maximumPixels: maximumPixels) : try read(file: path, maximumPixels: maximumPixels)
        }
    }
}
