import Dispatch
import GStreamer
import Lineup
import Logging

/// Channel logos as overlays for the output (which keeps each one made and puts it on the
/// channel's feeds: `OutputPipeline.expect(feed:token:channel:)`), decoded once per channel and placed by the
/// player's `LogoPlacement` with the channel's `LogoStyle` over it. A missing or unreadable
/// logo is reported once; the channel plays without. A channel whose style turns the logo off
/// has none.
///
/// Decoding blocks (a GStreamer pipeline per image), so it runs on a thread of its own, never on
/// the cooperative pool or the media thread. Concurrent requests for one channel share one decode.
public actor LogoOverlays {
    private let placement: LogoPlacement
    private let width: Int
    private let height: Int
    private let cache: LogoCache
    private let logger: Logger
    private var overlays: [String: Task<Overlay?, Never>] = [:]

    public init(placement: LogoPlacement, width: Int, height: Int, cache: LogoCache, logger: Logger) {
        self.placement = placement
        self.width = width
        self.height = height
        self.cache = cache
        self.logger = logger
    }

    /// The logo overlay of `channel`, or nil when it has none, turns it off, or it cannot be read.
    public func overlay(for channel: Channel) async -> Overlay? {
        if let known = overlays[channel.id] { return await known.value }
        let task = Task { await self.make(channel) }
        overlays[channel.id] = task
        return await task.value
    }

    /// Forgets the logos of the channels `ids` (their logo changed): made again when next asked.
    public func forget(_ ids: Set<String>) {
        for id in ids { overlays[id] = nil }
    }

    /// Where `channel`'s logo goes, nil when it has none to show.
    public nonisolated func placement(for channel: Channel) -> LogoPlacement? {
        guard channel.logo != nil else { return nil }
        return placement.styled(channel.logoStyle)
    }

    private nonisolated func make(_ channel: Channel) async -> Overlay? {
        guard let logo = channel.logo, let placed = placement(for: channel) else { return nil }
        do {
            let path = try await cache.localPath(for: logo)
            let box = placed.box(width: width, height: height)
            let image = try await Self.decode(path, maxWidth: box.width, maxHeight: box.height)
            let origin = placed.origin(logoWidth: image.width, logoHeight: image.height, width: width, height: height)
            return Overlay(image: image, x: origin.x, y: origin.y, opacity: placed.opacity)
        } catch {
            logger.warning("channel \(channel.number) \(channel.name): logo \(logo) not shown: \(error)")
            return nil
        }
    }

    /// `ImageCodec.decode(file:maxWidth:maxHeight:)` on the still-image thread.
    static func decode(_ path: String, maxWidth: Int, maxHeight: Int) async throws -> BGRAImage {
        try await StillImageExecutor.shared.perform {
            Result { try ImageCodec.decode(file: path, maxWidth: maxWidth, maxHeight: maxHeight) }
        }.get()
    }
}
