import FileFormats
import Foundation

/// The names of the files a detection run writes into a folder, fixed before anything is written.
public enum DetectionOutputNames {
    /// Where each picture's annotated copy goes: `folder/<name>` keeping a `.png` or `.jpg` ending (others become
    /// `.jpg`), with `-2`, `-3` … when two pictures share a name.
    public static func annotatedPictures(_ pictures: [String], folder: String) -> [String] {
        var used: Set<String> = []
        return pictures.map { picture in
            let url = URL(fileURLWithPath: picture)
            let ending = url.pathExtension.lowercased()
            let fileExtension = ["png", "jpg", "jpeg"].contains(ending) ? ending : "jpg"
            let stem = url.deletingPathExtension().lastPathComponent
            let name = PerInputOutputs.uniqueName(stem: stem, fileExtension: fileExtension, used: &used)
            return URL(fileURLWithPath: folder).appendingPathComponent(name).path
        }
    }

    /// The clips of one run, named as they are made: `<video stem>-<n>.mp4` for the video's n-th clip; a name
    /// another video of the run already took (two videos with one stem) moves on by 1,000 until it is free.
    public struct Clips {
        private var used: Set<String> = []

        /// `folder` as the outputs check sees it before any clip is made (their count is known only after the
        /// work): every `<stem>-<n>.mp4` of one of `videos`' stems is a clip to be.
        public static func folder(_ folder: String, videos: [String]) -> OutputConflicts.FilledFolder {
            let stems = Set(videos.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
            return OutputConflicts.FilledFolder(path: folder, contents: "a clip") { name in
                guard name.hasSuffix(".mp4") else { return false }
                let base = name.dropLast(4)
                guard let dash = base.lastIndex(of: "-") else { return false }
                let number = base[base.index(after: dash)...]
                return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
                    && stems.contains(String(base[..<dash]))
            }
        }

        /// No clip named yet.
        public init() {}

        /// The path of `video`'s clip number `index` (0-based) in `folder`.
        public mutating func path(video: String, index: Int, folder: String) -> String {
            let stem = URL(fileURLWithPath: video).deletingPathExtension().lastPathComponent
            var number = index + 1, name = "\(stem)-\(number).mp4"
            while used.contains(name) {
                number += 1000
                name = "\(stem)-\(number).mp4"
            }
            used.insert(name)
            return URL(fileURLWithPath: folder).appendingPathComponent(name).path
        }
    }
}
