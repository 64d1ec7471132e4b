import Control
import Foundation
import Logging
import Testing

/// HDMI-CEC without an adapter: the key map and the power rules (pure), and the real libcec on a
/// machine that has no adapter (it must say so and end its streams, so other inputs go on).
@Suite struct CECTests {
    @Test func theTVRemotesKeysMeanWhatTheyMeanEverywhere() {
        #expect(CECKeyMap.key(forUserControlCode: 0x30) == .pageUp)     // CHANNEL_UP
        #expect(CECKeyMap.key(forUserControlCode: 0x31) == .pageDown)   // CHANNEL_DOWN
        #expect(CECKeyMap.key(forUserControlCode: 0x01) == .up)
        #expect(CECKeyMap.key(forUserControlCode: 0x04) == .right)
        #expect((0...9).allSatisfy { CECKeyMap.key(forUserControlCode: 0x20 + $0) == .digit($0) })
        #expect(CECKeyMap.key(forUserControlCode: 0x00) == .enter)      // SELECT
        #expect(CECKeyMap.key(forUserControlCode: 0x2B) == .enter)
        #expect(CECKeyMap.key(forUserControlCode: 0x0D) == .back)       // EXIT
        #expect(CECKeyMap.key(forUserControlCode: 0x32) == .back)       // PREVIOUS_CHANNEL
        #expect(CECKeyMap.key(forUserControlCode: 0x35) == .info)       // DISPLAY_INFORMATION
        #expect(CECKeyMap.key(forUserControlCode: 0x53) == .guide)
        #expect([0x72, 0x73, 0x74, 0x71].map { CECKeyMap.key(forUserControlCode: $0) } == [.red, .green, .yellow, .blue])
        // Volume, mute and power are the TV's.
        #expect([0x41, 0x42, 0x43, 0x40, 0x6C].allSatisfy { CECKeyMap.key(forUserControlCode: $0) == nil })
    }

    @Test func standbyAndResumeAreEachSaidOnce() {
        var power = CECPower()
        #expect(power.activated(true) == nil, "awake already")
        #expect(power.command(initiator: 4, destination: 1, opcode: 0x36) == nil, "a standby from another player to us is not the TV's")
        #expect(power.command(initiator: 0, destination: 15, opcode: 0x36) == .standby)
        #expect(power.command(initiator: 0, destination: 15, opcode: 0x36) == nil)
        #expect(power.command(initiator: 0, destination: 4, opcode: 0x82) == nil, "other commands change nothing")
        #expect(power.activated(false) == nil)
        #expect(power.activated(true) == .resume)
        #expect(power.command(initiator: 0, destination: 4, opcode: 0x36) == .standby)
        #expect(power.key() == .resume, "a key from the TV's remote means the TV is on")
        #expect(power.key() == nil)
    }

    /// (`CECRemote.findAdapter`, libcec's scan on its own, is checked in a process of its own by
    /// `DevicesTests`: once in many parallel runs, libcec crashed inside its scan here.)
    @Test func withoutAnAdapterTheRealLibrarySaysSoAndEndsItsStreams() async throws {
        let lines = LogRecorder(minimum: .notice)
        let remote = CECRemote(logger: Logger(label: "cec") { _ in lines })
        #expect(await remote.outcome() == .noAdapter)
        var keys = 0, events = 0
        for await _ in remote.keys { keys += 1 }
        for await _ in remote.power { events += 1 }
        #expect(keys == 0 && events == 0, "both streams end, so the other inputs go on alone")
        #expect(lines.messages.filter { $0.contains("HDMI-CEC: no adapter found; keys from the other remotes still work") }.count == 1,
                "said once: \(lines.messages)")
        remote.stop()
    }

    @Test func cecIsAnInputLikeTheOthers() throws {
        let inputs = try RemoteInputs(parsing: "evdev,cec")
        #expect(inputs.cec && inputs.evdevDirectory == "/dev/input" && !inputs.terminal)
        #expect(try RemoteInputs(parsing: "terminal").cec == false)
        let error = #expect(throws: RemoteInputsError.self) { try RemoteInputs(parsing: "hdmi") }
        #expect(error?.code == .unknownInput)
        #expect(error?.message.hasSuffix("or none; not 'hdmi'") == true, "\(String(describing: error))")
    }
}

