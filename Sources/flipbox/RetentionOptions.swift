import ArgumentParser
import Lineup
import Recordings

/// How much of the recordings the box keeps: a quota and an age, applied oldest first after
/// each recording ends (never to one in progress or marked keep). Each series rule's `keep`
/// applies as well.
struct RetentionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The most the recordings may take on disk (e.g. 500G, 2T); the oldest go first. Setting: recordings-quota. Default: no quota.", valueName: "SIZE"))
    var recordingsQuota: String?

    @Option(help: ArgumentHelp("Delete recordings that ended more than DAYS ago. Setting: recordings-keep-days. Default: keep them.", valueName: "DAYS"))
    var recordingsKeepDays: Int?

    /// The command line's, over the lineup's settings.
    func policy(settings: LineupSettings = LineupSettings()) throws -> Retention.Policy {
        var policy = Retention.Policy()
        policy.quotaBytes = settings.recordingsQuota.map { Int64($0.bytes) }
        policy.maxAgeDays = settings.recordingsKeepDays
        if let recordingsQuota {
            guard let size = ByteSize(recordingsQuota), size.bytes > 0 else {
                throw ValidationError("--recordings-quota must be a size such as 500G or 2T, not '\(recordingsQuota)'")
            }
            policy.quotaBytes = Int64(size.bytes)
        }
        if let days = recordingsKeepDays {
            guard (1...36_500).contains(days) else {
                throw ValidationError("--recordings-keep-days must be 1 to 36500, not \(days)")
            }
            policy.maxAgeDays = days
        }
        return policy
    }
}
