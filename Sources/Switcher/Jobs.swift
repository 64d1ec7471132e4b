/// The player's asynchronous work (a decoder starting, a card rendering, a timer), each kept
/// under what it is for. Starting a job cancels the one before it with the same purpose, and a
/// job that resumes after it was replaced or cancelled must not land: on the actor that owns
/// the jobs, `Task.isCancelled` says so exactly (cancelling happens on that actor too), so no
/// generation counters are needed.
///
/// Owned by one actor and used only from it; a job removes itself from the table when it ends.
struct Jobs<Purpose: Hashable & Sendable> {
    private var running: [Purpose: (serial: Int, task: Task<Void, Never>)] = [:]
    private var serial = 0

    /// Starts `body` as the job for `purpose`, cancelling the one before it.
    /// `finished(purpose, serial)` must be called by the owner when the body returns.
    mutating func start(_ purpose: Purpose, _ body: @escaping @Sendable (_ serial: Int) async -> Void) {
        running[purpose]?.task.cancel()
        serial += 1
        let serial = self.serial
        running[purpose] = (serial, Task { await body(serial) })
    }

    /// Cancels the job for `purpose`, if any.
    mutating func cancel(_ purpose: Purpose) {
        running.removeValue(forKey: purpose)?.task.cancel()
    }

    /// Cancels every job whose purpose matches.
    mutating func cancel(where matches: (Purpose) -> Bool) {
        for purpose in running.keys where matches(purpose) { cancel(purpose) }
    }

    /// Forgets a job that ended (only if it is still the one for its purpose).
    mutating func finished(_ purpose: Purpose, serial: Int) {
        if running[purpose]?.serial == serial { running.removeValue(forKey: purpose) }
    }

    /// The tasks of the running jobs whose purpose matches (to wait for them).
    func tasks(where matches: (Purpose) -> Bool) -> [Task<Void, Never>] {
        running.filter { matches($0.key) }.map(\.value.task)
    }

    /// Cancels everything (shutdown).
    mutating func cancelAll() {
        for (_, job) in running { job.task.cancel() }
        running = [:]
    }

    var count: Int { running.count }
}
