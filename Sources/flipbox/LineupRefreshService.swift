import Guide
import Headend
import Lineup
import Logging
import Providers
import RecordingWiring
import Recordings
import ServiceLifecycle
import Switcher
import UnixSignals

/// Reads a sourced lineup again every `lineup-refresh` while the box plays or serves
/// (``LineupRefresher``): its kept copy stays fresh for the next start, and each change is taken
/// at once, in place (`Lineup.taking`): channels added, removed, renumbered and renamed, and new
/// stream addresses (the stream open now goes on, the next connection takes them). The player
/// (or, serving, the head-end), then the guide take it; the channel on screen plays on. The
/// lineup's settings stay as read at start. `SIGHUP` reads it again at once. Stops on graceful
/// shutdown.
struct LineupRefreshService: Service {
    /// What takes each reading: the player (which hands it to its head-end first), or the
    /// head-end alone (`flipbox serve`).
    enum Taker: Sendable {
        case player(Player)
        case headend(Headend)
    }

    let refresher: LineupRefresher
    let lineup: Lineup
    let interval: Duration
    let taker: Taker
    let guide: Guide?
    /// The box's recordings, which follow renumbered and removed channels.
    let recordings: RecordingService?

    /// The service for `path`'s lineup, or nil when it is a file of this box or its
    /// `lineup-refresh` is off.
    static func make(path: String, lineup: Lineup, taker: Taker, guide: Guide?, recordings: RecordingService? = nil,
                     stateDirectory: String?, logger: Logger) -> LineupRefreshService? {
        guard SourcedLineup.isRefreshable(path), case .every(let interval) = lineup.settings.lineupRefresh else { return nil }
        return LineupRefreshService(refresher: LineupRefresher(argument: path, stateDirectory: stateDirectory, logger: logger),
                                    lineup: lineup, interval: interval, taker: taker, guide: guide, recordings: recordings)
    }

    func run() async throws {
        let taker = self.taker, guide = self.guide, recordings = self.recordings, logger = refresher.logger
        // `kill -HUP` (`systemctl kill -s HUP flipbox`): read the lineup again now.
        let now = LineupReadNow()
        let hangups = Task {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                logger.notice("lineup: reading it again now (SIGHUP)")
                now.ask()
            }
        }
        defer { hangups.cancel() }
        await cancelWhenGracefulShutdown {
            await refresher.keepFresh(from: lineup, every: interval, now: now) { reading, _ in
                await Self.take(reading, by: taker, guide: guide, recordings: recordings, logger: logger)
            }
        }
    }

    /// Takes `reading` into the box's lineup now; says what it did.
    @discardableResult
    static func take(_ reading: Lineup, by taker: Taker, guide: Guide?, recordings: RecordingService?, logger: Logger) async -> Headend.LineupTaking {
        let box: Lineup = switch taker {
        case .player(let player): player.lineup
        case .headend(let headend): headend.lineup
        }
        let (next, slots) = box.taking(reading)
        guard !slots.isEmpty else { return Headend.LineupTaking() }
        let taking: Headend.LineupTaking = switch taker {
        case .player(let player): await player.take(next, slots: slots)
        case .headend(let headend): await headend.take(next, slots: slots)
        }
        guide?.take(next)
        await recordings?.lineupChanged(RecordingStore.ChannelMoves(from: box, to: next, slots: slots))
        logger.notice("lineup: taken while playing: \(next.listed.count) channels (\(slots.added.count) new, \(slots.retired.count) gone, \(slots.changed.count) changed)")
        for number in taking.stillShown {
            logger.notice("lineup: channel \(number) is no longer in the lineup; it plays on until nothing shows it")
        }
        return taking
    }
}
