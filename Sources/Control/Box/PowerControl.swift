import ServiceLifecycle

/// What the TV's power does to the box (HDMI-CEC): `standby` releases the warm pool and the
/// decoders, `wake` resumes the last channel.
public protocol PowerControl: Sendable {
    func standby() async
    func wake() async
}

/// Carries the TV's power events to the player, in order, one at a time. A `Service`: returns
/// when the events end or on graceful shutdown.
public struct CECPowerRelay<Player: PowerControl>: Service {
    let player: Player
    let events: AsyncStream<CECPowerEvent>

    public init(player: Player, events: AsyncStream<CECPowerEvent>) {
        self.player = player
        self.events = events
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await event in events {
                switch event {
                case .standby: await player.standby()
                case .resume: await player.wake()
                }
            }
        }
    }
}
