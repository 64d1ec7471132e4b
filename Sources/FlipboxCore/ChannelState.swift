/// What a channel's source is doing right now, with a reason where it is not fine.
///
/// The API reports `tier` (`cold`, `warm`, `hot`, `stalled`, `failed`) and `detail`.
public enum ChannelState: Sendable, Hashable, CustomStringConvertible {
    /// Nothing running.
    case cold
    /// Nothing running although the warm policy asked for it: the warm budget holds it cold,
    /// or its keyframe interval is too long to cache. The reason says which.
    case parked(reason: String)
    /// Source started, no keyframe cached yet.
    case connecting
    /// Source delivering; compressed data since the last keyframe is cached; not decoding.
    case warm
    /// Decoding (the channel on screen).
    case hot
    /// The source stopped delivering; being retried.
    case stalled(reason: String)
    /// The source could not be played; retried later with backoff.
    case failed(error: String)

    /// The coarse state the API reports.
    public enum Tier: String, Sendable, Hashable, Codable {
        case cold, warm, hot, stalled, failed

        /// A picture can be had at once (a keyframe is cached or decoding).
        public var hasPicture: Bool { self == .warm || self == .hot }
    }

    /// The coarse state: `cold`, `warm`, `hot`, `stalled`, `failed`.
    public var tier: Tier {
        switch self {
        case .cold, .connecting, .parked: .cold
        case .warm: .warm
        case .hot: .hot
        case .stalled: .stalled
        case .failed: .failed
        }
    }

    /// The fine state (`connecting`, `warm`, ...) and its reason, for people.
    public var description: String {
        switch self {
        case .cold: "cold"
        case .connecting: "connecting"
        case .parked(let reason): "cold: \(reason)"
        case .warm: "warm"
        case .hot: "playing"
        case .stalled(let reason): "stalled: \(reason)"
        case .failed(let error): "failed: \(error)"
        }
    }

    /// A short reason for `parked`/`stalled`/`failed`, nil otherwise.
    public var reason: String? {
        switch self {
        case .parked(let reason): reason
        case .stalled(let reason): reason
        case .failed(let error): error
        default: nil
        }
    }
}
