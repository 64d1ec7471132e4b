import Foundation

/// What a media file or URL holds, as libavformat reads it: the container, its programs,
/// streams (codecs, picture and sound formats, colour and HDR metadata), chapters and tags.
/// Times are seconds; absent values are nil (JSON leaves them out).
public struct MediaInfo: Codable, Sendable, Equatable {
    /// The file or URL probed.
    public var source: String
    /// The demuxer's short name(s), e.g. `mov,mp4,m4a,3gp,3g2,mj2`, `mpegts`, `matroska,webm`.
    public var container: String
    public var containerName: String
    public var duration: Double?
    public var startTime: Double?
    /// The container's overall bitrate, bits per second.
    public var bitrate: Int?
    public var tags: [String: String]
    public var programs: [Program]
    public var streams: [Stream]
    public var chapters: [Chapter]
    /// Stream time sampled for keyframe intervals, seconds.
    public var sampledSeconds: Double

    public init(source: String, container: String, containerName: String, duration: Double? = nil, startTime: Double? = nil,
                bitrate: Int? = nil, tags: [String: String] = [:], programs: [Program] = [], streams: [Stream] = [],
                chapters: [Chapter] = [], sampledSeconds: Double = 0) {
        self.source = source
        self.container = container
        self.containerName = containerName
        self.duration = duration
        self.startTime = startTime
        self.bitrate = bitrate
        self.tags = tags
        self.programs = programs
        self.streams = streams
        self.chapters = chapters
        self.sampledSeconds = sampledSeconds
    }

    /// A program of a transport stream (a service): its number and the streams in it.
    public struct Program: Codable, Sendable, Equatable {
        public var number: Int
        public var streams: [Int]
        public var tags: [String: String]
    }

    public enum Kind: String, Codable, Sendable { case video, audio, subtitle, data, attachment, unknown }

    /// One elementary stream.
    public struct Stream: Codable, Sendable, Equatable {
        public var index: Int
        /// The container's id for it (an MPEG-TS PID, a Matroska track number).
        public var id: Int?
        public var kind: Kind
        /// libavcodec's short name (`h264`, `hevc`, `mpeg2video`, `aac`) and long one.
        public var codec: String
        public var codecName: String?
        public var profile: String?
        public var level: Int?
        public var bitrate: Int?
        public var language: String?
        public var isDefault: Bool
        public var tags: [String: String]
        public var video: Video?
        public var audio: Audio?
        /// Mean distance between keyframes in the sampled packets (video), seconds.
        public var keyframeInterval: Double?
        public var keyframesSampled: Int?
    }

    public struct Video: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Frames per second (the average the container states, else the stream's base rate).
        public var frameRate: Double?
        public var pixelFormat: String?
        public var bitDepth: Int?
        /// `progressive`, `top-first`, `bottom-first`, `top-coded-bottom-first`, `bottom-coded-top-first`; nil when unknown.
        public var fieldOrder: String?
        public var colorPrimaries: String?
        public var colorTransfer: String?
        public var colorMatrix: String?
        /// `tv` (limited) or `pc` (full).
        public var colorRange: String?
        /// `PQ` (HDR10, SMPTE ST 2084) or `HLG` (ARIB STD-B67) from the transfer; nil for SDR.
        public var dynamicRange: String?
        public var hdr: HDRMetadata?
    }

    public struct Audio: Codable, Sendable, Equatable {
        public var sampleRate: Int
        public var channels: Int
        public var channelLayout: String?
    }

    /// Mastering display colour volume (SMPTE ST 2086) and content light level (CTA-861.3).
    public struct HDRMetadata: Codable, Sendable, Equatable {
        /// Chromaticities (x, y) of red, green, blue and the white point.
        public var primaries: [[Double]]?
        /// Mastering display luminance, cd/m².
        public var minLuminance: Double?
        public var maxLuminance: Double?
        /// Maximum content and frame-average light level, cd/m².
        public var maxCLL: Int?
        public var maxFALL: Int?
        /// Where it was found: `container` or `bitstream` (SEI of the first frame).
        public var from: String
    }

    public var videoStreams: [Stream] { streams.filter { $0.kind == .video } }
    public var audioStreams: [Stream] { streams.filter { $0.kind == .audio } }
}

/// A chapter of a file: a navigation marker.
public struct Chapter: Codable, Sendable, Equatable {
    /// Seconds from the start of the file.
    public var start: Double
    public var end: Double
    public var title: String?

    public init(start: Double, end: Double, title: String?) {
        self.start = start
        self.end = end
        self.title = title
    }
}
