import Datasets
import FileFormats
import Foundation
import ImageCodecs

/// Reads an object-detection dataset: a folder of pictures with Create ML's `annotations.json`, or any
/// annotations file in that shape (`detect --json`'s output on pictures), against the pictures on disk.
///
/// Names are relative to the annotations file's folder unless absolute, in both formats: a `detect --json` run
/// made inside the pictures' folder (`cd photos && workbench detect . --json > annotations.json`) reads back as
/// it was written. Every picture an entry names must exist and be a JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP file
/// whose header reads; its size as displayed (orientation applied, as `detect` reports boxes) comes from the
/// header, without decoding. One entry per picture (two names for one file, such as `a.jpg` and `./a.jpg`, are one picture). In a Create ML
/// folder (`read(folder:)`), pictures anywhere below the folder that no entry names are negatives, listed and
/// noted, not errors; a file read by itself (`read(file:)`) has none, since its folder may be any folder (a
/// `detect --json` saved in the home folder must not make every picture there a negative).
public enum AnnotationReader {
    /// The annotations file of a Create ML object-detection folder.
    public static let fileName = "annotations.json"
    /// Annotations files larger than this are refused unread: 256 MB is millions of boxes.
    public static let maximumFileBytes = 256 << 20

    /// Reads `folder/annotations.json`, the pictures its entries name, and as negatives the pictures anywhere below
    /// `folder` that no entry names. A picture over `maximumPixels` is refused as decoding it would be.
    public static func read(folder: String, maximumPixels: Int = DecodeOptions().maximumPixels) throws(AnnotationError) -> AnnotationSet {
        let file = FolderWalk.join(folder, fileName)
        var information = stat()
        guard stat(file, &information) == 0 else {
            throw AnnotationError(path: folder, reason: "no \(fileName) (a Create ML object-detection folder holds its pictures and one \(fileName))")
        }
        let options = DecodeOptions(maximumPixels: maximumPixels, minimumCropSide: nil)
        let read = try entries(file: file, options: options)
        var set = read.set
        (set.negatives, set.notes) = try negatives(below: set.folder, file: file, except: read.namedFiles, options: options)
        return set
    }

    /// Reads the annotations file `file` and the pictures its entries name, with no negatives: the pictures of the
    /// file's folder are not walked (that folder may be any folder; `read(folder:)` reads a dataset's negatives).
    public static func read(file: String, maximumPixels: Int = DecodeOptions().maximumPixels) throws(AnnotationError) -> AnnotationSet {
        try entries(file: file, options: DecodeOptions(maximumPixels: maximumPixels, minimumCropSide: nil)).set
    }

    /// The set of `file`'s entries, without negatives, and the files its entries name (by device and inode).
    private static func entries(file: String, options: DecodeOptions) throws(AnnotationError) -> (set: AnnotationSet, namedFiles: Set<FileIdentity>) {
        let bytes: [UInt8]
        do {
            let input = try InputFile.open(path: file, maximumBytes: maximumFileBytes)
            bytes = try input.readAll()
        } catch {
            throw AnnotationError(path: file, reason: error.reason)
        }
        // Every problem of every entry is gathered (the shape's, then each picture's), and all are reported at once.
        var problems = AnnotationProblems(file: file)
        let document = AnnotationDocument.parse(try AnnotationDocument.elements(bytes, file: file), file: file, problems: &problems)
        let folder = Self.folder(of: file)

        var images: [AnnotatedImage] = []
        var clipped: [ClippedBox] = []
        // Each picture by device and inode, so two spellings of one file are one picture.
        var entryOfFile: [FileIdentity: Int] = [:]
        for entry in document.entries {
            do throws(AnnotationError) {
                let place = "entry \(entry.number) (\(AnnotationDocument.quoted(entry.image)))"
                let path = entry.image.hasPrefix("/") ? entry.image : FolderWalk.join(folder, entry.image)
                var information = stat()
                guard stat(path, &information) == 0 else {
                    // Only a missing file is "no such picture": a link loop or a folder it may not enter is named.
                    guard errno == ENOENT || errno == ENOTDIR else {
                        throw AnnotationError(path: file, reason: "\(place): cannot read the picture \(path): \(SystemError.describe(errno))")
                    }
                    throw AnnotationError(path: file, reason: "\(place): no such picture \(path) (names are relative to the folder of \(file))")
                }
                guard (information.st_mode & S_IFMT) == S_IFREG else {
                    throw AnnotationError(
                        path: file, reason: "\(place): \(path) is not a picture file (\(InputFile.nonRegularKind(information.st_mode) ?? "a folder"))"
                    )
                }
                let identity = FileIdentity(device: UInt64(information.st_dev), inode: UInt64(information.st_ino))
                if let earlier = entryOfFile[identity] {
                    throw AnnotationError(
                        path: file,
                        reason: "\(place): the same picture as entry \(earlier); give each picture one entry "
                            + "with all its boxes in one \"annotations\" array")
                }
                entryOfFile[identity] = entry.number
                let size: ImageSize
                do {
                    size = try ImageLoader.size(path: path, options: options)
                } catch {
                    throw AnnotationError(path: file, reason: "\(place): \(error.description)")
                }
                var refused: [AnnotationError] = []
                let objects = AnnotationDocument.objects(of: entry, in: size, file: file, clipped: &clipped, refused: &refused)
                for error in refused { problems.add(error, entry: entry.number) }
                images.append(AnnotatedImage(path: path, name: entry.image, size: size, objects: objects))
            } catch {
                problems.add(error, entry: entry.number)
            }
        }
        try problems.check()
        var set = AnnotationSet(file: file, folder: folder, images: images, negatives: [], notes: [])
        set.clippedBoxes = clipped
        return (set, Set(entryOfFile.keys))
    }

    /// The pictures anywhere below `folder` other than `namedFiles` (by device and inode), with a note for each,
    /// and notes for those left out; `file` names the annotations in notes.
    private static func negatives(
        below folder: String, file: String,
        except namedFiles: Set<FileIdentity>, options: DecodeOptions
    ) throws(AnnotationError) -> (negatives: [AnnotatedImage], notes: [String]) {
        var walk = FolderWalk()
        let found: [String]
        do {
            found = try walk.imageFiles(under: folder)
        } catch {
            throw AnnotationError(error)
        }
        var negatives: [AnnotatedImage] = [], notes: [String] = []
        for path in found {
            var information = stat()
            guard stat(path, &information) == 0 else { continue }
            if namedFiles.contains(FileIdentity(device: UInt64(information.st_dev), inode: UInt64(information.st_ino))) { continue }
            do {
                let size = try ImageLoader.size(path: path, options: options)
                let prefix = FolderWalk.join(folder, "")
                let name = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
                negatives.append(AnnotatedImage(path: path, name: name, size: size, objects: []))
                notes.append("\(path): no entry in \(file): a negative (a picture without objects)")
            } catch {
                notes.append("\(error.description) (a picture without an entry, left out)")
            }
        }
        notes += walk.unreadable.map { "\($0.path): \($0.reason) (left out)" }
        return (negatives, notes)
    }

    /// The folder holding `file`, as the user would write it ("." for a bare name).
    static func folder(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        let folder = String(file[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// A file's device and inode.
    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }
}
