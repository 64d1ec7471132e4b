import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Switcher
import TestSupport
import Testing

/// Programme starts from the guide are timeshift markers: listed in the status, reached by
/// previous/next marker, next to the markers set over the API; and a move shows the position bar.
@Suite(.serialized, .heavy) struct TimeshiftMarkersTests {
    /// Programmes of 4 s each on one channel, from `origin` on.
    struct ShortProgrammes: ProgrammeGuide {
        let channelID: String
        let origin: Date
        func slot(_ i: Int) -> ProgrammeSummary {
            ProgrammeSummary(title: "Part \(i)", start: origin.addingTimeInterval(Double(i) * 4), end: origin.addingTimeInterval(Double(i + 1) * 4))
        }
        func nowNext(channelID: String, at instant: Date) -> NowNext {
            guard channelID == self.channelID else { return .unknown }
            let i = Int(instant.timeIntervalSince(origin) / 4)
            return NowNext(now: slot(i), next: slot(i + 1))
        }
        func programmes(channelIDs: [String], from: Date, to: Date) -> [String: [ProgrammeSummary]] {
            guard channelIDs.contains(channelID) else { return [:] }
            let first = max(0, Int(from.timeIntervalSince(origin) / 4)), last = Int(to.timeIntervalSince(origin) / 4)
            return [channelID: first <= last ? (first...last).map(slot) : []]
        }
    }

    @Test func programmeStartsAreMarkersAndAMoveShowsThePositionBar() async throws {
        try GStreamer.initialize()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-markers-\(UUID().uuidString)")
        let lineup = Lineup(channels: [Channel(id: "ball", number: ChannelNumber(1), name: "Ball", sources: ["test://ball?size=160x90&gop=15"])])
        var options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all)
        options.timeshift = TimeshiftSettings(window: .seconds(60), memoryBytes: 8 << 20, directory: directory)
        let guide = ShortProgrammes(channelID: "ball", origin: Date().addingTimeInterval(-2))
        let player = try Player(lineup: lineup, options: options, programmes: guide, logger: Logger(label: "test"))
        try await player.start()
        defer { Task { await player.shutdown() } }
        _ = await player.flip(.tune(ChannelNumber(1)))
        try await Task.sleep(for: .seconds(9))

        let status = try #require(await player.timeshiftStatus())
        let programmes = status.markers.filter { $0.kind == .programme }
        #expect(programmes.count >= 1 && programmes.allSatisfy { $0.name.hasPrefix("Part ") && $0.id == nil }, "\(status.markers)")
        // The newest programme start at least the grace before the picture (live here).
        let now = try #require(await player.timeshiftStatus()).position
        let expected = try #require(programmes.last { $0.time < now.addingTimeInterval(-TimeshiftNavigation.previousGrace) })

        let back = try await player.timeshift(.previousMarker)
        // A programme starts every 4 s: on a loaded machine a newer one can pass the grace
        // between reading the position and the move, and is then the right landing (one that
        // started before the move's end less the grace, no later).
        let latest = Date().addingTimeInterval(-TimeshiftNavigation.previousGrace)
        let starts = try #require(await player.timeshiftStatus()).markers.filter {
            $0.kind == .programme && $0.time >= expected.time && $0.time <= latest
        }
        #expect(!back.live && starts.contains { back.position <= $0.time && back.position > $0.time.addingTimeInterval(-1.5) },
                "at the keyframe before \(expected.name) (\(expected.time)) or a later start: \(back.position)")
        // The position bar is on screen, above the banner's place (with a guide): grey and white.
        let bar = PositionBarProbe.box
        var white = 0
        for _ in 0..<50 where white <= 20 {
            let image = try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
            white = image.countWhite(x: bar.x, y: bar.y, width: bar.width, height: bar.height)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(white > 20, "the position bar's played part and handle: \(white) white pixels")

        _ = try await player.addTimeshiftMarker(at: nil, name: "Here")
        let listed = try #require(await player.timeshiftStatus()).markers
        #expect(listed.contains { $0.kind == .set && $0.name == "Here" } && listed.map(\.time) == listed.map(\.time).sorted())
        await player.shutdown()
    }

    @Test func chaptersOfAFileChannelAreMarkers() async throws {
        try GStreamer.initialize()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-chapter-markers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = try makeChapteredFile(in: directory, seconds: 6, size: "160x90", gop: 12,
                                         chapters: [("Opening", 0, 3), ("Closing", 3, 6)])

        let lineup = Lineup(channels: [Channel(id: "film", number: ChannelNumber(1), name: "Film", sources: ["file://\(file)"])])
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all)
        options.timeshift = TimeshiftSettings(window: .seconds(60), memoryBytes: 8 << 20, directory: directory.appendingPathComponent("ts"))
        let player = try Player(lineup: lineup, options: options, logger: Logger(label: "test"))
        try await player.start()
        #expect(await player.flip(.tune(ChannelNumber(1))).outcome == .completed)
        try await Task.sleep(for: .seconds(9))
        let status = try #require(await player.timeshiftStatus())
        let chapters = status.markers.filter { $0.kind == .chapter }
        #expect(chapters.count >= 2 && Set(chapters.map(\.name)).isSubset(of: ["Opening", "Closing"]), "\(status.markers)")
        let expected = try #require(chapters.last { $0.time < status.position.addingTimeInterval(-TimeshiftNavigation.previousGrace) })
        let back = try await player.timeshift(.previousMarker)
        #expect(!back.live && back.position <= expected.time && back.position > expected.time.addingTimeInterval(-1),
                "at the keyframe before chapter \(expected.name) (\(expected.time)): \(back.position)")
        await player.shutdown()
    }
}

/// Where the bar sits on a 640x360 output with a guide: the guide banner's box is 21 px from
/// the bottom and 115 px tall; the bar is 15 px high, 4 px above it.
enum PositionBarProbe {
    static let box = (x: 21, y: 360 - 21 - 115 - 4 - 15, width: 598, height: 15)
}

extension BGRAImage {
    func countWhite(x: Int, y: Int, width: Int, height: Int) -> Int {
        var n = 0
        for py in y..<(y + height) {
            for px in x..<(x + width) {
                let c = rgba(x: px, y: py)
                if c.r > 230 && c.g > 230 && c.b > 230 { n += 1 }
            }
        }
        return n
    }
}
