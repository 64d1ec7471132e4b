import Foundation
import Testing

/// A trait for tests that run real pipelines (a player, its warm channels' encoders, decoders and
/// the output): at most `HeavyTestSlots.count` of them run at once in a test process.
///
/// `make test` runs its first phase in one process with every test in parallel. Without a
/// limit, dozens of players started together at the beginning of that phase, each encoding its
/// test channels, and on two cores a warm flip took seconds there and a slow flip timed out:
/// tests failed on time limits that hold on a box. Tests without pipelines (parsers, machines)
/// are not limited. Applied to a suite, it holds a slot for each of its tests in turn, not for
/// the whole suite.
public struct HeavyTest: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> HeavyTest? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await HeavyTestSlots.shared.acquire()
        do {
            try await function()
        } catch {
            await HeavyTestSlots.shared.release()
            throw error
        }
        await HeavyTestSlots.shared.release()
    }
}

extension Trait where Self == HeavyTest {
    /// Runs real pipelines: limited to a few at once in the process (`HeavyTest`).
    public static var heavy: HeavyTest { HeavyTest() }
}

/// The slots `HeavyTest` takes, first come first served.
public actor HeavyTestSlots {
    public static let shared = HeavyTestSlots()

    /// How many heavy tests run at once: `FLIPBOX_HEAVY_TESTS`, else one more than the cores
    /// (they spend much of their time waiting for pictures and sockets; the head-end suite's
    /// tests, one at a time, run beside them).
    public static let count: Int = {
        if let text = ProcessInfo.processInfo.environment["FLIPBOX_HEAVY_TESTS"], let n = Int(text), n > 0 { return n }
        return ProcessInfo.processInfo.activeProcessorCount + 1
    }()

    private var free = HeavyTestSlots.count
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
