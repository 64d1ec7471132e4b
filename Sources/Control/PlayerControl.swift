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
}
