/// How often the box connects to a pool's server on its own: the connections nobody waits for
/// (a warm channel reconnecting after a failure, a stall, a refusal or a stream the server ended;
/// warm channels started when no viewer flipped lately) are at most `perWindow` in any
/// `window` in a pool with a limit (an IPTV account bans for less; the head-end does not hold a
/// pool whose limit is unknown to an allowance: a server blip must not leave a 64-channel lineup
/// of a local server cold for ten minutes), and none while the server asked to be left alone
/// (its `Retry-After`). The viewer's
/// own connections (the channel flipped to, a client's) and the warm channels a flip's new plan
/// starts go at once: they are bounded by the viewer's flips and the plan's hysteresis, and
/// counted, not held. Pure: instants in, instants out.
public struct PoolAttempts: Sendable, Hashable {
    public typealias Instant = ContinuousClock.Instant

    public static let perWindow = 6
    /// The most attempts remembered (the widest allowance a caller may ask for).
    public static let remembered = 256
    public static let window: Duration = .seconds(60)

    /// The background attempts within the last window, oldest first (at most `remembered`).
    public private(set) var recent: [Instant] = []
    /// Until when the server asked to be left alone.
    public private(set) var quietUntil: Instant?

    public init() {}

    /// When a background attempt may go: nil now; else the first instant it may.
    public func nextBackground(at now: Instant, perWindow: Int = Self.perWindow) -> Instant? {
        var wait: Instant?
        if let quiet = quietAfter(now) { wait = quiet }
        let inWindow = recent.filter { now - $0 < Self.window }
        if inWindow.count >= perWindow, let oldest = inWindow.suffix(perWindow).first {
            let free = oldest + Self.window
            wait = max(wait ?? free, free)
        }
        return wait
    }

    /// When a warm channel a flip's plan starts may go: nil now; else when the server's quiet ends.
    public func quietAfter(_ now: Instant) -> Instant? {
        quietUntil.flatMap { $0 > now ? $0 : nil }
    }

    /// A background attempt went at `now`.
    public mutating func attempted(at now: Instant) {
        recent.removeAll { now - $0 >= Self.window }
        recent.append(now)
        if recent.count > Self.remembered { recent.removeFirst(recent.count - Self.remembered) }
    }

    /// The server asked for no attempt before `until` (later requests extend it, never shorten it).
    public mutating func quiet(until: Instant) {
        quietUntil = max(quietUntil ?? until, until)
    }
}
