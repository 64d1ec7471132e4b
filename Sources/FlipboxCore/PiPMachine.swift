/// The picture-in-picture window's rules: which channel it shows, through which decoder (feed),
/// and which tune is the one wanted when several are under way. A pure value driven by the
/// player (Player+Overlays.swift), which starts and stops decoders as it says.
///
/// Each tune gets a request number; only the newest tune's decoder is kept, so a close or a
/// newer tune while a decoder starts makes that decoder's arrival a stop. The window keeps the
/// old channel's picture until the new decoder's first frame, never black.
public struct PiPMachine: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// The window shows this feed's frames.
        case show(feed: FeedID)
        /// Stop this feed's decoder.
        case stop(feed: FeedID)
        /// Take the window off the screen.
        case closeWindow
    }

    /// Where the window is and how big.
    public var placement = PictureInPicturePlacement()
    /// The channel the window shows (its decoder running); nil when closed.
    public private(set) var channel: Int?
    /// The decoder of `channel`.
    public private(set) var feed: FeedID?
    /// A tune under way.
    public struct Tune: Sendable, Hashable {
        public var request: Int
        public var channel: Int
    }
    /// The tune under way.
    public private(set) var pending: Tune?
    private var requests = 0

    /// Open: a channel's decoder runs in the window.
    public init() {}

    public var isOpen: Bool { feed != nil }

    /// Tunes the window to `channel` (it opens if closed): the caller starts a decoder for it
    /// and reports it under the returned request with `activated` or `failed`.
    public mutating func tune(_ channel: Int) -> Int {
        requests += 1
        pending = Tune(request: requests, channel: channel)
        return requests
    }

    /// The decoder of tune `request` runs as `feed`.
    public mutating func activated(request: Int, feed newFeed: FeedID) -> [Action] {
        guard let wanted = pending, wanted.request == request else {
            // Closed or retuned meanwhile: this decoder is not wanted.
            if let feed { return [.show(feed: feed), .stop(feed: newFeed)] }
            return [.closeWindow, .stop(feed: newFeed)]
        }
        pending = nil
        let old = feed
        feed = newFeed
        channel = wanted.channel
        // The newest tune wins, whatever order the decoders started in.
        return [.show(feed: newFeed)] + (old.map { [.stop(feed: $0)] } ?? [])
    }

    /// The decoder of tune `request` could not start: the window keeps what it showed.
    public mutating func failed(request: Int) -> [Action] {
        guard pending?.request == request else { return [] }
        pending = nil
        if let feed { return [.show(feed: feed)] }
        return [.closeWindow]
    }

    /// Closes the window and stops its decoder; a tune under way will be stopped when it arrives.
    public mutating func close() -> [Action] {
        pending = nil
        defer {
            feed = nil
            channel = nil
        }
        guard let feed else { return [] }
        return [.closeWindow, .stop(feed: feed)]
    }
}
