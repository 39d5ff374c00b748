import Foundation

/// Expands command-line inputs into image files: files as given, folders walked recursively in a stable natural
/// order (`2.jpg` before `10.jpg`), hidden entries skipped, files kept when they look like images.
public enum ImageFileList {
    /// File name endings taken as images when walking folders (the decoder still checks the magic bytes).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "jpe", "jfif"]

    /// The image files named by `inputs`, in order; a missing input is an error naming it.
    public static func expand(_ inputs: [String]) throws(WorkbenchError) -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw WorkbenchError(path: input, reason: "no such file or folder")
            }
            if isDirectory.boolValue {
                files += walk(input)
            } else {
                files.append(input)
            }
        }
        return files
    }

    private static func walk(_ folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var files: [String] = []
        for name in names.sorted(by: NaturalOrder.precedes) where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                files += walk(path)
            } else if looksLikeImage(path) {
                files.append(path)
            }
        }
        return files
    }

    /// An image extension, or the JPEG / PNG magic bytes.
    static func looksLikeImage(_ path: String) -> Bool {
        if imageExtensions.contains((path as NSString).pathExtension.lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8](handle.readData(ofLength: 8))
        return head.starts(with: [0xFF, 0xD8, 0xFF]) || head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}

/// Natural order of names: digit runs compare as numbers (`2` < `10`), the rest case-insensitively, and the
/// plain byte order breaks remaining ties so the order is total and stable.
public enum NaturalOrder {
    /// Whether `left` sorts before `right`.
    public static func precedes(_ left: String, _ right: String) -> Bool {
        let order = compare(left, right)
        return order == .orderedSame ? left < right : order == .orderedAscending
    }

    static func compare(_ left: String, _ right: String) -> ComparisonResult {
        var a = Array(left.lowercased().unicodeScalars)[...]
        var b = Array(right.lowercased().unicodeScalars)[...]
        while let x = a.first, let y = b.first {
            if x.properties.numericType == .decimal, y.properties.numericType == .decimal {
                let digitsA = a.prefix { $0.properties.numericType == .decimal }
                let digitsB = b.prefix { $0.properties.numericType == .decimal }
                let trimmedA = digitsA.drop { $0 == "0" }, trimmedB = digitsB.drop { $0 == "0" }
                if trimmedA.count != trimmedB.count { return trimmedA.count < trimmedB.count ? .orderedAscending : .orderedDescending }
                for (p, q) in zip(trimmedA, trimmedB) where p != q { return p.value < q.value ? .orderedAscending : .orderedDescending }
                a = a.dropFirst(digitsA.count)
                b = b.dropFirst(digitsB.count)
                continue
            }
            if x != y { return x.value < y.value ? .orderedAscending : .orderedDescending }
            a = a.dropFirst()
            b = b.dropFirst()
        }
        if a.isEmpty && b.isEmpty { return .orderedSame }
        return a.isEmpty ? .orderedAscending : .orderedDescending
    }
}
