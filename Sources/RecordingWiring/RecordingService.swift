import Foundation
import Headend
import Lineup
import Logging
import Recordings
import Synchronization

/// Runs the recordings of the box: derives the schedule (at start, on a guide import, on a rule
/// or one-off change), starts the `Recorder` at each recording's padded start, follows its events
/// into the `RecordingStore`, resumes recordings a restart cut, and stops one that is removed.
///
/// Threading: everything happens on one ordered loop (`run()`), fed by an `AsyncStream` of
/// inputs; the public methods only post inputs (those that answer wait for the loop's reply).
/// `run()` is called once and returns after `shutdown()`, every recording stopped and stored;
/// requests made after that are not answered.
public final class RecordingService: Sendable {
    /// What the service needs from the rest of the box, as plain values and closures.
    public struct Sources: Sendable {
        /// The lineup channel of a number; nil when the lineup has none.
        public var channel: @Sendable (ChannelNumber) -> Channel?
        /// The lineup's channel numbers (nil: not checked).
        public var channels: @Sendable () -> Set<ChannelNumber>?
        /// Guide programmes on at some moment in `from..<to` (`RecordingGuide.programmes`).
        public var programmes: @Sendable (_ from: Date, _ to: Date) throws -> [GuideProgramme]
        /// The head-end's pools as the scheduler sees them.
        public var pools: @Sendable () -> PoolLimits

        public init(channel: @escaping @Sendable (ChannelNumber) -> Channel?,
                    channels: @escaping @Sendable () -> Set<ChannelNumber>? = { nil },
                    programmes: @escaping @Sendable (Date, Date) throws -> [GuideProgramme] = { _, _ in [] },
                    pools: @escaping @Sendable () -> PoolLimits = { PoolLimits() }) {
            self.channel = channel
            self.channels = channels
            self.programmes = programmes
            self.pools = pools
        }
    }

    /// What the service tells the rest of the box (SSE events), in order, on `notices`.
    public typealias Notice = RecordingNotice

    public let store: RecordingStore
    /// Where the files go (`recordings-dir`, default `STATE/recordings`).
    public let directory: URL
    public let notices: AsyncStream<Notice>
    let notice: AsyncStream<Notice>.Continuation
    let inputs: AsyncStream<RecordingInput>
    let input: AsyncStream<RecordingInput>.Continuation
    let recorder: Recorder
    let sources: Sources
    let timeZone: TimeZone
    let logger: Logger
    /// How far ahead the guide is read.
    let horizon: TimeInterval
    /// How often the loop looks at the clock.
    let tick: Duration
    /// The quota and age limit (`--recordings-quota`, `--recordings-keep-days`); each rule's
    /// keep-latest is added when it is applied.
    let retention: Retention.Policy
    /// The conflicts of the last derivation, for readers off the loop (the on-screen list).
    let lastConflicts = Mutex<[RecordingConflict]>([])

    /// Opens the store in `stateDirectory` and checks that `directory` can be written.
    public init(stateDirectory: String, directory: URL, headend: Headend, sources: Sources, timeZone: TimeZone = .current,
                logger: Logger, retention: Retention.Policy = .init(), horizon: TimeInterval = 14 * 86_400,
                tick: Duration = .milliseconds(500)) throws(RecordingError) {
        try Self.checkWritable(directory)
        store = try RecordingStore(directory: stateDirectory)
        self.directory = directory
        recorder = Recorder(headend: headend, logger: logger)
        self.sources = sources
        self.timeZone = timeZone
        self.logger = logger
        self.horizon = horizon
        self.tick = tick
        self.retention = retention
        (notices, notice) = AsyncStream<Notice>.makeStream(bufferingPolicy: .bufferingNewest(256))
        (inputs, input) = AsyncStream<RecordingInput>.makeStream(bufferingPolicy: .unbounded)
    }

    /// The guide was imported again: derive the schedule anew.
    public func guideChanged() { input.yield(.derive) }

    /// The lineup was read again while the box runs (`RecordingStore.followLineup`): recordings
    /// to come and rules follow renumbered channels, those on channels no longer in the lineup
    /// fail (told on `notices`), and the schedule is derived anew. Returns when that is stored.
    public func lineupChanged(_ moves: RecordingStore.ChannelMoves) async {
        _ = await ask { .lineup(moves, $0) }
    }

