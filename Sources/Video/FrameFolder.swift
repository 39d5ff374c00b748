import Datasets
import Foundation
import ImageCodecs

/// A picture in a frame folder that could not be decoded; the source skips it and goes on.
public struct SkippedFrame: Sendable, Equatable {
    /// 0-based rank of the file among the numbered frames.
    public let index: Int
    /// Its time in seconds (from its frame number; the slot stays empty).
    public let second: Double
    /// Why it could not be read ("path: reason").
    public let error: ImageError
}

/// Frames from a folder of numbered pictures (`1.jpg`, `2.jpg`, … `10.jpg`), e.g. made by
/// `ffmpeg -i movie.mp4 -vf fps=1 %d.jpg`.
///
/// A frame's number is the last run of digits in its name without the extension (`frame_0002.png` is 2), and it
/// alone sets the frame's time: frame n is at (n − 1) · `every` seconds, or (n − 1) / `framesPerSecond` when that
/// is given, so a folder with gaps (`1.jpg`, `10.jpg`) keeps them (0 s and 9 s). Numbering starts at 1, as
/// ffmpeg's does, unless the folder has a frame 0 (`-start_number 0`): then frame n is at n · `every`. Frames come
/// in numeric order: 1, 2, 10 — never 1, 10, 2.
///
/// Two files with one number (`1.jpg` and `01.jpg`, or `1.jpg` and `1.png`) would claim one moment, so they are an
/// error naming both, never a silent pick; so is a number above `SamplingLimits.largestFrameNumber`. Only `.jpg`,
/// `.jpeg` and `.png` files with a number are frames; hidden entries are ignored, as in every folder Workbench walks
/// (`FolderWalk`), and everything else (other files, sub-folders) is listed in `ignoredFiles`. Entries that cannot
/// be read (a name that is not UTF-8, a broken link) are listed in `unreadableEntries`, one line each for the user. A picture that fails to decode is skipped, recorded in `skippedFrames`
/// and reported to `onSkip`; the frames after it keep their times.
public final class FrameFolder: FrameSource {
    /// Loads one picture; injectable so tests and callers can choose decoding options.
    public typealias Loader = (String) throws(ImageError) -> RGBImage

    /// The folder.
    public let path: String
    /// Full paths of the frames, in frame order.
    public let framePaths: [String]
    /// The frame number of each of `framePaths`, increasing.
    public let frameNumbers: [Int]
    /// The number of the frame at 0 s: 0 when the folder has a frame 0, else 1.
    public let firstNumber: Int
    /// Names of entries in the folder that are not frames, sorted.
    public let ignoredFiles: [String]
    /// Entries of the folder that cannot be read, so cannot be frames: each "path: reason", worth a warning line.
    public let unreadableEntries: [SkippedFile]
    /// Seconds between consecutive frame numbers.
    public let interval: Double
    /// The frame rate, when the caller gave one instead of an interval.
    public let framesPerSecond: Double?
    /// Frames that failed to decode so far.
    public private(set) var skippedFrames: [SkippedFrame] = []
    private let load: Loader
    private let onSkip: ((SkippedFrame) -> Void)?
    private var nextRank = 0
    private var yielded = 0
    private var closed = false

