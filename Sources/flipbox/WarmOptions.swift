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

    /// The policy and the budget for `lineup` (read from `path`, named in errors).
    func resolve(_ lineup: Lineup, path: String?) throws -> (policy: WarmPolicy, budget: WarmBudget) {
        let policy: WarmPolicy
        if let warm {
            guard let parsed = WarmPolicy(warm) else { throw ValidationError("--warm must be all, none or neighbours:N, not '\(warm)'") }
            policy = parsed
        } else if let setting = lineup.settings["warm"] {
            guard let parsed = WarmPolicy(setting) else {
                throw ValidationError("\(lineup.settingOrigin("warm", path: path)) '\(setting)' is not all, none or neighbours:N")
            }
            policy = parsed
        } else {
            policy = .all
        }
        do {
            return (policy, try WarmBudget(settings: lineup.settings, maxChannels: warmMax, memory: warmMemory))
        } catch let invalid as WarmBudget.Invalid where lineup.settings[invalid.setting] != nil {
            throw ValidationError("\(lineup.settingOrigin(invalid.setting, path: path)) \(invalid.problem)")
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
