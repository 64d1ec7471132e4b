import FlipboxCore
import GStreamer

extension GOPCache.Entry {
    /// What a decoder's `PlayoutClock` needs of the entry; nil for subtitles (they are placed on
    /// the picture's timeline: `PlayoutClock.placeOnPicture`).
    var playoutTiming: PlayoutClock.Timing? {
        let clockTrack: PlayoutClock.Track
        switch track {
        case .video: clockTrack = .video
        case .audio: clockTrack = .audio
        case .subtitle: return nil
        }
        return PlayoutClock.Timing(track: clockTrack, pts: pts.nanoseconds, dts: dts.nanoseconds, isKeyframe: isKeyframe)
    }

    /// The entry's buffer with its timestamps shifted by `offset` (a `PlayoutClock`'s: source
    /// running time to the decoder's), never below 0.
    func retimed(by offset: Int64) -> Buffer {
        func shift(_ t: ClockTime) -> ClockTime { ClockTime(nanoseconds: PlayoutClock.shifted(t.nanoseconds, by: offset)) }
        return buffer.retimed(pts: shift(pts), dts: shift(dts))
    }
}

extension ClockTime {
    /// The time as the pure machines take it (`PlayoutClock`): signed nanoseconds, nil for
    /// `.none`.
    var nanoseconds: Int64? { isValid ? Int64(bitPattern: UInt64(self)) : nil }

    /// A time of a pure machine back in GStreamer's terms: `.none` for nil (never negative).
    init(nanoseconds: Int64?) {
        self = nanoseconds.map { ClockTime(UInt64(Swift.max(0, $0))) } ?? .none
    }
}
