import Foundation

/// Checks PINs against the stored one under the wrong-PIN rule (`PINBackoff`), whose count is
/// kept in `pin-attempts.json` beside the PIN (0600, atomic) so a restart does not reset it.
///
/// Thread-safe: every check runs, one at a time, on a queue of its own (one key derivation
/// each, tens of milliseconds), never on the caller's thread, so two tries at once cannot both
/// slip past the rule. The PIN is never logged nor kept.
public final class PINGate: Sendable {
    public static let attemptsFileName = "pin-attempts.json"

    public let store: PINStore
    public let attemptsPath: String
    private let queue = DispatchQueue(label: "flipbox-pin")

    public enum Outcome: Sendable, Hashable {
        case correct
        /// Wrong; `freeAttemptsLeft` more wrong PINs before tries must wait, `wait` before the next
        /// try when they already must.
        case wrong(freeAttemptsLeft: Int, wait: Double?)
        /// Too many wrong PINs: try again in `seconds`. The PIN was not checked.
        case mustWait(seconds: Double)
    }

    public init(directory: String) {
        store = PINStore(directory: directory)
        attemptsPath = (directory as NSString).appendingPathComponent(Self.attemptsFileName)
    }

    /// Checks `pin`. Throws `.malformed` (not counted as a wrong PIN), `.notSet`, `.storage`.
    public func check(_ pin: String, now: @escaping @Sendable () -> Date = Date.init) async throws(PINError) -> Outcome {
        let result: Result<Outcome, PINError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(PINError) in try self.checkNow(pin, now: now) })
            }
        }
        return try result.get()
    }

    /// The rule's state as stored (for status and tests).
    public func backoff() -> PINBackoff {
        queue.sync { load() }
    }

    private func checkNow(_ pin: String, now: () -> Date) throws(PINError) -> Outcome {
        try PINStore.validate(pin)
        guard store.isSet else { throw PINError(.notSet, "no PIN is set; set one with `flipbox pin set`") }
        var backoff = load()
        if let wait = backoff.wait(at: now()) { return .mustWait(seconds: wait) }
        if try store.matches(pin) {
            if backoff.failures > 0 {
                backoff.succeeded()
                try save(backoff)
            }
            return .correct
        }
        backoff.failed(at: now())
        try save(backoff)
        return .wrong(freeAttemptsLeft: backoff.freeAttemptsLeft, wait: backoff.wait(at: now()))
    }

    /// The stored count; a missing file is none, and an unreadable one counts as the worst
    /// case reached so far (five wrong PINs just now), so deleting its content gains nothing.
    private func load() -> PINBackoff {
        guard let data = FileManager.default.contents(atPath: attemptsPath) else { return PINBackoff() }
        if let stored = try? JSONDecoder().decode(PINBackoff.self, from: data) { return stored }
        var worst = PINBackoff()
        for _ in 0..<PINBackoff.freeAttempts { worst.failed(at: Date()) }
        return worst
    }

    private func save(_ backoff: PINBackoff) throws(PINError) {
        let data: Data
        do { data = try JSONEncoder().encode(backoff) } catch { throw PINError(.storage, "cannot encode the PIN attempts: \(error)") }
        try PrivateFile.write(data, to: attemptsPath)
    }
}
