import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
import Output
@testable import Switcher
import Synchronization
import TestSupport
import Testing

/// Catch-up on screen: a seek back past what the box holds plays the provider's archive at that
/// moment (its own colour here), the position bar shows the archive's part, and a moment the
/// archive has lost is said and the picture goes back to live. A real player, a real server on
/// loopback that gives the account one stream.
@Suite struct CatchupPlayerTests {
    static func clip(colour: UInt32) async throws -> TransportStreamClip {
        let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: colour)
        return try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
    }

    static func centre(_ player: Player) async -> (r: Int, g: Int, b: Int)? {
        guard let png = try? await player.snapshotPNG(width: nil), let image = try? ImageCodec.decode(bytes: png) else { return nil }
        let m = image.meanRGB(x: 280, y: 60, width: 80, height: 60)
        return (Int(m.r), Int(m.g), Int(m.b))
    }

    /// A provider on loopback giving one stream: `/live.ts` red, `/archive/UTC.ts` green for the
    /// moments `has` keeps (404 for the others); the archive times asked, in order.
    static func provider(has: @escaping @Sendable (Int) -> Bool) async throws -> (LivePoolServer, AskedTimes) {
        let asked = AskedTimes()
        let server = try LivePoolServer(clips: [try await clip(colour: 0xFF0000), try await clip(colour: 0x00FF00)],
                                        streams: 1, whenFull: .endsOldest, route: { [asked] path in
            if path == "/live.ts" { return 0 }
            guard path.hasPrefix("/archive/"), path.hasSuffix(".ts"), let utc = Int(path.dropFirst(9).dropLast(3)) else { return nil }
            asked.times.withLock { $0.append(utc) }
            return has(utc) ? 1 : nil
        })
        return (server, asked)
    }

    @Test(.heavy) func aPastMomentPlaysFromTheArchiveAndALostOneIsSaid() async throws {
        try GStreamer.initialize()
        let reference = Int(Date().timeIntervalSince1970) - 7200
        let (server, asked) = try await Self.provider { $0 >= reference }
        defer { server.stop() }
        let channel = Channel(id: "seven", number: ChannelNumber(7), name: "Seven", sources: [server.base + "/live.ts"],
                              attributes: ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "3"])
        let options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all)
        let player = try Player(lineup: Lineup(channels: [channel]), options: options, logger: Logger(label: "test"))
        try await player.start()
        defer { Task { await player.shutdown() } }
        let t0 = ContinuousClock.now
        _ = await player.flip(.tune(ChannelNumber(7)))
        let live = await waitUntil(10) { await Self.centre(player).map { $0.r > 180 && $0.g < 80 } ?? false }
        let liveColour = await Self.centre(player)
        #expect(live, "live is red: \(String(describing: liveColour))")

        // 40 minutes into the archive, with no local timeshift at all.
        let moment = Date(timeIntervalSince1970: Double(reference + 2400))
        let status = try await player.timeshift(.seekTo(moment))
        #expect(status.archive && status.catchup && !status.live, "\(status)")
        #expect(Player.timeshiftLine(status).hasSuffix("· archive"), Comment(rawValue: Player.timeshiftLine(status)))
        #expect(asked.times.withLock { $0 } == [reference + 2400])
        let archived = await waitUntil(8) { await Self.centre(player).map { $0.g > 180 && $0.r < 80 } ?? false }
        let archiveColour = await Self.centre(player)
        #expect(archived, "the archive is green: \(String(describing: archiveColour))")

        // The bar shows the archive's part (steel blue) and the picture's place in it.
        let box = PositionBar.box(width: 640, height: 360)
        var archivePixels = 0
        for _ in 0..<30 where archivePixels <= 20 {
            if let png = try? await player.snapshotPNG(width: nil), let image = try? ImageCodec.decode(bytes: png) {
                archivePixels = image.count(x: box.x, y: box.y, width: box.width, height: box.height) { c in
                    (40...90).contains(c.r) && (85...135).contains(c.g) && (145...195).contains(c.b)
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(archivePixels > 20, "the bar's archive part: \(archivePixels) pixels")

        // Three hours ago the archive has nothing (404): said, and back to live.
        let lost = Date(timeIntervalSince1970: Double(reference - 3600))
        let refused = await #expect(throws: TimeshiftFailure.self) { try await player.timeshift(.seekTo(lost)) }
        #expect(refused?.message.contains("HTTP 404") == true && refused?.message.contains("back to live") == true, "\(String(describing: refused))")
        let back = await waitUntil(8) { await Self.centre(player).map { $0.r > 180 && $0.g < 80 } ?? false }
        let backColour = await Self.centre(player)
        #expect(back, "live again after the 404: \(String(describing: backColour))")
        let after = await player.timeshiftStatus()
        #expect(after?.live == true, "\(String(describing: after))")
        #expect(server.maxOpen == 1 && server.endedByServer == 0, "one stream at a time: most \(server.maxOpen), ended \(server.endedStreams.map { "\($0.channel) at \($0.at - t0)" }), asked \(server.requests.map { "\($0.channel) at \($0.at - t0)" })")
        await player.shutdown()
    }
}

/// The archive times a provider was asked for, in order.
final class AskedTimes: Sendable {
    let times = Mutex<[Int]>([])
}

/// Half-hour programmes on one channel, around now.
struct HalfHours: ProgrammeGuide {
    let channelID: String
    func slot(_ start: Date) -> ProgrammeSummary {
        let begin = GuideNavigator.aligned(start)
        return ProgrammeSummary(title: "Slot \(Int(begin.timeIntervalSince1970) / 1800 % 48)", start: begin, end: begin.addingTimeInterval(1800))
    }
    func nowNext(channelID: String, at instant: Date) -> NowNext {
        guard channelID == self.channelID else { return .unknown }
        let now = slot(instant)
        return NowNext(now: now, next: slot(now.end))
    }
    func programmes(channelIDs: [String], from: Date, to: Date) -> [String: [ProgrammeSummary]] {
        guard channelIDs.contains(channelID) else { return [:] }
        return [channelID: stride(from: GuideNavigator.aligned(from).timeIntervalSince1970, to: to.timeIntervalSince1970, by: 1800)
            .map { slot(Date(timeIntervalSince1970: $0)) }]
    }
}

extension CatchupPlayerTests {
    /// In the on-screen guide, Left goes back into programmes that ended on a channel whose
    /// provider keeps its past, and OK plays one from its start out of the archive.
    @Test(.heavy) func aProgrammeThatEndedPlaysFromTheGuide() async throws {
        try GStreamer.initialize()
        let (server, asked) = try await Self.provider { _ in true }
        defer { server.stop() }
        let channel = Channel(id: "seven", number: ChannelNumber(7), name: "Seven", sources: [server.base + "/live.ts"],
                              attributes: ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "2"])
        let options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all)
        let guide = HalfHours(channelID: "seven")
        let player = try Player(lineup: Lineup(channels: [channel]), options: options, programmes: guide, logger: Logger(label: "test"))
        try await player.start()
        defer { Task { await player.shutdown() } }
        _ = await player.flip(.tune(ChannelNumber(7)))
        #expect(await waitUntil(10) { await Self.centre(player).map { $0.r > 180 && $0.g < 80 } ?? false }, "live is red")

        await player.openGuide()
        let onNow = guide.slot(Date())
        let before = guide.slot(onNow.start.addingTimeInterval(-1))
        let moved = try await player.moveGuide(.left)
        #expect(moved.programme == before.title, "Left goes to the programme before the one on now: \(String(describing: moved.programme))")
        let result = try await player.selectGuide()
        #expect(result.outcome == .completed)
        #expect(asked.times.withLock { $0 } == [Int(before.start.timeIntervalSince1970)], "asked from the programme's start: \(asked.times.withLock { $0 })")
        let status = await player.timeshiftStatus()
        #expect(status?.archive == true && status.map { abs($0.position.timeIntervalSince(before.start)) < 5 } == true, "\(String(describing: status))")
        let archived = await waitUntil(8) { await Self.centre(player).map { $0.g > 180 && $0.r < 80 } ?? false }
        #expect(archived, "the programme plays from the archive")
        await player.shutdown()
    }
}