    /// Lists the folder. Throws when it is missing, unreadable, or holds no numbered frames, when two frames have
    /// one number or a number is too large (`.ambiguousFrames`), or when the interval or rate is outside
    /// `SamplingLimits` (`.invalidArgument`).
    public init(
        path: String, every: Double = 1, framesPerSecond: Double? = nil,
        load: @escaping Loader = { path throws(ImageError) in try ImageLoader.load(path: path) },
        onSkip: ((SkippedFrame) -> Void)? = nil
    ) throws(VideoError) {
        let interval: Double
        if let framesPerSecond {
            try SamplingLimits.check(framesPerSecond: framesPerSecond, path: path)
            interval = 1 / framesPerSecond
        } else {
            try SamplingLimits.check(every: every, path: path)
            interval = every
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw VideoError(.fileNotFound, path: path, reason: "folder not found")
        }
        guard isDirectory.boolValue else {
            throw VideoError(.unreadableFolder, path: path, reason: "not a folder")
        }
        var walk = FolderWalk()
        let entries: [FolderWalk.Entry]
        do {
            entries = try walk.entries(of: path)
        } catch {
            throw VideoError(.unreadableFolder, path: path, reason: error.reason)
        }
        var frames: [(number: Int, name: String)] = []
        var ignored: [String] = []
        for entry in entries {
            let name = entry.name
            guard entry.kind != .folder, let digits = Self.frameNumber(of: name) else {
                ignored.append(name)
                continue
            }
            guard let number = Self.number(digits) else {
                throw VideoError(
                    .ambiguousFrames, path: path,
                    reason: "\(name): frame number \(digits) is larger than \(SamplingLimits.largestFrameNumber)")
            }
            frames.append((number, name))
        }
        guard !frames.isEmpty else {
            throw VideoError(.noFrames, path: path, reason: "no numbered frames (1.jpg, 2.jpg, …) in the folder")
        }
        frames.sort { ($0.number, $0.name) < ($1.number, $1.name) }
        for (earlier, later) in zip(frames, frames.dropFirst()) where earlier.number == later.number {
            throw VideoError(
                .ambiguousFrames, path: path,
                reason: "\(earlier.name) and \(later.name) both have frame number \(later.number); keep one of them")
        }
        self.path = path
        self.framePaths = frames.map { path + "/" + $0.name }
        self.frameNumbers = frames.map(\.number)
        self.firstNumber = frames[0].number == 0 ? 0 : 1
        self.ignoredFiles = ignored.sorted()
        self.unreadableEntries = walk.unreadable
        self.interval = interval
        self.framesPerSecond = framesPerSecond
        self.load = load
        self.onSkip = onSkip
    }

    /// A frame number's value, or nil above `SamplingLimits.largestFrameNumber` (digits without leading zeros).
    static func number(_ digits: String) -> Int? {
        guard digits.count <= String(SamplingLimits.largestFrameNumber).count, let value = Int(digits),
            value <= SamplingLimits.largestFrameNumber
        else { return nil }
        return value
    }

    /// The digits that number a frame file, without leading zeros ("0" for all zeros); nil if the file is not a
    /// frame (hidden, wrong extension, or no digits).
    static func frameNumber(of name: String) -> String? {
        guard !name.hasPrefix(".") else { return nil }
        let url = URL(fileURLWithPath: name)
        guard ["jpg", "jpeg", "png"].contains(url.pathExtension.lowercased()) else { return nil }
        let stem = url.deletingPathExtension().lastPathComponent
        guard let lastDigit = stem.lastIndex(where: \.isASCIIDigitCharacter) else { return nil }
        var start = lastDigit
        while start > stem.startIndex, stem[stem.index(before: start)].isASCIIDigitCharacter {
            start = stem.index(before: start)
        }
        let digits = stem[start...lastDigit].drop { $0 == "0" }
        return digits.isEmpty ? "0" : String(digits)
    }

    /// One per numbered file; the count includes files that will turn out unreadable.
    public var expectedFrameCount: Int? { framePaths.count }

    /// Time of the frame numbered `number`. Divides by the rate rather than multiplying by its reciprocal, so whole
    /// seconds stay whole (3 / 3 is exactly 1; 3 · (1/3) need not be) and markers land on the right key.
    public func second(ofNumber number: Int) -> Double {
        let slot = Double(number - firstNumber)
        if let framesPerSecond { return slot / framesPerSecond }
        return slot * interval
    }

    /// The next readable frame, skipping (and reporting) unreadable ones. Throws `.noFrames` at the end when no
    /// frame at all could be read.
    public func nextFrame() throws(VideoError) -> Frame? {
        while !closed, nextRank < framePaths.count {
            let rank = nextRank
            nextRank += 1
            let second = second(ofNumber: frameNumbers[rank])
            do {
                let image = try load(framePaths[rank])
                yielded += 1
                return Frame(index: rank, second: second, image: image, isNetworkInput: false)
            } catch {
                let skipped = SkippedFrame(index: rank, second: second, error: error)
                skippedFrames.append(skipped)
                onSkip?(skipped)
            }
        }
        if !closed, yielded == 0 {
            closed = true
            throw VideoError(
                .noFrames, path: path,
                reason: "none of the \(framePaths.count) frames could be read (first: \(skippedFrames.first.map { $0.error.description } ?? "?"))")
        }
        return nil
    }

    /// Nothing to release; further calls to `nextFrame()` return nil.
    public func close() { closed = true }
}

extension Character {
    /// Exactly one of 0…9. A range test on Character would also admit a digit carrying a combining mark ("1\u{301}"),
    /// which sorts between "0" and "9" but is not a digit.
    fileprivate var isASCIIDigitCharacter: Bool { asciiValue.map { (0x30...0x39).contains($0) } ?? false }
}
