/// The info banner's rules: when it goes up, for how long, and that it follows flips. A pure
/// value driven by the player (Player+Overlays.swift), which renders and times what it returns.
///
/// A flip takes the banner down at once (it names the old channel); the completed flip brings it
/// up for the new channel for the after-flip time, or until dismissed when it was up and held
/// before the flip and no after-flip time is set. It comes back short: the long form (`i` a
/// second time, the programme's description) is for the channel it was asked on.
public struct BannerMachine: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Render the banner for `channel` (replacing a render under way) and put it up; take it
        /// down after `hold` (nil: until dismissed). `long`: the long form.
        case present(channel: Int, hold: Duration?, long: Bool)
        /// Take it down and stop any render or hold under way.
        case takeDown
    }

    /// How long the banner stays after a completed flip; zero: it does not come up after flips.
    public var afterFlip: Duration
    /// Up, or on its way up.
    public private(set) var shown = false
    /// Up in its long form.
    public private(set) var long = false
    /// It was up when a flip started: it comes back with the new channel.
    private var resume = false

    public init(afterFlip: Duration) {
        self.afterFlip = afterFlip
    }

    /// Shows it for `channel`, for `hold` (nil or zero: until dismissed); `long`: the long form.
    public mutating func show(channel: Int, hold: Duration?, long: Bool = false) -> [Action] {
        shown = true
        self.long = long
        return [.present(channel: channel, hold: hold.flatMap { $0 > .zero ? $0 : nil }, long: long)]
    }

    /// The info key: shows the short form; pressed while it is up, the long form (for `hold`
    /// again) when `longHasMore` (the programme has a description), else takes it down; pressed
    /// on the long form, takes it down.
    public mutating func cycle(channel: Int, hold: Duration?, longHasMore: Bool) -> [Action] {
        if !shown { return show(channel: channel, hold: hold) }
        if !long && longHasMore { return show(channel: channel, hold: hold, long: true) }
        return hide()
    }

    /// Takes it down (a key, the API); a flip under way will not bring it back.
    public mutating func hide() -> [Action] {
        shown = false
        long = false
        resume = false
        return [.takeDown]
    }

    /// A flip starts.
    public mutating func flipStarted() -> [Action] {
        if shown { resume = true }
        shown = false
        long = false
        return [.takeDown]
    }

    /// A flip completed on `channel`.
    public mutating func flipCompleted(channel: Int) -> [Action] {
        defer { resume = false }
        if afterFlip > .zero { return show(channel: channel, hold: afterFlip) }
        if resume { return show(channel: channel, hold: nil) }
        return []
    }

    /// The render could not be made: it is not up.
    public mutating func renderFailed() {
        shown = false
        long = false
    }

    /// Its time on screen ended.
    public mutating func holdEnded() -> [Action] {
        shown = false
        long = false
        return [.takeDown]
    }
}
