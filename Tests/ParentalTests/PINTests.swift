import Foundation
import Parental
import Testing

@Suite struct PINTests {
    func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-pin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    @Test func thePINIsStoredSaltedAndHashedInAPrivateFile() throws {
        let dir = try directory()
        let store = PINStore(directory: dir)
        #expect(!store.isSet)
        try store.set("4711")
        #expect(store.isSet)
        #expect(mode(store.path) == 0o600, "mode \(String(mode(store.path) ?? 0, radix: 8))")
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!text.contains("4711"), "the PIN itself is never written")
        #expect(text.contains("\"kdf\":\"scrypt\""))
        #expect(try store.matches("4711"))
        #expect(try !store.matches("4712"))
        #expect(try !store.matches("0000"))
        // The same PIN again: a new salt, so a new hash.
        try store.set("4711")
        let again = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(again != text)
        #expect(try store.matches("4711"))
        // No temporary files left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [PINStore.fileName])
    }

    @Test func aPINIsFourToEightDigits() throws {
        let store = PINStore(directory: try directory())
        for bad in ["123", "123456789", "12a4", "", "１２３４", "12 34"] {
            #expect(throws: PINError(.malformed, "a PIN is 4 to 8 digits (0-9)"), "\(bad)") { try store.set(bad) }
        }
        #expect(!store.isSet)
        try store.set("12345678")
        #expect(try store.matches("12345678"))
    }

    @Test func aBrokenFileSaysSo() throws {
        let dir = try directory()
        let store = PINStore(directory: dir)
        let none = #expect(throws: PINError.self) { try store.matches("1234") }
        #expect(none == PINError(.notSet, "no PIN is set; set one with `flipbox pin set`"))
        try "{not json".write(toFile: store.path, atomically: true, encoding: .utf8)
        do {
            _ = try store.matches("1234")
            Issue.record("a broken file is an error")
        } catch {
            #expect(error.code == .storage && error.message.contains("flipbox pin set"), "\(error)")
        }
    }

    @Test func wrongPINsBackOffAfterFiveDoublingFromThirtySeconds() {
        var b = PINBackoff()
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        for i in 1...4 {
            b.failed(at: t0)
            #expect(b.wait(at: t0) == nil, "try \(i) is free")
        }
        b.failed(at: t0)
        #expect(b.wait(at: t0) == 30)
        #expect(b.wait(at: t0.addingTimeInterval(29)) == 1)
        #expect(b.wait(at: t0.addingTimeInterval(30)) == nil)
        b.failed(at: t0.addingTimeInterval(30))
        #expect(b.wait(at: t0.addingTimeInterval(30)) == 60)
        b.failed(at: t0.addingTimeInterval(90))
        #expect(b.wait(at: t0.addingTimeInterval(90)) == 120)
        // A clock set back does not lengthen the wait.
        #expect(b.wait(at: t0.addingTimeInterval(-1000)) == 120)
        b.succeeded()
        #expect(b.wait(at: t0.addingTimeInterval(90)) == nil && b.failures == 0)
        for _ in 0..<100 { b.failed(at: t0) }
        #expect(b.delay == PINBackoff.longestWait)
    }

    /// The gate counts wrong PINs on disk: a new gate (a restart) still makes the sixth try wait.
    @Test func theWrongPINCountSurvivesARestart() async throws {
        let dir = try directory()
        try PINStore(directory: dir).set("2468")
        let clock = ManualDate(Date(timeIntervalSince1970: 2_000_000))
        let gate = PINGate(directory: dir)
        for left in (0...4).reversed() {
            #expect(try await gate.check("1111", now: clock.read) == .wrong(freeAttemptsLeft: left, wait: left == 0 ? 30 : nil))
        }
        #expect(mode(gate.attemptsPath) == 0o600)
        let restarted = PINGate(directory: dir)
        #expect(try await restarted.check("2468", now: clock.read) == .mustWait(seconds: 30), "even the right PIN waits")
        clock.advance(31)
        #expect(try await restarted.check("1111", now: clock.read) == .wrong(freeAttemptsLeft: 0, wait: 60))
        clock.advance(61)
        #expect(try await restarted.check("2468", now: clock.read) == .correct)
        #expect(restarted.backoff().failures == 0)
        #expect(try await restarted.check("1111", now: clock.read) == .wrong(freeAttemptsLeft: 4, wait: nil))
        await #expect(throws: PINError(.malformed, "a PIN is 4 to 8 digits (0-9)")) { try await restarted.check("12", now: clock.read) }
        #expect(restarted.backoff().failures == 1, "a malformed PIN is not counted")
    }

    @Test func noPINSetIsNotAWrongPIN() async throws {
        let gate = PINGate(directory: try directory())
        do {
            _ = try await gate.check("1234")
            Issue.record("no PIN: an error")
        } catch {
            #expect(error.code == .notSet)
        }
    }
}

final class ManualDate: @unchecked Sendable {
    private let lock = NSLock()
    private var now: Date
    init(_ start: Date) { now = start }
    var read: @Sendable () -> Date { { self.lock.withLock { self.now } } }
    func advance(_ seconds: Double) { lock.withLock { now = now.addingTimeInterval(seconds) } }
}
