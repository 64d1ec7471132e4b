import Foundation
import GStreamer
import Lineup
import Logging
import Output
import Parental
@testable import Switcher
import TestSupport
import Testing

/// Locked content on a real player in process: no frame and no sound of it, the lock card
/// instead, the PIN unlocking it; and a programme boundary into locked content stopping the
/// picture and the sound of the channel on screen.
@Suite(.serialized, .heavy) struct PlayerParentalTests {
    /// The programmes of one channel, for the player to ask (the XMLTV guide itself is tested in
    /// GuideTests and end to end in FlipboxTests).
    struct Schedule: ProgrammeGuide {
        let channelID: String
        let programmes: [ProgrammeSummary]
        func nowNext(channelID: String, at instant: Date) -> NowNext {
            guard channelID == self.channelID else { return .unknown }
            let now = programmes.first { $0.start <= instant && instant < $0.end }
            return NowNext(now: now, next: programmes.first { $0.start > instant })
        }
    }

    static let cardBackground = (21.0, 19.0, 31.0)

    func makePlayer(locked: Set<ChannelNumber> = [], parental: ParentalRules = ParentalRules(),
                    programmes: (any ProgrammeGuide)? = nil) throws -> (Player, String) {
        try GStreamer.initialize()
        let lineup = Lineup(channels: [
            Channel(id: "low", number: ChannelNumber(1), name: "Low", sources: ["test://color/00ff00?size=160x90&gop=15&tone=440"]),
            Channel(id: "high", number: ChannelNumber(2), name: "High", sources: ["test://color/0000ff?size=160x90&gop=15&tone=1200"]),
        ])
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-parental-\(UUID().uuidString)").path
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all)
        options.locked = locked
        options.parental = parental
        options.pinDirectory = state
        return (try Player(lineup: lineup, options: options, programmes: programmes, logger: Logger(label: "test")), state)
    }

    /// Whether sound reached the output in the last `window`: the last 300 ms differ from before.
    func soundFlows(_ player: Player, window: Duration = .milliseconds(500)) async -> Bool {
        let before = player.output.recentAudio(milliseconds: 300)
        try? await Task.sleep(for: window)
        return player.output.recentAudio(milliseconds: 300) != before
    }

    func showsLockCard(_ player: Player) async -> Bool {
        guard let s = try? ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil)) else { return false }
        let (r, g, b) = Self.cardBackground
        return region(s, (4, 4, 30, 30), is: (r, g, b), tolerance: 20) && region(s, (280, 140, 30, 30), is: (r, g, b), tolerance: 20)
    }

    @Test func aLockedChannelNeverPlaysAndThePINUnlocksIt() async throws {
        let (player, state) = try makePlayer(locked: [ChannelNumber(2)])
        try PINStore(directory: state).set("2468")
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await waitUntil(5) { await player.channels().allSatisfy { $0.state.tier != .cold } })
        #expect(await soundFlows(player), "channel 1 is heard")

        let flip = await player.flip(.tune(ChannelNumber(2)))
        #expect(flip.outcome == .failed && flip.failure == .locked && flip.channel?.number == "2", "\(flip)")
        #expect(await player.status().lock == "This channel is locked")
        #expect(await waitUntil(10) { await showsLockCard(player) }, "the lock card")
        #expect(await !soundFlows(player), "no sound: channel 1's stopped, channel 2's never starts")
        #expect(tonePower(player.output.recentAudio(milliseconds: 300), 1200) < tonePower(player.output.recentAudio(milliseconds: 300), 440),
                "never a sound of the locked channel")

        do {
            _ = try await player.unlock(pin: "1357")
            Issue.record("a wrong PIN unlocks nothing")
        } catch { #expect(error.code == .wrongPIN) }
        #expect(await player.status().lock != nil)
        let unlocked = try await player.unlock(pin: "2468")
        #expect(unlocked.channel.number == "2")
        #expect(await waitUntil(15) { let s = await player.status(); return s.lock == nil && s.lastFlip?.ok == true && s.lastFlip?.channel?.number == "2" },
                "unlocked: channel 2 plays")
        try await Task.sleep(for: .milliseconds(600))
        let audio = player.output.recentAudio(milliseconds: 300)
        #expect(tonePower(audio, 1200) > 20 * tonePower(audio, 440), "channel 2's tone is heard now")
        await player.shutdown()
    }

    @Test func aBoundaryIntoLockedContentStopsThePictureAndTheSound() async throws {
        let boundary = Date().addingTimeInterval(8)
        let schedule = Schedule(channelID: "low", programmes: [
            ProgrammeSummary(title: "Cartoons", start: boundary.addingTimeInterval(-600), end: boundary,
                             ratings: [ContentRating(system: "VCHIP", value: "TV-G")]),
            ProgrammeSummary(title: "Thriller", start: boundary, end: boundary.addingTimeInterval(600),
                             ratings: [ContentRating(system: "VCHIP", value: "TV-MA")]),
        ])
        let (player, _) = try makePlayer(parental: try ParentalRules(settings: ["parental.VCHIP": "TV-PG"]), programmes: schedule)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        let events = player.events()
        let shown = Task { () -> Bool in
            for await e in events { if case .lockShown(let channel, let reason) = e { return channel.number == "1" && reason.contains("TV-MA") } }
            return false
        }
        try #require(Date() < boundary.addingTimeInterval(-1), "the player took too long to start for this test's schedule")
        #expect(await soundFlows(player), "the allowed programme is heard")
        #expect(await player.status().lock == nil)
        try await Task.sleep(for: .seconds(max(0, boundary.timeIntervalSinceNow) + 0.3))
        #expect(await shown.value, "lock-shown at the boundary")
        #expect(await player.status().lock == "Rated TV-MA, over VCHIP TV-PG")
        #expect(await player.status().channel?.number == ChannelNumber(1), "on the same channel")
        #expect(await !soundFlows(player), "no sound after the boundary")
        #expect(await waitUntil(10) { await showsLockCard(player) }, "the lock card")
        await player.shutdown()
    }
}
