import Foundation
import GStreamer
@testable import Headend
import Testing

extension HeadendTests {
    /// DVB subtitle pages in the `GOPCache`, from GStreamer's real encoders: listed with their
    /// language, the newest page carried from GOP to GOP for decoders, none for ingest taps.
    @Suite struct SubtitleCache {
        init() throws { try GStreamer.initialize() }

        /// A live H.264 picture (a keyframe every 10 frames at 30 fps) and a DVB subtitle page
        /// every second (`dvbsubenc`), feeding `cache`.
        final class Sources: @unchecked Sendable {
            let pipeline: Pipeline
            init(cache: GOPCache) throws {
                pipeline = try Pipeline(description: """
                    videotestsrc is-live=true ! video/x-raw,width=160,height=90,framerate=30/1 ! \
                    x264enc tune=zerolatency speed-preset=ultrafast key-int-max=10 ! \
                    h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au ! appsink name=video sync=false \
                    videotestsrc is-live=true pattern=white ! video/x-raw,format=AYUV,width=80,height=10,framerate=1/1 ! \
                    videobox border-alpha=0 left=-40 right=-40 top=-70 bottom=-10 ! video/x-raw,format=AYUV,width=160,height=90 ! \
                    dvbsubenc ! appsink name=subtitle sync=false
                    """)
                pipeline.appSink(named: "video")?.onSample { s in cache.append(s, track: .video) }
                pipeline.appSink(named: "subtitle")?.onSample { s in cache.append(s, track: .subtitle, stream: 0) }
                try pipeline.setState(.playing)
            }
            func stop() { pipeline.shutdown() }
        }

        final class Received: @unchecked Sendable {
            private let lock = NSLock()
            private var entries: [GOPCache.Entry] = []
            func add(_ e: GOPCache.Entry) { lock.withLock { entries.append(e) } }
            var all: [GOPCache.Entry] { lock.withLock { entries } }
        }

        @Test func decodersGetTheNewestPageWithTheGOPAndTapsGetNone() async throws {
            let cache = GOPCache()
            let sources = try Sources(cache: cache)
            defer { sources.stop() }
            cache.setLanguage("deu", stream: 0, track: .subtitle)
            #expect(await eventually(within: 8) { cache.subtitleTracks.count == 1 && cache.hasKeyframe })
            #expect(cache.subtitleTracks == [SubtitleTrack(index: 0, kind: .dvb, language: "deu")])
            #expect(cache.subtitleCaps(stream: 0)?.mediaType == "subpicture/x-dvb")
            #expect(cache.audioTracks.isEmpty, "a subtitle stream is no audio track")
            // Several GOPs (a third of a second each) after the last page: it is still carried.
            try await Task.sleep(for: .milliseconds(1500))
            for _ in 0..<4 {
                let start = cache.snapshot()
                #expect(start.entries.allSatisfy { $0.track != .subtitle }, "a snapshot (thumbnails) holds no pages")
                let feed = cache.attach(.feed(1)) { _ in }
                cache.detach(.feed(1))
                let pages = feed.entries.filter { $0.track == .subtitle }
                #expect((1...2).contains(pages.count), "the newest page (and one that came in this GOP): \(pages.count)")
                #expect(feed.entries.first?.isKeyframe == true)
                try await Task.sleep(for: .milliseconds(400))
            }

            let tapped = Received(), fed = Received()
            let tapStart = cache.attach(.tap(TapID(value: 1))) { tapped.add($0) }
            _ = cache.attach(.feed(2)) { fed.add($0) }
            #expect(tapStart.entries.allSatisfy { $0.track != .subtitle })
            #expect(await eventually(within: 5) { fed.all.contains { $0.track == .subtitle } }, "a decoder's feed gets pages live")
            #expect(!tapped.all.isEmpty && tapped.all.allSatisfy { $0.track == .video }, "a tap gets the picture and no pages")
            cache.detach(.tap(TapID(value: 1)))
            cache.detach(.feed(2))
        }
    }
}