    /// Saves a rule (validated) and derives the schedule; returns the recordings the rule has
    /// now and what the scheduler said of it (it matches nothing, a repeat was skipped).
    @discardableResult
    public func save(_ rule: RecordingRule) async throws(RecordingError) -> (recordings: [Recording], notes: [String]) {
        try rule.validate()
        try store.save(rule)
        guard case .derived(let notes) = await ask({ .derived($0) }) else { return ([], []) }
        let mine = (try? store.recordings().filter { $0.rules.contains(rule.id) }) ?? []
        return (mine, notes.filter { $0.rule == rule.id }.map(\.message))
    }

    /// The rules as stored.
    public func rules() throws(RecordingError) -> [RecordingRule] { try store.rules() }

    /// Removes a rule; false when there was none. Recordings it alone asked for are dropped.
    public func removeRule(_ id: RuleID) async throws(RecordingError) -> Bool {
        let removed = try store.removeRule(id)
        if removed { _ = await ask { .derived($0) } }
        return removed
    }

    /// Asks for one recording; returns it as scheduled (or in progress).
    public func add(_ request: OneOffRequest) async throws(RecordingError) -> Recording {
        try request.validate()
        let outcome = await ask { .add(request, $0) }
        switch outcome {
        case .recording(let r): return r
        case .failure(let e): throw e
        default: throw RecordingError(.notFound, "the request matched nothing in the guide", source: request.id.rawValue)
        }
    }

    /// Cancels a scheduled recording, or stops one in progress keeping what was written.
    /// False when there is no such recording to stop.
    public func remove(_ id: RecordingID) async throws(RecordingError) -> Bool {
        switch await ask({ .remove(id, $0) }) {
        case .removed(let found): return found
        case .failure(let e): throw e
        default: return false
        }
    }

    /// The schedule as stored, and the conflicts of the last derivation.
    public func listing() async -> (recordings: [Recording], conflicts: [RecordingConflict]) {
        let outcome = await ask { .list($0) }
        if case .listing(let recordings, let conflicts) = outcome { return (recordings, conflicts) }
        return ((try? store.recordings()) ?? [], [])
    }

    /// The schedule's conflicts as last derived (any thread, no wait).
    public var conflicts: [RecordingConflict] { lastConflicts.withLock { $0 } }

    /// Takes one of a conflict's options: `drop` cancels that recording (or stops it, keeping
    /// what was written); `otherChannel` schedules the same programme on the other channel, then
    /// cancels the recording it replaces (nothing is cancelled when the other cannot be
    /// scheduled). Returns the recording scheduled instead, or nil for a drop. `wrongState` when
    /// the option is not offered by today's conflicts (they changed, or it never was).
    @discardableResult
    public func resolve(_ option: ConflictOption) async throws(RecordingError) -> Recording? {
        switch await ask({ .resolve(option, $0) }) {
        case .recording(let r): return r
        case .removed: return nil
        case .failure(let e): throw e
        default: throw RecordingError(.wrongState, "the recordings are stopping")
        }
    }

    /// Ends `run()`: stops every recording; the next start resumes those not yet at their end.
    public func shutdown() { input.yield(.shutdown) }

    private func ask(_ make: (Reply) -> RecordingInput) async -> Outcome {
        await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
            input.yield(make(Reply(c)))
        }
    }
}

/// What the loop answers.
enum Outcome: Sendable {
    case derived([ScheduleNote])
    case recording(Recording)
    case removed(Bool)
    case listing([Recording], [RecordingConflict])
    case failure(RecordingError)
}

/// Answers one request exactly once (also when the loop has ended).
final class Reply: Sendable {
    private let continuation: CheckedContinuation<Outcome, Never>
    init(_ c: CheckedContinuation<Outcome, Never>) { continuation = c }
    func callAsFunction(_ outcome: Outcome) { continuation.resume(returning: outcome) }
}

/// The loop's inputs, in the order they happen.
enum RecordingInput: Sendable {
    case derive
    /// The lineup was read again: follow its channels, then derive.
    case lineup(RecordingStore.ChannelMoves, Reply)
    case tick
    case event(RecordingID, RecordingEvent)
    case derived(Reply)
    case add(OneOffRequest, Reply)
    case remove(RecordingID, Reply)
    case resolve(ConflictOption, Reply)
    case list(Reply)
    case shutdown
}
