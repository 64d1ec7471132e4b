import GStreamer

/// How late a channel's data comes, against its own timestamps: what a decoder must wait so that
/// every frame and every sound is there by the time it is due.
///
/// A live source sends each buffer some time after its timestamp, and not the same time for
/// each: a muxer sends the sound of a moment later than its picture (an MPEG-TS audio packet
/// carries several frames and goes out when it is full, 200-330 ms after its first frame in
/// ffmpeg's streams), a video frame after the frames it is reordered with (its decode time is
/// earlier than its presentation time), a network in bursts. The lag of a buffer is its arrival
/// minus its timestamp (the decode time for video, where one is known: a decoder needs a
/// frame by then to have every picture out by its presentation time); only differences between
/// lags mean anything. A decoder that starts with a buffer of lag L and plays on without waiting
/// gives out late, for as long as it plays, every buffer whose lag is larger than L: a picture
/// that moves in jerks and a sound behind it (measured before this existed: 60-160 ms late
/// pictures and 100-210 ms late sound on a flip to a channel that was not warm).
///
/// The largest lag of the last few seconds says how much later than its first buffer a decoder
/// must play so that nothing comes late. The window forgets a source that restarted or whose
/// clock jumped (a lag more than `jump` away from the last of its track starts it again).
/// Not thread-safe: the GOP cache keeps it under its lock.
struct DeliveryLag {
    /// Lags are kept in buckets of this length, and the window is `buckets` of them.
    static let bucket: Duration = .milliseconds(500)
    static let buckets = 8
    /// A change of lag larger than this is a jump in the source's clock (or a new source).
    static let jump = Int64(ClockTime.second)

    /// The arrival clock, in nanoseconds since a fixed point of this process (any will do:
    /// only differences count).
    static func nanoseconds(_ at: ContinuousClock.Instant) -> Int64 {
        let c = (at - origin).components
        return c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
    }
    private static let origin = ContinuousClock.now

    private var maxima: [(start: ContinuousClock.Instant, lag: Int64)] = []
    private var lastVideo: Int64?
    private var lastAudio: Int64?

    /// Notes a buffer with timestamp `time` (nanoseconds of the source's running time) that
    /// arrived `at`.
    mutating func record(video: Bool, time: Int64, at: ContinuousClock.Instant) {
        let lag = Self.nanoseconds(at) - time
        if let last = video ? lastVideo : lastAudio, abs(lag - last) > Self.jump { forget() }
        if video { lastVideo = lag } else { lastAudio = lag }
        if let newest = maxima.last, at - newest.start < Self.bucket {
            maxima[maxima.count - 1].lag = max(newest.lag, lag)
        } else {
            maxima.append((at, lag))
            if maxima.count > Self.buckets { maxima.removeFirst(maxima.count - Self.buckets) }
        }
    }

    /// The largest lag within the window before `now`; nil when nothing came in it.
    func largest(now: ContinuousClock.Instant) -> Int64? {
        let window = Self.bucket * Self.buckets
        return maxima.filter { now - $0.start < window }.map(\.lag).max()
    }

    mutating func forget() {
        maxima.removeAll()
        lastVideo = nil
        lastAudio = nil
    }
}
