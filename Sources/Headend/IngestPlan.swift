import Foundation
import GStreamer
import Lineup

/// How a channel source URL becomes an ingest pipeline: demux and parse, no decoding.
///
/// Static plans name their appsinks `video` and `audio`; dynamic plans end in a `parsebin`
/// (or `urisourcebin`) whose pads are routed by `IngestBranch`.
struct IngestPlan: Sendable {
    enum Setup: Sendable {
        case property(element: String, name: String, value: String)
    }
    /// Pipeline description: only constants and numbers, never user text.
    var description: String
    /// Properties set after parsing (URIs, paths, labels): user text goes here.
    var setup: [Setup]
    /// Element whose pads are routed dynamically (`parse` or `src`); nil when static.
    var dynamicElement: String?
    /// When the pads of `dynamicElement` are raw source pads that need a parsebin each.
    var needsParsebin: Bool
    /// Looped file: pace at real time and seek back at the end.
    var loops: Bool
    /// A looped file whose demuxer takes segment seeks, so its end loops back without a flush.
    /// MPEG-TS does not (`tsdemux` refuses the segment flag, and the refused seek leaves it
    /// stopped): it loops by a flushing seek at its end.
    var loopsBySegments = true
    /// Whether data reaches the cache at real time or as it comes.
    var pacing: IngestPacing

    init(description: String, setup: [Setup], dynamicElement: String?, needsParsebin: Bool, loops: Bool, pacing: IngestPacing? = nil) {
        self.description = description
        self.setup = setup
        self.dynamicElement = dynamicElement
        self.needsParsebin = needsParsebin
        self.loops = loops
        // A looped file is paced; one without a length (a FIFO, a recording still growing)
        // is read as it is written.
        self.pacing = pacing ?? (loops ? .realTimeWithALength : .asItArrives)
    }

    static func make(for url: String, lineupDirectory: String? = nil) throws -> IngestPlan {
        guard let scheme = SourceScheme(url: url) else {
            // A bare path: a local file.
            return filePlan(path: url)
        }
        switch scheme {
        case .test:
            return try testPlan(TestSourceSpec(url: url))
        case .file:
            let path = URL(string: url)?.path ?? String(url.dropFirst("file://".count))
            return filePlan(path: path)
        case .udp:
            return IngestPlan(
                description: "udpsrc name=src buffer-size=4194304 ! parsebin name=parse",
                setup: [.property(element: "src", name: "uri", value: normalizedUDP(url))],
                dynamicElement: "parse", needsParsebin: false, loops: false)
        case .rtp:
            let udp = normalizedUDP(url.replacingOccurrences(of: "rtp://", with: "udp://", options: .anchored))
            return IngestPlan(
                description: "udpsrc name=src buffer-size=4194304 caps=\"application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)MP2T\" ! rtpjitterbuffer latency=100 ! rtpmp2tdepay ! parsebin name=parse",
                setup: [.property(element: "src", name: "uri", value: udp)],
                dynamicElement: "parse", needsParsebin: false, loops: false)
        case .http where isHLSPlaylist(url), .https where isHLSPlaylist(url):
            // HLS is read by `hlsdemux` under our own HTTP source, not by `urisourcebin`: 1.22's
            // urisourcebin plugs `hlsdemux2`, which writes into a freed request when an HTTP
            // request fails (docs/reliability.md, "HTTP, HLS and PID changes"), and it refuses
            // the older `hlsdemux`. Each `src_%u` pad of the demuxer carries one variant's
            // segments (MPEG-TS, or elementary audio) and gets a parsebin, as urisourcebin's do.
            return IngestPlan(
                description: "souphttpsrc name=src retries=3 timeout=10 ! hlsdemux name=hls",
                setup: [.property(element: "src", name: "location", value: url)],
                dynamicElement: "hls", needsParsebin: true, loops: false, pacing: .realTime)
        case .http, .https:
            // A progressive file or a VOD/event HLS list arrives far faster than real time and
            // ends at once; paced, it plays like a live channel (and reconnects at its end).
            return IngestPlan(
                description: "urisourcebin name=src",
                setup: [.property(element: "src", name: "uri", value: url)],
                dynamicElement: "src", needsParsebin: true, loops: false, pacing: .realTimeWithALength)
        case .rtsp, .rtsps, .srt:
            return IngestPlan(
                description: "urisourcebin name=src",
                setup: [.property(element: "src", name: "uri", value: url)],
                dynamicElement: "src", needsParsebin: true, loops: false)
        }
    }

