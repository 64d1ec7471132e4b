import Control
import Foundation
import Logging
import ServiceLifecycle
import Testing
import TestSupport

/// The retry schedule by the clock (no sleeping), and the control API run through ``ListenRetry``
/// on a port a real socket holds.
@Suite("ListenRetry")
struct ListenRetryTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

    @Test func triesEveryTwoSecondsForAMinuteThenDoublesToThirty() {
        var schedule = ListenRetrySchedule()
        var waits: [Duration] = []
        var time = 0.0
        while time < 200 {
            let decision = schedule.failed("taken", at: at(time))
            waits.append(decision.wait)
            time += Double(decision.wait.components.seconds)
        }
        // 0, 2, ... 58 s: 30 tries at 2 s; from 60 s on: 4, 8, 16, then 30.
        #expect(waits.prefix(30).allSatisfy { $0 == .seconds(2) }, "\(waits)")
        #expect(Array(waits[30..<34]) == [.seconds(4), .seconds(8), .seconds(16), .seconds(30)], "\(waits)")
        #expect(waits.dropFirst(34).allSatisfy { $0 == .seconds(30) }, "\(waits)")
        #expect(schedule.failingSince == at(0))
    }

    @Test func saysAReasonOnceThenWhenItChangesAndEveryFiveMinutes() {
        var schedule = ListenRetrySchedule()
        #expect(schedule.failed("in use", at: at(0)).say)
        #expect(!schedule.failed("in use", at: at(2)).say)
        #expect(!schedule.failed("in use", at: at(4)).say)
        #expect(schedule.failed("not an address of this machine", at: at(6)).say, "a new reason is said")
        #expect(!schedule.failed("not an address of this machine", at: at(8)).say)
        #expect(schedule.failed("in use", at: at(10)).say, "a changed reason is said, even one said before")
        #expect(!schedule.failed("in use", at: at(309)).say)
        #expect(schedule.failed("in use", at: at(310)).say, "said again after five minutes")
        #expect(!schedule.failed("in use", at: at(340)).say)
    }

    @Test func listeningEndsTheRunOfFailures() {
        var schedule = ListenRetrySchedule()
        #expect(schedule.listening(at: at(0)) == nil, "listening at the first try: nothing to say")
        for t in stride(from: 0.0, through: 90, by: 2) { _ = schedule.failed("in use", at: at(t)) }
        #expect(schedule.listening(at: at(95)) == .seconds(95))
        #expect(schedule.failingSince == nil)
        let again = schedule.failed("in use", at: at(500))
        #expect(again.wait == .seconds(2) && again.say, "a new run of failures starts afresh")
        #expect(schedule.summary == "every 2 s, then less often (every 30 s at most)")
        #expect(Duration.seconds(95).spoken == "95 s")
        #expect(Duration.seconds(300).spoken == "5 min")
        #expect(Duration.milliseconds(50).spoken == "50 ms")
    }

    /// The API's port held by another socket: each try's real bind fails and is said once; the box
    /// does not stop; once the port is free the API listens and answers, and says it is up.
    @Test func theControlAPIListensOnceItsPortIsFree() async throws {
        let holder = try ListeningSocket()
        defer { holder.close() }
        let port = holder.port
        let recorder = LogRecorder(minimum: .notice)
        let logger = Logger(label: "listen-retry") { _ in recorder }
        let configuration = ControlServerConfiguration(port: port)
        let retry = ListenRetry(
            name: "control API", address: "127.0.0.1:\(port)",
            schedule: ListenRetrySchedule(first: .milliseconds(50), steady: .seconds(60), longest: .seconds(1)), logger: logger,
            problem: { nil }, // no check first: the server's own bind is what fails
            server: { listening in
                try makeControlApplication(player: FakePlayer(), configuration: configuration, logger: quietLogger, onListening: listening)
            })
        let group = ServiceGroup(services: [retry], logger: quietLogger)
        let running = Task { try await group.run() }

        let failed = { recorder.messages.filter { $0.hasPrefix("control API: could not listen on 127.0.0.1:\(port): ") } }
        #expect(try await EvdevKeysTests.waitUntil(seconds: 60) { failed().count == 1 }, "\(recorder.messages)")
        try await Task.sleep(for: .milliseconds(300)) // several more tries, same reason
        #expect(failed().count == 1, "said once: \(recorder.messages)")
        #expect(failed().first?.contains("Address already in use") == true, "\(recorder.messages)")
        #expect(failed().first?.hasSuffix("the box plays on without it and tries again every 50 ms, then less often (every 1 s at most)") == true,
                "\(recorder.messages)")

        holder.close()
        #expect(try await EvdevKeysTests.waitUntil(seconds: 60) {
            recorder.messages.contains { $0.hasPrefix("control API: listening on 127.0.0.1:\(port) at last, ") }
        }, "\(recorder.messages)")
        let answer = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
        #expect(answer.status == 200, "\(answer)")

        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// A graceful shutdown between tries ends the service at once, not after the wait.
    @Test func aShutdownBetweenTriesEndsItAtOnce() async throws {
        let recorder = LogRecorder(minimum: .notice)
        let retry = ListenRetry(
            name: "control API", address: "192.0.2.1:8642", schedule: ListenRetrySchedule(first: .seconds(60), longest: .seconds(120)),
            logger: Logger(label: "listen-retry") { _ in recorder },
            problem: { "192.0.2.1 is not an address of this machine" },
            server: { _ in throw CancellationError() })
        let group = ServiceGroup(services: [retry], logger: quietLogger)
        let running = Task { try await group.run() }
        #expect(try await EvdevKeysTests.waitUntil(seconds: 60) { !recorder.messages.isEmpty })
        #expect(recorder.messages == [
            "control API: 192.0.2.1 is not an address of this machine; the box plays on without it and tries again every 60 s, then less often (every 2 min at most)",
        ])
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await running.value
        // Not after the 60 s wait. (The bound is loose: in a parallel run, tests that make
        // their clips with ffmpeg can hold the two cooperative threads for seconds.)
        #expect(asked.duration(to: .now) < .seconds(30))
    }
}
