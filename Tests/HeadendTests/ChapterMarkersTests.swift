import Foundation
import GStreamer
@testable import Headend
import Lineup
import MediaProbe
import TestSupport
import Testing

extension HeadendTests {
    /// Chapters of file channels as navigation markers: placed on the wall clock on every loop
    /// (pure), and read from a real file played by a real headend with timeshift on.
    @Suite struct ChapterMarkersTests {
        init() throws { try GStreamer.initialize() }

        let chapters = [Chapter(start: 0, end: 2, title: "Opening"), Chapter(start: 2, end: 5, title: "Middle"), Chapter(start: 5, end: 6, title: "Credits")]
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)

        @Test func aLoopedFileHasItsChaptersOnEveryLoop() {
            // Running time 20 s played at t0 + 20: loops start at t0, t0+6, t0+12, t0+18.
            let markers = ChapterMarkers.place(chapters, length: 6, anchor: (20, t0.addingTimeInterval(20)),
                                               within: t0.addingTimeInterval(9)...t0.addingTimeInterval(20))
            #expect(markers.map { $0.time.timeIntervalSince(t0) } == [11, 12, 14, 17, 18, 20])
            #expect(markers.map(\.title) == ["Credits", "Opening", "Middle", "Credits", "Opening", "Middle"])
            #expect(markers.map(\.chapter) == [3, 1, 2, 3, 1, 2])
        }

        @Test func aFileThatDoesNotLoopHasThemOnce() {
            let markers = ChapterMarkers.place(chapters, length: nil, anchor: (3, t0), within: t0.addingTimeInterval(-10)...t0.addingTimeInterval(10))
            #expect(markers.map { $0.time.timeIntervalSince(t0) } == [-3, -1, 2])
            #expect(ChapterMarkers.place([], length: 6, anchor: (0, t0), within: t0...t0.addingTimeInterval(60)).isEmpty)
        }

        @Test func aPlayingFileChannelListsItsChaptersInItsBuffer() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-chapters-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = try makeChapteredFile(in: directory, seconds: 6, chapters: [("Opening", 0, 2), ("Middle", 2, 5), ("Credits", 5, 6)])

            let channel = makeChannel(["file://\(file)"], number: 4, name: "Film")
            let other = makeChannel(["test://color/ff0000?size=160x90&fps=15"], number: 5, name: "Red")
            let headend = Headend(lineup: Lineup(channels: [channel, other]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            #expect(try await headend.chapters(of: ChannelNumber("4")!).map(\.title) == ["Opening", "Middle", "Credits"])
            #expect(try await headend.chapters(of: ChannelNumber("5")!).isEmpty, "not a file")

            await headend.setTimeshift(TimeshiftSettings(window: .seconds(120), directory: directory))
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            try #require(await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe }, "not warm: \(source.state)")
            let (feed, _) = try await headend.activate(channel, sink: Activation.FrameRecorder())
            // Play past the end of the file, so the buffer holds a loop.
            try await Task.sleep(for: .seconds(9))
            let markers = try await headend.chapterMarkers(of: ChannelNumber("4")!)
            let status = try #require(await headend.status(feed: feed))
            let window = try #require(status.bufferStart)...(try #require(status.liveEdge))
            #expect(markers.count >= 4, "markers: \(markers)")
            #expect(markers.allSatisfy { window.contains($0.time) })
            // The same chapter comes back one file length (6 s) later.
            for marker in markers {
                if let again = markers.first(where: { $0.chapter == marker.chapter && $0.time > marker.time }) {
                    #expect(abs(again.time.timeIntervalSince(marker.time) - 6) < 0.3, "\(marker) then \(again)")
                }
            }
            let titles = markers.map(\.title)
            #expect(titles.contains("Opening") && titles.contains("Middle"), "\(titles)")
            await headend.deactivate(feed: feed)
            await headend.shutdown()
        }
    }
}
