import ArgumentParser
import Headend
import Lineup

/// Which channels stay warm and within what: `--warm`, `--warm-max`, `--warm-memory`, shared
/// by `play`, `serve` and `bench`. Resolved once: the command line, else the lineup's settings
/// (`warm`, `warm-max-channels`, `warm-memory`, `warm-channel-memory`), else all channels with
/// no limit.
struct WarmOptions: ParsableArguments {
    @Option(help: "Warm policy: all, neighbours:N or none. Default: the lineup's setting, else all.")
    var warm: String?

    @Option(help: "Most channels running at once, the one on screen included. Default: the lineup's warm-max-channels, else no limit.")
    var warmMax: Int?

    @Option(help: "Most GOP cache in total, e.g. 256MB. Default: the lineup's warm-memory, else no limit.")
    var warmMemory: String?

    /// The policy and the budget: each option over the lineup's setting (read and checked
    /// when the lineup was loaded) over the default.
    func resolve(_ settings: LineupSettings) throws -> (policy: WarmPolicy, budget: WarmBudget) {
        var policy = settings.warm ?? .all
        if let warm {
            guard let parsed = WarmPolicy(warm) else { throw ValidationError("--warm must be all, none or neighbours:N, not '\(warm)'") }
            policy = parsed
        }
        var budget = WarmBudget(settings)
        do {
            if let warmMax { budget.maxChannels = try WarmBudget.channelCount("\(warmMax)", setting: "--warm-max") }
            if let warmMemory { budget.memoryBytes = try WarmBudget.bytes(warmMemory, setting: "--warm-memory") }
        } catch {
            throw ValidationError("\(error)")
        }
        return (policy, budget)
    }
}
