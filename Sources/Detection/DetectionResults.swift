/// One picture's boxes.
public struct PictureDetection: Sendable {
    /// The picture as given on the command line or found in a folder.
    public var path: String
    /// The boxes, in pixels of the picture as displayed (EXIF rotation applied), highest score first.
    public var objects: [DetectedObject]
    /// The picture's size as displayed.
    public var width: Int, height: Int

    /// A picture's result from its parts.
    public init(path: String, objects: [DetectedObject], width: Int, height: Int) {
        self.path = path
        self.objects = objects
        self.width = width
        self.height = height
    }
}

/// One video's samples and clips.
public struct VideoDetection: Sendable {
    /// One sampled frame.
    public struct Sample: Sendable {
        /// Seconds from the start of the video.
        public var time: Double
        /// The boxes, in pixels of the upright frame, highest score first.
        public var objects: [DetectedObject]

        /// A sample from its parts.
        public init(time: Double, objects: [DetectedObject]) {
            self.time = time
            self.objects = objects
        }
    }

    /// A clip and the file it was written to, if clips were asked for.
    public struct Clip: Sendable {
        /// Where in the video, and why it ended.
        public var clip: PresenceClip
        /// The MP4 file (`--clips`), nil when only computed.
        public var file: String?

        /// A clip, written to `file` if not nil.
        public init(clip: PresenceClip, file: String?) {
            self.clip = clip
            self.file = file
        }
    }

    /// The video as given.
    public var path: String
    /// Every sample, in time order.
    public var samples: [Sample]
    /// The clips of the presence rule.
    public var clips: [Clip]
    /// The video's length in seconds (ffprobe's, else one interval past the last sample).
    public var duration: Double
    /// The frame size, upright.
    public var width: Int, height: Int

    /// A video's result from its parts.
    public init(path: String, samples: [Sample], clips: [Clip], duration: Double, width: Int, height: Int) {
        self.path = path
        self.samples = samples
        self.clips = clips
        self.duration = duration
        self.width = width
        self.height = height
    }
}