extension BGRAImage {
    /// How many pixels of the box `colour` accepts.
    func count(x: Int, y: Int, width: Int, height: Int, _ colour: ((r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool) -> Int {
        var n = 0
        for py in y..<(y + height) {
            for px in x..<(x + width) where colour(rgba(x: px, y: py)) { n += 1 }
        }
        return n
    }
}

extension CatchupPlayerTests {
    /// "From the start" (`POST /api/v1/catchup`): the programme on now plays from its start out of
    /// the archive; a channel without one, an unknown channel, a moment older than the archive
    /// keeps and one still to come are refused before any flip, saying why.
    @Test(.heavy) func theProgrammeOnNowPlaysFromItsStartAndBadAsksAreRefused() async throws {
        try GStreamer.initialize()
        let (server, asked) = try await Self.provider { _ in true }
        defer { server.stop() }
        let seven = Channel(id: "seven", number: ChannelNumber(7), name: "Seven", sources: [server.base + "/live.ts"],
                            attributes: ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "2"])
        let eight = Channel(id: "eight", number: ChannelNumber(8), name: "Eight", sources: ["test://color/0000ff?size=320x180&fps=25&gop=25"])
        let options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all)
        let guide = HalfHours(channelID: "seven")
        let player = try Player(lineup: Lineup(channels: [seven, eight]), options: options, programmes: guide, logger: Logger(label: "test"))
        try await player.start()
        defer { Task { await player.shutdown() } }
        _ = await player.flip(.tune(ChannelNumber(8)))
        #expect(await waitUntil(10) { await Self.centre(player).map { $0.b > 180 && $0.r < 80 } ?? false }, "eight is blue")

        func refusal(_ number: Int, _ start: Date) async -> (TimeshiftFailureCode, String)? {
            do {
                _ = try await player.playFromStart(ChannelNumber(number), at: start)
                return nil
            } catch { return (error.code, error.message) }
        }
        let now = Date()
        #expect(await refusal(8, now.addingTimeInterval(-600))?.0 == .noArchive)
        #expect(await refusal(9, now.addingTimeInterval(-600))?.0 == .unknownChannel)
        let old = await refusal(7, now.addingTimeInterval(-3 * 86_400))
        #expect(old?.0 == .outsideArchive && old?.1.contains("keeps 2 days") == true, "\(String(describing: old))")
        #expect(await refusal(7, now.addingTimeInterval(600))?.0 == .outsideArchive)
        #expect(asked.times.withLock { $0 }.isEmpty, "nothing was asked of the archive")
        #expect(await Self.centre(player).map { $0.b > 180 } ?? false, "and eight stays on screen")

        let onNow = guide.slot(Date())
        let status = try await player.playFromStart(ChannelNumber(7), at: onNow.start)
        #expect(status.channel == ChannelNumber(7) && status.archive, "\(status)")
        #expect(asked.times.withLock { $0 } == [Int(onNow.start.timeIntervalSince1970)], "asked from its start: \(asked.times.withLock { $0 })")
        #expect(await waitUntil(8) { await Self.centre(player).map { $0.g > 180 && $0.r < 80 } ?? false }, "the archive plays (green)")
        await player.shutdown()
    }
}