    /// Whether an HTTP URL names an HLS playlist: its path ends in `.m3u8` (how providers and
    /// iptv-org lists name them). Other HTTP URLs go to `urisourcebin`, which finds out by the
    /// bytes.
    static func isHLSPlaylist(_ url: String) -> Bool {
        let path = URLComponents(string: url)?.path ?? url
        return path.lowercased().hasSuffix(".m3u8")
    }

    /// `udp://@239.0.0.1:1234` (VLC style) -> `udp://239.0.0.1:1234`; `udp://@:1234` -> all interfaces.
    static func normalizedUDP(_ url: String) -> String {
        var rest = String(url.dropFirst("udp://".count))
        if rest.hasPrefix("@") { rest.removeFirst() }
        if rest.hasPrefix(":") { rest = "0.0.0.0" + rest }
        if let q = rest.firstIndex(of: "?") { rest = String(rest[..<q]) }
        return "udp://" + rest
    }

    /// A recording played back: its bytes pushed from a `RecordingFileReader` (from an offset,
    /// following a file still being written), paced at real time, played once.
    static let recordingPlan = IngestPlan(
        description: "appsrc name=src format=bytes block=true max-bytes=\(RecordingFileReader.maxQueuedBytes) ! parsebin name=parse",
        setup: [], dynamicElement: "parse", needsParsebin: false, loops: false, pacing: .realTime)

    static func filePlan(path: String) -> IngestPlan {
        var plan = IngestPlan(description: "filesrc name=src ! parsebin name=parse",
                              setup: [.property(element: "src", name: "location", value: path)],
                              dynamicElement: "parse", needsParsebin: false, loops: true)
        plan.loopsBySegments = !isTransportStream(path: path)
        return plan
    }

    /// Whether the file at `path` is MPEG-TS: the sync byte 0x47 at the start of its first three
    /// 188-byte packets (or 192-byte ones, as M2TS has them after a 4-byte time code).
    static func isTransportStream(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 3 * 192 + 4)) ?? Data())
        func synced(_ size: Int, _ offset: Int) -> Bool {
            (0..<3).allSatisfy { offset + $0 * size < head.count && head[offset + $0 * size] == 0x47 }
        }
        return synced(188, 0) || synced(192, 4)
    }

    /// The raw picture a synthetic channel's encoder gets, as a broadcaster's: 4:2:0, 8 bits, the
    /// colours of its size (BT.601 up to 576 lines, BT.709 above), which the encoder writes into
    /// the stream. Left to choose, `x264enc` takes the first input format it supports (4:4:4 at
    /// 10 bits, High 4:4:4 Predictive), which no TV, phone, browser or hardware decoder plays.
    static func broadcastPicture(height: Int) -> String {
        "video/x-raw,format=I420,colorimetry=\(height <= 576 ? "bt601" : "bt709")"
    }

    static func testPlan(_ spec: TestSourceSpec) -> IngestPlan {
        let pattern: String
        var extra = ""
        switch spec.pattern {
        case .smpte: pattern = "smpte"
        case .ball: pattern = "ball"
        case .snow: pattern = "snow"
        case .gradient: pattern = "gradient"
        case .checkers: pattern = "checkers-8"
        case .color:
            pattern = "solid-color"
            extra = " foreground-color=\(0xFF00_0000 | (spec.color?.rgb ?? 0))"
        }
        var video = "videotestsrc name=vsrc is-live=true pattern=\(pattern)\(extra) ! video/x-raw,width=\(spec.width),height=\(spec.height),framerate=\(spec.fps)/1"
        var setup: [Setup] = []
        if let label = spec.label, !label.isEmpty {
            video += " ! textoverlay name=label valignment=center halignment=center font-desc=\"Sans Bold 36\" shaded-background=true"
            setup.append(.property(element: "label", name: "text", value: label))
        }
        video += " ! videoconvert ! \(Self.broadcastPicture(height: spec.height))"
            + " ! x264enc tune=zerolatency speed-preset=ultrafast cabac=true dct8x8=true key-int-max=\(spec.gop) bitrate=\(spec.bitrateKbps)"
            + " ! video/x-h264,profile=high ! h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au ! appsink name=video sync=false"
        var description = video
        if let tone = spec.toneHz {
            description += " audiotestsrc is-live=true wave=sine freq=\(tone) volume=\(spec.volume) samplesperbuffer=1024 ! audio/x-raw,rate=48000,channels=2 ! audioconvert ! avenc_aac bitrate=96000 ! aacparse ! appsink name=audio sync=false"
        }
        return IngestPlan(description: description, setup: setup, dynamicElement: nil, needsParsebin: false, loops: false)
    }
}

