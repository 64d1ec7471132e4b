import GStreamer
import Lineup

/// The kinds of video a decoder is built for. A decoder of one family follows size, profile and
/// scan changes in-band; a change of family needs a new decoder.
public enum VideoFamily: String, Sendable, Hashable, CaseIterable {
    case h264, h265, mpeg2
    /// Anything else GStreamer can decode (`decodebin` picks the decoder when data comes).
    case other
    /// No video: a radio channel.
    case none

    public init(caps: Caps?) {
        switch caps?.mediaType {
        case nil: self = .none
        case "video/x-h264": self = .h264
        case "video/x-h265": self = .h265
        case "video/mpeg" where (caps?.int("mpegversion") ?? 2) <= 2: self = .mpeg2
        default: self = .other
        }
    }

    /// The family whose streams GStreamer's parser `factory` reads (`h264parse`); nil for others.
    init?(parser factory: String) {
        switch factory {
        case "h264parse": self = .h264
        case "h265parse": self = .h265
        case "mpegvideoparse": self = .mpeg2
        default: return nil
        }
    }

    /// Parser and decoder, linked up front (decodebin would plug them only when data comes).
    var decoderChain: String? {
        switch self {
        case .h264: "h264parse ! avdec_h264 thread-type=slice"
        case .h265: "h265parse ! avdec_h265 thread-type=slice"
        case .mpeg2: "mpegvideoparse ! avdec_mpeg2video"
        case .other: "decodebin"
        case .none: nil
        }
    }

    /// For people: `H.264`, `MPEG-2`.
    public var displayName: String {
        switch self {
        case .h264: "H.264"
        case .h265: "HEVC"
        case .mpeg2: "MPEG-2"
        case .other: "other"
        case .none: "none"
        }
    }
}

/// The kinds of audio a decoder is built for (see `VideoFamily`).
public enum AudioFamily: String, Sendable, Hashable, CaseIterable {
    /// AAC in ADTS (or raw) framing.
    case aac
    /// AAC in LATM/LOAS framing (DVB-T2, some IPTV).
    case latm
    /// MPEG-1 Layer I and II (DVB's MP2).
    case mp2
    /// MPEG-1/2 Layer III.
    case mp3
    case ac3
    case eac3
    case other
    /// No audio.
    case none

    public init(caps: Caps?) {
        guard let caps else { self = .none; return }
        switch caps.mediaType {
        case "audio/mpeg":
            switch caps.int("mpegversion") ?? 1 {
            case 2, 4: self = caps.string("stream-format") == "loas" ? .latm : .aac
            default: self = (caps.int("layer") ?? 2) == 3 ? .mp3 : .mp2
            }
        case "audio/x-ac3", "audio/ac3": self = .ac3
        case "audio/x-eac3": self = .eac3
        default: self = .other
        }
    }

    /// Parser and decoder, linked up front. A channel without audio gets the AAC chain (the
    /// branch then never gets data).
    var decoderChain: String {
        switch self {
        case .aac, .none: "aacparse ! avdec_aac"
        // The ingest's parser framed it already. Another aacparse (1.22) forgets the
        // configuration of the first frame it sees and drops every frame up to the next one
        // that carries it (about 430 ms of sound after a flip).
        case .latm: "avdec_aac_latm"
        case .mp2: "mpegaudioparse ! avdec_mp2float"
        case .mp3: "mpegaudioparse ! avdec_mp3"
        case .ac3: "ac3parse ! avdec_ac3"
        case .eac3: "ac3parse ! avdec_eac3"
        case .other: "decodebin"
        }
    }

    /// The families that can reach a receiver undecoded (`DecodeTarget.passthrough`): AC-3 as
    /// it was sent, E-AC-3 re-encoded as AC-3 (IEC 61937 would carry E-AC-3 only at 192 kHz, and
    /// S/PDIF not at all).
    public static let passedThrough: Set<AudioFamily> = [.ac3, .eac3]

    /// The chain that gives whole AC-3 frames, one a buffer, for `IEC61937`: the parser for
    /// AC-3; for E-AC-3, decoding and encoding again as AC-3 (640 kb/s, up to 5.1 channels).
    var passthroughChain: String? {
        switch self {
        case .ac3: "ac3parse ! audio/x-ac3,framed=true,alignment=frame"
        case .eac3:
            "ac3parse ! avdec_eac3 ! audioconvert ! audioresample ! audio/x-raw,rate=48000 ! avenc_ac3 bitrate=640000 ! "
                + "ac3parse ! audio/x-ac3,framed=true,alignment=frame"
        default: nil
        }
    }

    /// For people: `AAC`, `AC-3`, `MPEG-1 Layer II`.
    public var displayName: String {
        switch self {
        case .aac: "AAC"
        case .latm: "AAC (LATM)"
        case .mp2: "MPEG-1 Layer II"
        case .mp3: "MP3"
        case .ac3: "AC-3"
        case .eac3: "E-AC-3"
        case .other: "other"
        case .none: "none"
        }
    }
}

extension AudioPassthrough {
    /// The audio families that reach the receiver as AC-3 (`DecodeTarget.passthrough`).
    public var families: Set<AudioFamily> {
        var set: Set<AudioFamily> = []
        if ac3 { set.insert(.ac3) }
        if eac3 { set.insert(.eac3) }
        return set
    }
}
