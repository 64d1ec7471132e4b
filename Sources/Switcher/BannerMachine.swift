/// The info banner's rules: when it goes up, for how long, and that it follows flips. A pure
/// value driven by the player (Player+Overlays.swift), which renders and times what it returns.
///
/// A flip takes the banner down at once (it names the old channel); the completed flip brings it
/// up for the new channel for the after-flip time, or until dismissed when it was up and held
/// before the flip and no after-flip time is set.
struct BannerMachine: Sendable, Hashable {
    enum Action: Sendable, Hashable {
        /// Render the banner for `channel` (replacing a render under way) and put it up; take it
        /// down after `hold` (nil: until dismissed).
        case present(channel: Int, hold: Duration?)
        /// Take it down and stop any render or hold under way.
        case takeDown
    }

    /// How long the banner stays after a completed flip; zero: it does not come up after flips.
    var afterFlip: Duration
    /// Up, or on its way up.
    private(set) var shown = false
    /// It was up when a flip started: it comes back with the new channel.
    private var resume = false

    init(afterFlip: Duration) {
        self.afterFlip = afterFlip
    }

    /// Shows it for `channel`, for `hold` (nil or zero: until dismissed).
    mutating func show(channel: Int, hold: Duration?) -> [Action] {
        shown = true
        return [.present(channel: channel, hold: hold.flatMap { $0 > .zero ? $0 : nil })]
    }

    /// Takes it down (a key, the API); a flip under way will not bring it back.
    mutating func hide() -> [Action] {
        shown = false
        resume = false
        return [.takeDown]
    }

    /// A flip starts.
    mutating func flipStarted() -> [Action] {
        if shown { resume = true }
        shown = false
        return [.takeDown]
    }

    /// A flip completed on `channel`.
    mutating func flipCompleted(channel: Int) -> [Action] {
        defer { resume = false }
        if afterFlip > .zero { return show(channel: channel, hold: afterFlip) }
        if resume { return show(channel: channel, hold: nil) }
        return []
    }

    /// The render could not be made: it is not up.
    mutating func renderFailed() {
        shown = false
    }

    /// Its time on screen ended.
    mutating func holdEnded() -> [Action] {
        shown = false
        return [.takeDown]
    }
}