/// What to attach to a demuxed, parsed stream pad.
enum IngestBranch {
    case video(String)
    case audio(String)
    /// A subtitle stream: DVB (`subpicture/x-dvb`) or teletext (`application/x-teletext`).
    case subtitle(String)
    case discard

    /// Audio streams kept per channel (languages, audio description); more go to a fakesink.
    static let maxAudioStreams = 8
    /// Subtitle streams kept per channel (languages, hard of hearing); more go to a fakesink.
    static let maxSubtitleStreams = 8

    /// Chooses by caps: the first video stream and up to `maxAudioStreams` audio streams are
    /// kept, and up to `maxSubtitleStreams` DVB subtitle and teletext streams; `audioStreams` and
    /// `subtitleStreams` say how many are kept already.
    static func choose(mediaType: String, haveVideo: Bool, audioStreams: Int, subtitleStreams: Int = 0, paced: Bool) -> IngestBranch {
        // A paced (looped file or HTTP) ingest syncs each appsink on the clock and one demuxer
        // thread feeds them all, so each branch gets its own queue (its own thread) or the first
        // sink to wait would starve the rest. Live ingests need no queue (one thread fewer per
        // stream) and do not preroll at all (`async=false`): a sink added after the pipeline
        // reached PLAYING would otherwise sometimes wait for a preroll that never completes, and
        // the channel would stay silent.
        let sink = (paced ? "queue max-size-buffers=0 max-size-bytes=0 max-size-time=3000000000 ! " : "")
            + "appsink sync=\(paced) async=\(paced) max-buffers=0 emit-signals=false"
        if mediaType.hasPrefix("video/") && !haveVideo {
            switch mediaType {
            case "video/x-h264":
                return .video("h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au ! \(sink) name=video")
            case "video/x-h265":
                return .video("h265parse config-interval=-1 ! video/x-h265,stream-format=byte-stream,alignment=au ! \(sink) name=video")
            default:
                return .video("\(sink) name=video")
            }
        }
        if mediaType.hasPrefix("audio/") && audioStreams < maxAudioStreams {
            return .audio("\(sink) name=audio")
        }
        if isSubtitles(mediaType) && subtitleStreams < maxSubtitleStreams {
            return .subtitle("\(sink) name=subtitle")
        }
        return .discard
    }
}

extension IngestBranch {
    /// Whether streams of `mediaType` are subtitles the ingest keeps: DVB subtitles or teletext.
    static func isSubtitles(_ mediaType: String) -> Bool {
        mediaType == "subpicture/x-dvb" || mediaType == GOPCache.teletextMediaType
    }
}

/// Whether an ingest hands data to the cache at real time (its appsinks sync on the clock) or
/// as fast as it comes.
enum IngestPacing: Sendable, Equatable {
    /// As it arrives: a source that sends in real time by itself (UDP, RTP, RTSP, SRT).
    case asItArrives
    /// At real time, always: HLS, whose segments come in bursts of several seconds whether the
    /// list is live or not.
    case realTime
    /// At real time when the source has a length (a looped file; over HTTP a progressive file or
    /// a VOD list, which the server would hand over at once); as it arrives when it has none (a
    /// live HTTP stream, an IPTV feed, another Flipbox's `/stream/N.ts`: a head-end's burst of
    /// its cached GOP then fills the cache at once instead of a GOP late).
    case realTimeWithALength

    /// Whether a source whose first stream does or does not have a known length is paced.
    func paces(hasKnownLength: Bool) -> Bool {
        switch self {
        case .asItArrives: false
        case .realTime: true
        case .realTimeWithALength: hasKnownLength
        }
    }
}