extension CatchupPlayerTests {
    /// An archive on another server than its channel's stream takes a stream of that server's
    /// pool: a warm channel of that server that holds its one stream is let go first, so the
    /// server never has to end one (and back to live, the same on the channel's own server).
    @Test(.heavy) func anArchiveOnAnotherServerMakesRoomInThatServersPool() async throws {
        try GStreamer.initialize()
        let reference = Int(Date().timeIntervalSince1970) - 7200
        let live = try LivePoolServer(clips: [try await Self.clip(colour: 0xFF0000)], streams: 1, whenFull: .endsOldest,
                                      route: { $0 == "/live.ts" ? 0 : nil })
        defer { live.stop() }
        // The archive's server also carries a channel of its own (blue), kept warm.
        let archive = try LivePoolServer(clips: [try await Self.clip(colour: 0x0000FF), try await Self.clip(colour: 0x00FF00)],
                                         streams: 1, whenFull: .endsOldest, route: { path in
            if path == "/blue.ts" { return 0 }
            return path.hasPrefix("/archive/") && path.hasSuffix(".ts") ? 1 : nil
        })
        defer { archive.stop() }
        let seven = Channel(id: "seven", number: ChannelNumber(7), name: "Seven", sources: [live.base + "/live.ts"],
                            attributes: ["catchup": "default", "catchup-source": archive.base + "/archive/{utc}.ts", "catchup-days": "3"])
        let eight = Channel(id: "eight", number: ChannelNumber(8), name: "Eight", sources: [archive.base + "/blue.ts"])
        var map = StreamPoolMap()
        map.hostLimits = [try #require(StreamPoolMap.HostLimit(live.hostAndPort + "=1")), try #require(StreamPoolMap.HostLimit(archive.hostAndPort + "=1"))]
        var options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all)
        options.pools = PoolSettings(map: map)
        let player = try Player(lineup: Lineup(channels: [seven, eight]), options: options, logger: Logger(label: "test"))
        try await player.start()
        defer { Task { await player.shutdown() } }
        let t0 = ContinuousClock.now
        _ = await player.flip(.tune(ChannelNumber(7)))
        #expect(await waitUntil(10) { await Self.centre(player).map { $0.r > 180 && $0.g < 80 } ?? false }, "live is red")
        #expect(await waitUntil(15) { archive.openChannels == [0] }, "channel 8 warm on the archive's server: \(archive.openChannels)")

        let status = try await player.timeshift(.seekTo(Date(timeIntervalSince1970: Double(reference + 2400))))
        #expect(status.archive, "\(status)")
        let archived = await waitUntil(8) { await Self.centre(player).map { $0.g > 180 && $0.r < 80 } ?? false }
        let colour = await Self.centre(player)
        #expect(archived, "the archive is green: \(String(describing: colour))")
        #expect(archive.openChannels == [1], "the archive holds the server's one stream: \(archive.openChannels)")

        _ = try await player.timeshift(.live)
        #expect(await waitUntil(8) { await Self.centre(player).map { $0.r > 180 && $0.g < 80 } ?? false }, "live again")
        for server in [live, archive] {
            #expect(server.maxOpen == 1 && server.endedByServer == 0,
                    "\(server.hostAndPort): most open \(server.maxOpen), ended \(server.endedStreams.map { "\($0.channel) at \($0.at - t0)" }), asked \(server.requests.map { "\($0.channel) at \($0.at - t0)" })")
        }
        await player.shutdown()
    }
}
