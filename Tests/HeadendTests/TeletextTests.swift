import Foundation
import GStreamer
@testable import Headend
@testable import MediaFormats
import Testing

extension HeadendTests {
    /// Teletext subtitles in the ingest: the pages a programme table's teletext descriptor names,
    /// the tracks a cache lists for them, and the teletext data it keeps for a flip (next to a DVB
    /// subtitle stream, which keeps its newest page).
    @Suite struct Teletext {
        init() throws { try GStreamer.initialize() }

        /// A page entry of a teletext descriptor: language, type and magazine, page.
        static func page(_ language: String, type: UInt8, magazine: UInt8, _ page: UInt8) -> [UInt8] {
            Array(language.utf8) + [type << 3 | magazine, page]
        }

        @Test func theDescriptorNamesLanguagesTypesAndPages() {
            let body = Self.page("ger", type: 2, magazine: 0, 0x88) + Self.page("eng", type: 5, magazine: 7, 0x77)
                + Self.page("fra", type: 1, magazine: 1, 0x00) + Self.page("ita", type: 2, magazine: 1, 0x5A) + [0x64, 0x65]
            let pages = ProgramMapWatch.teletextPages([0x0A, 4] + Array("deu".utf8) + [0] + [0x56, UInt8(body.count)] + body)
            #expect(pages == [TeletextPage(language: "ger", type: 2, number: 888), TeletextPage(language: "eng", type: 5, number: 777),
                              TeletextPage(language: "fra", type: 1, number: 100), TeletextPage(language: "ita", type: 2, number: nil)],
                    "magazine 0 is 8; a hexadecimal page has no number; a page cut short is not read")
            #expect(pages.map(\.isSubtitles) == [true, true, false, true])
            #expect(ProgramMapWatch.teletextPages([0x56, 0]).isEmpty, "a descriptor naming no page")
            #expect(ProgramMapWatch.teletextPages([0x56, 200] + Self.page("deu", type: 2, magazine: 8, 0x88)).count == 1,
                    "a descriptor longer than the data is read as far as it goes")
            #expect(ProgramMapWatch.teletextPages([0x56, 5, 0xFF, 0x00, 0x01, 0x10, 0x88]).first?.language == nil, "no letters, no language")

            // A table that names other pages is a change, and the log says which.
            typealias Entry = ProgramMapWatch.Table.Entry
            let old = ProgramMapWatch.Table(version: 0, entries: [Entry(kind: 0x1B, pid: 256), Entry(kind: 0x06, pid: 258, teletextPages: [pages[0]])])
            let new = ProgramMapWatch.Table(version: 1, entries: [Entry(kind: 0x1B, pid: 256), Entry(kind: 0x06, pid: 258, teletextPages: pages)])
            #expect("\(ProgramMapWatch.Change(pid: 4096, old: old, new: new))" == "its streams changed from H.264 on PID 256, private data (teletext pages 888 ger) on PID 258 to H.264 on PID 256, private data (teletext pages 888 ger, 777 eng, 100 fra, ? ita) on PID 258 (table version 0 to 1)")
        }

        /// Teletext data from `appsrc` as subtitle stream 1 of `cache`, next to the picture and the
        /// DVB subtitles (stream 0) of `SubtitleCache.Sources`.
        final class TeletextSource: @unchecked Sendable {
            let pictureAndDVB: SubtitleCache.Sources
            let pipeline: Pipeline
            init(cache: GOPCache) throws {
                pictureAndDVB = try SubtitleCache.Sources(cache: cache)
                pipeline = try Pipeline(description: "appsrc name=ttx is-live=true format=time do-timestamp=true caps=application/x-teletext ! appsink name=subtitle sync=false")
                pipeline.appSink(named: "subtitle")?.onSample { s in cache.append(s, track: .subtitle, stream: 1) }
                try pipeline.setState(.playing)
            }
            /// Pushes teletext data: a data identifier and stuffing, its number in the second byte.
            func push(_ n: Int) -> Bool {
                pipeline.appSource(named: "ttx")?.push(Buffer(bytes: [0x10, UInt8(n)] + [UInt8](repeating: 0xFF, count: 45))) ?? false
            }
            /// Pushes the header of page 888 (magazine 8) and a row of it.
            func pushPage() -> Bool {
                let header = TeletextRetentionUnits.unit(magazine: 8, row: 0, page: 0x88), row = TeletextRetentionUnits.unit(magazine: 8, row: 22)
                return pipeline.appSource(named: "ttx")?.push(Buffer(bytes: [0x10] + header + row)) ?? false
            }
            /// Pushes a time-filling header of magazine 8.
            func pushFiller() -> Bool {
                pipeline.appSource(named: "ttx")?.push(Buffer(bytes: [0x10] + TeletextRetentionUnits.unit(magazine: 8, row: 0, page: 0xFF, subtitle: false))) ?? false
            }
            func stop() {
                pipeline.shutdown()
                pictureAndDVB.stop()
            }
        }

        @Test func theCacheListsSubtitlePagesAndKeepsTheNewestDataForAFlip() async throws {
            let cache = GOPCache()
            let sources = try TeletextSource(cache: cache)
            defer { sources.stop() }
            cache.setTeletextPages([TeletextPage(language: "ger", type: 2, number: 888), TeletextPage(language: "eng", type: 5, number: 777),
                                    TeletextPage(language: "fra", type: 1, number: 100), TeletextPage(language: "ita", type: 2, number: nil),
                                    TeletextPage(language: "ger", type: 2, number: 888)], stream: 1)
            // Stuffing numbered in its second byte, and early, once, page 888 of magazine 8 and the
            // time filler that ends its transmission.
            let pushed = 100
            for n in 0..<pushed {
                #expect(n == 10 ? sources.pushPage() : n == 12 ? sources.pushFiller() : sources.push(n))
                try await Task.sleep(for: .milliseconds(15))
            }
            // Several GOPs (a third of a second each) after the last data: the newest still go on.
            try await Task.sleep(for: .milliseconds(1200))
            #expect(cache.subtitleTracks == [
                SubtitleTrack(index: 0, kind: .dvb, language: nil),
                SubtitleTrack(index: SubtitleTrack.teletextIndex(stream: 1, page: 888), kind: .teletext(page: 888, stream: 1), language: "deu"),
                SubtitleTrack(index: SubtitleTrack.teletextIndex(stream: 1, page: 777), kind: .teletext(page: 777, stream: 1), language: "eng"),
            ], "the DVB stream; the subtitle pages with a number, once each, languages as ISO 639-2/T")
            #expect(cache.subtitleTracks.map(\.format) == ["DVB", "Teletext", "Teletext"] && cache.subtitleTracks.map(\.page) == [nil, 888, 777])
            let start = cache.attach(.feed(1)) { _ in }
            cache.detach(.feed(1))
            let kept = start.entries.filter { $0.track == .subtitle && $0.stream == 1 }.compactMap { $0.buffer.bytes().dropFirst().first }.map(Int.init)
            let recent = TeletextRetention<Int>.recentKept
            #expect(kept == [0x03, 11, 0x02] + Array((pushed - recent)..<pushed),
                    "page 888's transmission (to the next header of its magazine) and the newest \(recent), in order, once: \(kept)")
            #expect((1...2).contains(start.entries.filter { $0.track == .subtitle && $0.stream == 0 }.count), "of the DVB stream, its newest page")
            #expect(start.entries.first?.isKeyframe == true)
        }
    }
}

/// EBU teletext data units for the cache's tests (as `TeletextRetentionTests` builds them).
enum TeletextRetentionUnits {
    static func unit(magazine: Int, row: Int, page: UInt8 = 0, subtitle: Bool = true) -> [UInt8] {
        let h = TeletextHeader.hammingCodes
        var packet = [h[(magazine & 7) | ((row & 1) << 3)], h[(row >> 1) & 0xF]]
        packet += row == 0 ? [h[Int(page & 0xF)], h[Int(page >> 4)]] + [UInt8](repeating: h[0], count: 38) : [UInt8](repeating: 0x41, count: 40)
        return [subtitle ? 0x03 : 0x02, 0x2C, 0xE7, 0xE4] + packet.map(TeletextHeader.reversed)
    }
}
