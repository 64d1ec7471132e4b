import Foundation
@testable import Output
import Synchronization
import Testing

/// The one still-image thread: blocking work runs there, one job at a time, and a flip's card
/// goes before pictures already waiting (first come among equals).
@Suite struct StillImageExecutorTests {
    @Test func workRunsOnItsThreadTheMostUrgentFirst() async throws {
        let executor = StillImageExecutor(name: "still-images-test")
        let ran = Shared<[String]>([])
        let started = Shared(false)
        let gate = DispatchSemaphore(value: 0)
        /// Waits (up to 2 s) until `condition` holds.
        func until(_ condition: () -> Bool) async throws -> Bool {
            for _ in 0..<400 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
            return condition()
        }
        // Occupies the thread until the others are in line.
        async let blocker: Bool = executor.perform {
            started.value.withLock { $0 = true }
            gate.wait()
            return executor.isCurrentThread
        }
        #expect(try await until { started.value.withLock { $0 } }, "the blocker runs")
        async let first: Void = executor.perform { ran.value.withLock { $0.append("thumbnail 1") } }
        #expect(try await until { executor.waiting == 1 })
        async let second: Void = executor.perform { ran.value.withLock { $0.append("thumbnail 2") } }
        #expect(try await until { executor.waiting == 2 })
        async let card: Void = executor.perform(urgent: true) { ran.value.withLock { $0.append("card") } }
        #expect(try await until { executor.waiting == 3 }, "two thumbnails and a card wait behind the blocker")
        gate.signal()
        #expect(await blocker, "the work ran on the executor's thread")
        _ = await (first, second, card)
        #expect(ran.value.withLock { $0 } == ["card", "thumbnail 1", "thumbnail 2"])
    }
}

/// A value behind a lock that closures on other threads share.
private final class Shared<T: Sendable>: Sendable {
    let value: Mutex<T>
    init(_ initial: T) { value = Mutex(initial) }
}
