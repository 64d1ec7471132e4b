import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
@testable import Switcher
import TestSupport
import Testing

/// When a channel's frames and sound leave its decoder, against when they are due (issue 15's
/// A/V offset): a flip to a channel that is not warm starts from a keyframe that has just
/// arrived, and the MPEG-TS muxer sends the sound of each moment a few hundred milliseconds
/// after its picture. Without waiting for that, every later frame and sound leaves late, by
/// how much later it came than the keyframe: a picture that moves in jerks and a sound behind
/// it for as long as the channel plays. A timing suite: it runs in the quiet phase.
@Suite(.serialized, .heavy) struct PlayoutTimingTests {
    static let logger = Logger(label: "test")

    @Test func aColdFlipPlaysItsPictureAndSoundOnTimeAndTogether() async throws {
        try GStreamer.initialize()
        let one = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x0000FF)
        let two = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x00FF00)
        let (senders, channels) = try await BroadcastPlayerTests.send([(one, "One"), (two, "Two")])
        defer { for s in senders { s.stop() } }
        let options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 25, warm: .none)
        let player = try Player(lineup: Lineup(channels: channels), options: options, logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })

        let flip = await player.flip(.tune(ChannelNumber(2)))
        #expect(flip.ok, "the cold flip completes: \(flip.error ?? "")")
        #expect(flip.path == .cold)
        try await Task.sleep(for: .seconds(3))
        let feed = try #require(await player.shownFeedID)
        let played = try #require(await player.headend.playoutLateness(feed: feed))
        #expect(played.video.count > 40 && played.audio.count > 40, "3 s of pictures and sound left the decoder: \(played.video.count) frames, \(played.audio.count) sounds")
        // Measured before the decoder waited for the channel's lag: pictures 60-160 ms late
        // (median per second), sound 100-210 ms, the sound 25-84 ms behind its picture.
        let picture = try #require(PlayoutLateness.median(played.video))
        let sound = try #require(PlayoutLateness.median(played.audio))
        let behind = try #require(played.soundBehindPicture)
        #expect(picture < 20, "half the pictures left the decoder within 20 ms of being due: median \(picture) ms late")
        #expect(sound < 20, "half the sound left the decoder within 20 ms of being due: median \(sound) ms late")
        #expect(abs(behind) < 20, "the sound plays with its picture: \(behind) ms behind it")
        await player.shutdown()
    }
}
