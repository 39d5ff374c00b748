import Glibc

/// The one naming of Workbench's temporary files. A file being written goes to a hidden name in its destination's
/// own folder, so that a rename puts it in place atomically and a crash leaves a dot-file a person can tell apart:
/// `.<name>.partial-<process id>-<random>`, with `ending` after it when the writer needs one (ffmpeg picks its
/// container from the name's ending, so a video keeps `.mp4`).
public enum TemporaryFileName {
    /// The temporary name for `name` (a file name, no folder). With `ending` (no dot), the name's own ending is
    /// replaced by `.partial-…` and `ending` follows it: `clip.mp4` → `.clip.partial-42-7.mp4`.
    public static func beside(_ name: String, ending: String? = nil) -> String {
        let unique = "partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard let ending else { return ".\(name).\(unique)" }
        let stem = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : String(name[..<$0]) } ?? name
        return ".\(stem).\(unique).\(ending)"
    }

    /// The temporary path for a file at `folder/name`; `folder` "/" gives "/.name…".
    public static func beside(_ name: String, in folder: String, ending: String? = nil) -> String {
        (folder == "/" ? "" : folder) + "/" + beside(name, ending: ending)
    }
}
