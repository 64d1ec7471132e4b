/// How late a decoder gave out the frames and the sound of a feed, against when they were due
/// (its pipeline's clock against their timestamps), in milliseconds, in the order they left:
/// the first `kept` of each. A frame on time leaves within a millisecond of being due; the
/// difference between the sound's lateness and the picture's is how far the sound is behind
/// the picture it belongs to (lip sync: the output adds the same delay to every frame after).
public struct PlayoutLateness: Sendable {
    public private(set) var video: [Double] = []
    public private(set) var audio: [Double] = []
    /// How long the decoder held what follows its first keyframe back, in milliseconds, so that
    /// the channel's data comes in time (`DeliveryLag`): the keyframe's picture stands still,
    /// and the sound starts, that much later.
    public internal(set) var heldMs: Double = 0
    static let kept = 600

    mutating func note(_ nanoseconds: Int64, video isVideo: Bool) {
        let ms = Double(nanoseconds) / 1e6
        if isVideo { if video.count < Self.kept { video.append(ms) } } else if audio.count < Self.kept { audio.append(ms) }
    }

    /// The sound's lateness minus the picture's (medians; positive: the sound is behind), once
    /// both have some.
    public var soundBehindPicture: Double? {
        guard let v = Self.median(video), let a = Self.median(audio) else { return nil }
        return a - v
    }

    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[values.count / 2]
    }
}
