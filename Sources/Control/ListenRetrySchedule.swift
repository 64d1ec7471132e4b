/// When a server that cannot listen tries again, and when the log says so: every ``first`` for
/// the first ``steady`` of failing, then doubling up to every ``longest``. A reason is said the
/// first time, when it changes, and again every ``reminder`` while it stays the same, so a box
/// waiting all night for its address logs a line every few minutes, not every few seconds.
///
/// A plain value: the caller gives it the time, sleeps, and logs.
public struct ListenRetrySchedule: Sendable {
    public var first: Duration
    public var steady: Duration
    public var longest: Duration
    public var reminder: Duration

    /// What to do after a failed try.
    public struct Decision: Sendable, Equatable {
        /// How long to wait before the next try.
        public var wait: Duration
        /// Whether to log this failure: the first one, a new reason, or a reminder.
        public var say: Bool
    }

    /// When the first of the failures in a row happened; nil while the server listens (or before
    /// the first try).
    public private(set) var failingSince: ContinuousClock.Instant?
    private var wait: Duration = .zero
    private var said: (reason: String, at: ContinuousClock.Instant)?

    public init(first: Duration = .seconds(2), steady: Duration = .seconds(60), longest: Duration = .seconds(30),
                reminder: Duration = .seconds(300)) {
        self.first = first
        self.steady = steady
        self.longest = longest
        self.reminder = reminder
    }

    /// A try failed at `now` for `reason` (a sentence that names the cause; equal sentences are
    /// the same reason).
    public mutating func failed(_ reason: String, at now: ContinuousClock.Instant) -> Decision {
        let since = failingSince ?? now
        failingSince = since
        wait = (since.duration(to: now) < steady || wait == .zero) ? first : min(wait * 2, longest)
        let say: Bool
        if let said, said.reason == reason, said.at.duration(to: now) < reminder { say = false } else { say = true }
        if say { said = (reason, now) }
        return Decision(wait: wait, say: say)
    }

    /// The server listens at `now`: how long it had been failing (nil when it had not), and the
    /// next failure starts the schedule afresh.
    public mutating func listening(at now: ContinuousClock.Instant) -> Duration? {
        defer {
            failingSince = nil
            wait = .zero
            said = nil
        }
        return failingSince.map { $0.duration(to: now) }
    }

    /// `every 2 s, then less often (every 30 s at most)`: how the schedule tries, for the log.
    public var summary: String {
        "every \(first.spoken), then less often (every \(longest.spoken) at most)"
    }

}
