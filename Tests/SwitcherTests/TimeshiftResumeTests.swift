import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Switcher
import TestSupport
import Testing

/// `resume-position`: flipping back with recall to a channel left behind live returns to where
/// it was; without it (or when it was left live), recall returns to live.
@Suite(.serialized, .heavy) struct TimeshiftResumeTests {
    func player(resume: Bool) throws -> Player {
        try GStreamer.initialize()
        let lineup = Lineup(channels: [
            Channel(id: "one", number: ChannelNumber(1), name: "One", sources: ["test://ball?size=160x90&gop=15"]),
            Channel(id: "two", number: ChannelNumber(2), name: "Two", sources: ["test://smpte?size=160x90&gop=15"]),
        ])
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all)
        var shift = TimeshiftSettings(window: .seconds(60), memoryBytes: 8 << 20,
                                      directory: FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-resume-\(UUID().uuidString)"))
        shift.resumePosition = resume
        options.timeshift = shift
        return try Player(lineup: lineup, options: options, logger: Logger(label: "test"))
    }

    /// Tunes 1, goes 4 s back, flips to 2 and recalls; returns where 1 stands then, where it was
    /// left, and how long it has played since the recall (at most: from before the recall to the
    /// status read).
    func leaveBehindAndRecall(_ player: Player, resumes: Bool) async throws -> (TimeshiftStatus, Date, TimeInterval) {
        try await player.start()
        #expect(await player.flip(.tune(ChannelNumber(1))).outcome == .completed)
        try await Task.sleep(for: .seconds(7))
        let back = try await player.timeshift(.seekBy(.seconds(-4)))
        #expect(!back.live && back.behind > 3, "\(back)")
        try await Task.sleep(for: .seconds(1))
        let left = try #require(await player.timeshiftStatus()).position
        #expect(await player.flip(.tune(ChannelNumber(2))).outcome == .completed)
        try await Task.sleep(for: .seconds(1))
        let recalled = Date()
        #expect(await player.flip(.recall).outcome == .completed)
        // The flip completes on its first frame; the switcher then has the channel resume (a job).
        // Without resume-position, a second is time enough for a wrong resume to show.
        if resumes { _ = await waitUntil(5) { await player.timeshiftStatus()?.live == false } } else { try await Task.sleep(for: .seconds(1)) }
        let status = try #require(await player.timeshiftStatus())
        return (status, left, Date().timeIntervalSince(recalled))
    }

    @Test func recallReturnsToWhereTheChannelWasLeft() async throws {
        let player = try player(resume: true)
        let (status, left, played) = try await leaveBehindAndRecall(player, resumes: true)
        #expect(status.channel == ChannelNumber(1) && !status.live, "\(status)")
        // It resumed at `left` and has played on since; live would be 4 s and the time away
        // (2 s) further on. (A loaded test machine has taken over 2 s from the recall to the read.)
        let moved = status.position.timeIntervalSince(left)
        #expect(moved > -1.5 && moved < played + 1.5, "back where it was left (\(left)): \(status.position), \(played) s after the recall")
        // Left live, recall is live.
        _ = try await player.timeshift(.live)
        #expect(await player.flip(.recall).outcome == .completed)
        #expect(await player.flip(.recall).outcome == .completed)
        #expect(try #require(await player.timeshiftStatus()).live)
        await player.shutdown()
    }

    @Test func withoutItRecallIsLive() async throws {
        let player = try player(resume: false)
        let (status, _, _) = try await leaveBehindAndRecall(player, resumes: false)
        #expect(status.channel == ChannelNumber(1) && status.live, "\(status)")
        await player.shutdown()
    }
}
