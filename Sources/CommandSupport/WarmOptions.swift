import ArgumentParser
import FlipboxCore
import Headend
import Lineup

/// Which channels stay warm and within what: `--warm`, `--warm-max`, `--warm-memory`, shared
/// by `play`, `serve` and `bench`. Resolved once: the command line, else the lineup's settings
/// (`warm`, `warm-max-channels`, `warm-memory`, `warm-channel-memory`), else all channels with
/// no limit.
public struct WarmOptions: ParsableArguments {
    public init() {}

    @Option(help: "Warm policy: all, neighbours:N or none. Default: the lineup's setting, else all.")
    public var warm: String?

    @Option(help: "Most channels running at once, the one on screen included. Default: the lineup's warm-max-channels, else no limit.")
    public var warmMax: Int?

    @Option(help: "Most GOP cache in total, e.g. 256MB. Default: the lineup's warm-memory, else no limit.")
    public var warmMemory: String?

    @Option(help: "Most bits a second warm channels may take from their links together, e.g. 40Mbps. Default: the lineup's warm-bandwidth, else no limit.")
    public var warmBandwidth: String?

    @Option(name: .customLong("max-streams"), help: ArgumentHelp(
        "Most streams a server gives at once, as HOST[:PORT]=N (repeatable), e.g. 192.168.1.20:5004=4 for a 4-tuner HDHomeRun. Over the lineup's pools and max-streams, and what the box learned.",
        valueName: "host=streams"))
    public var maxStreams: [String] = []

    /// The policy and the budget: each option over the lineup's setting (read and checked
    /// when the lineup was loaded) over the default.
    public func resolve(_ settings: LineupSettings) throws -> (policy: WarmPolicy, budget: WarmBudget) {
        var policy = settings.warm ?? .all
        if let warm {
            guard let parsed = WarmPolicy(warm) else { throw ValidationError("--warm must be all, none or neighbours:N, not '\(warm)'") }
            policy = parsed
        }
        var budget = WarmBudget(settings)
        do {
            if let warmMax { budget.maxChannels = try WarmBudget.channelCount("\(warmMax)", setting: "--warm-max") }
            if let warmMemory { budget.memoryBytes = try WarmBudget.bytes(warmMemory, setting: "--warm-memory") }
            if let warmBandwidth {
                guard let rate = BitRate(warmBandwidth) else {
                    throw ValidationError("--warm-bandwidth must be a rate such as 40Mbps, 800kbps or 1.5Gbps, not '\(warmBandwidth)'")
                }
                budget.bandwidth = rate.bitsPerSecond
            }
        } catch {
            throw ValidationError("\(error)")
        }
        return (policy, budget)
    }

    /// The pools: the lineup's `pools:` and `max-streams`, the command line's `--max-streams`,
    /// and the learned limits kept in `stateDirectory` (nil: learned limits are not kept).
    public func pools(_ lineup: Lineup, stateDirectory: String?) throws -> PoolSettings {
        var map = StreamPoolMap(lineup: lineup)
        for text in maxStreams {
            guard let limit = StreamPoolMap.HostLimit(text) else {
                throw ValidationError("--max-streams must be HOST[:PORT]=N with N from 1 to \(PoolLimit.maxStreams) (e.g. 192.168.1.20:5004=4), not '\(text)'")
            }
            map.hostLimits.append(limit)
        }
        return PoolSettings(map: map, learnedFile: stateDirectory.map(LearnedPoolLimits.init(directory:)),
                            historyFile: stateDirectory.map(ViewingHistoryFile.init(directory:)))
    }
}
