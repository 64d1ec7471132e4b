import GStreamer
import Lineup

/// What a channel carries, as its ingest found it: for the API and the box's status.
public struct ChannelMedia: Sendable, Hashable {
    public struct Video: Sendable, Hashable {
        public var family: VideoFamily
        /// The stream's media type (`video/x-h264`).
        public var mediaType: String
        public var width: Int?
        public var height: Int?
        public var framesPerSecond: Double?
        /// Interlaced (or mixed): deinterlaced for the output.
        public var interlaced: Bool
        /// The stream's colours; `assumed` when the stream does not say (then by its size).
        public var colour: Colorimetry

        public init(family: VideoFamily, mediaType: String, width: Int?, height: Int?, framesPerSecond: Double?,
                    interlaced: Bool, colour: Colorimetry) {
            self.family = family
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
            self.interlaced = interlaced
            self.colour = colour
        }
    }

    /// Nil for a radio channel, and until the first keyframe's format is known.
    public var video: Video?
    public var audio: AudioState
    /// No video stream at all (radio).
    public var radio: Bool
    /// Its DVB subtitle streams and closed captions, and the one shown.
    public var subtitles = SubtitleState(tracks: [], showing: nil)

    public init(video: Video?, audio: AudioState, radio: Bool, subtitles: SubtitleState = SubtitleState(tracks: [], showing: nil)) {
        self.video = video
        self.audio = audio
        self.radio = radio
        self.subtitles = subtitles
    }
}

extension Caps {
    /// Whether compressed video of these caps (a parser's) is coded as fields: mpegvideoparse
    /// says `interlace-mode`; h264parse and h265parse say `coded-picture-structure=field`
    /// (also for MBAFF, whose SPS allows field coding).
    var describesInterlacedVideo: Bool {
        string("coded-picture-structure") == "field" || (string("interlace-mode") ?? "progressive") != "progressive"
    }
}

extension ChannelMedia.Video {
    init(caps: Caps) {
        let size = caps.int("width").flatMap { w in caps.int("height").map { (w, $0) } }
        let rate = caps.fraction("framerate").flatMap { $0.1 > 0 && $0.0 > 0 ? Double($0.0) / Double($0.1) : nil }
        self.init(family: VideoFamily(caps: caps), mediaType: caps.mediaType, width: size?.0, height: size?.1,
                  framesPerSecond: rate, interlaced: caps.describesInterlacedVideo,
                  colour: Colorimetry(caps: caps))
    }
}

extension Headend {
    /// What `channel` carries (any thread): video format, audio tracks and the one that plays,
    /// subtitle tracks and the one shown.
    public nonisolated func media(of channel: Channel) -> ChannelMedia? {
        guard let source = source(for: channel) else { return nil }
        let radio = source.cache.isAudioOnly
        return ChannelMedia(video: radio ? nil : source.cache.videoCaps.map(ChannelMedia.Video.init(caps:)),
                            audio: audio(of: channel), radio: radio, subtitles: subtitles(of: channel))
    }
}
