import Datasets
import FileFormats
import Glibc

/// The inputs of one detection run, sorted: folders and picture files (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP, by
/// their first bytes, else by their name) are pictures, any other file a video (ffprobe decides later whether it
/// is one). A run takes one kind.
public enum DetectionInputs: Equatable, Sendable {
    /// Picture files and folders of pictures, as given.
    case pictures([String])
    /// Video files, as given.
    case videos([String])

    /// What is wrong with a list of inputs.
    public enum Problem: Error, Equatable, Sendable {
        /// Nothing was given.
        case none
        /// An input that is not there (`isBrokenLink`: a symbolic link to nothing).
        case missing(path: String, isBrokenLink: Bool)
        /// Pictures and videos in one list: one of each named.
        case mixed(picture: String, video: String)
    }

    /// Sorts `inputs`, refusing an empty list, a missing input and a mix of pictures and videos.
    public static func sort(_ inputs: [String]) throws(Problem) -> DetectionInputs {
        guard !inputs.isEmpty else { throw .none }
        var pictures: [String] = [], videos: [String] = []
        for input in inputs {
            var status = stat()
            guard stat(input, &status) == 0 else { throw .missing(path: input, isBrokenLink: lstat(input, &status) == 0) }
            if FolderWalk.isFolder(input) || ImageFileCheck.verdict(path: input) == .image {
                pictures.append(input)
            } else {
                videos.append(input)
            }
        }
        if let picture = pictures.first, let video = videos.first { throw .mixed(picture: picture, video: video) }
        return videos.isEmpty ? .pictures(pictures) : .videos(videos)
    }
}

extension DetectionInputs.Problem: PassableError {
    /// The file concerned, if any.
    public var path: String? {
        switch self {
        case .none: nil
        case .missing(let path, _): path
        case .mixed(_, let video): video
        }
    }

    /// What is wrong, in one line.
    public var reason: String {
        switch self {
        case .none: "no pictures or videos given"
        case .missing(_, let isBrokenLink): isBrokenLink ? "broken symbolic link" : "no such file or folder"
        case .mixed(let picture, _):
            "pictures and videos are not mixed in one call: \(picture) is a picture, this a video (or not a picture); run detect once for each"
        }
    }

    public func passed<Domain>(as type: OptionalPathError<Domain>.Type) -> OptionalPathError<Domain> {
        OptionalPathError<Domain>(path: path, reason: reason)
    }
}
