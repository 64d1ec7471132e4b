import Lineup
import Switcher

/// What the control surfaces (HTTP API, keys) drive. The player implements it; tests may too.
public protocol PlayerControl: Sendable {
    /// Performs a flip and returns its single result when it completed, failed or was superseded.
    func flip(_ request: FlipRequest) async -> FlipResult
    func status() async -> PlayerStatus
    func channels() async -> [ChannelStatus]
    /// The composed output frame as the display shows it, PNG-encoded, optionally scaled to `width`.
    func snapshotPNG(width: Int?) async throws -> [UInt8]
    /// A new subscription to every event from now on. Ends when the player stops.
    func events() -> AsyncStream<PlayerEvent>
    /// Shows the channel number being typed on screen (`12`), or hides it with nil.
    func showEntry(_ text: String?) async
    /// Sets which channels next/previous visit.
    func setFlipScope(_ scope: FlipScope) async
    /// Moves to the next flip scope (all → favourites → group → all) and returns it.
    func cycleFlipScope() async -> FlipScope
    /// A JPEG of a warm channel's latest keyframe, optionally scaled to `width`. Throws
    /// `ThumbnailError` (unknown channel, not warm, ...).
    func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8]
}

extension PlayerControl {
    public func showEntry(_ text: String?) async {}
    public func setFlipScope(_ scope: FlipScope) async {}
    public func cycleFlipScope() async -> FlipScope { .all }

    public func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8] {
        throw ThumbnailError(.unsupported, "this player does not make thumbnails")
    }
}
