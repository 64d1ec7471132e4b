import Foundation
@testable import MediaFormats
import Testing

/// The WebVTT parser: timings, text, the timestamp map, and what it skips. Pure.
@Suite struct WebVTTFileTests {
    @Test func readsTimingsInBothFormsAndMultiLineText() throws {
        let file = try WebVTTFile(parsing: """
            WEBVTT

            1
            00:00:01.500 --> 00:00:03.250
            Hello there,
            General Kenobi.

            01:02.000 --> 01:04.500 line:90% align:center position:50%
            Short form, settings after the timing

            10:00:00.000 --> 10:00:01.001
            Ten hours in
            """)
        #expect(file.problems.isEmpty)
        #expect(file.cues.count == 3)
        #expect(file.cues[0] == .init(start: 1.5, end: 3.25, text: "Hello there,\nGeneral Kenobi."))
        #expect(file.cues[1] == .init(start: 62, end: 64.5, text: "Short form, settings after the timing"))
        #expect(file.cues[2].start == 36000 && file.cues[2].end == 36001.001)
    }

    @Test func stripsTagsAndResolvesReferences() throws {
        let file = try WebVTTFile(parsing: "WEBVTT\n\n00:01.000 --> 00:02.000\n<v Roger><i>Fish</i> &amp; <b>chips</b></v> <c.yellow>&lt;3</c> <00:01.500>now\n")
        #expect(file.cues.map(\.text) == ["Fish & chips <3 now"])
    }

    @Test func skipsNoteStyleAndRegionBlocksAndTakesBOMAndCRLF() throws {
        let text = "\u{FEFF}WEBVTT - a title\r\nX-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:900000\r\n\r\n"
            + "NOTE a comment\r\nthat goes on\r\n\r\nSTYLE\r\n::cue { color: lime }\r\n\r\nREGION\r\nid:fred\r\n\r\n"
            + "00:00:00.000 --> 00:00:02.000\r\nOne\r\n\r\n00:00:02.000 --> 00:00:04.000\rTwo\r"
        let file = try WebVTTFile(parsing: text)
        #expect(file.problems.isEmpty)
        #expect(file.cues.map(\.text) == ["One", "Two"])
        #expect(file.timestampMap == .init(mpegts: 900_000, local: 0))
    }

    @Test func placesCuesOnTheMPEGClock() throws {
        let file = try WebVTTFile(parsing: "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:183600,LOCAL:00:00:10.000\n\n00:00:12.000 --> 00:00:13.000\nx\n")
        // 2 s after LOCAL is 180000 ticks after MPEGTS.
        #expect(file.mpegTime(file.cues[0].start) == Int64(183_600 + 180_000))
        // Without a map, cue time 0 is MPEG-TS time 0 (RFC 8216).
        let bare = try WebVTTFile(parsing: "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nx\n")
        #expect(bare.timestampMap == nil)
        #expect(bare.mpegTime(1) == 90_000)
    }

    @Test func skipsBrokenCuesAndSaysWhich() throws {
        let file = try WebVTTFile(parsing: """
            WEBVTT

            00:00:01.000 --> 00:00:02.000
            kept

            00:00:0x.000 --> 00:00:04.000
            bad digits

            00:00:05.000 -> 00:00:06.000
            bad arrow

            00:00:08.000 --> 00:00:07.000
            ends before it starts

            00:00:09.00 --> 00:00:10.000
            two-digit fraction

            00:61.000 --> 00:62.000
            sixty-one seconds

            00:00:11.000 --> 00:00:12.000
            kept too
            """)
        #expect(file.cues.map(\.text) == ["kept", "kept too"])
        #expect(file.problems.count == 5)
        #expect(file.problems[0].contains("cue 2") && file.problems[0].contains("00:00:0x.000"))
    }

    @Test func refusesWhatIsNoWebVTT() {
        #expect(throws: WebVTTFile.NotWebVTT.self) { try WebVTTFile(parsing: "<html><body>404 Not Found</body></html>") }
        #expect(throws: WebVTTFile.NotWebVTT.self) { try WebVTTFile(parsing: "WEBVTTX\n\n00:01.000 --> 00:02.000\nx") }
        #expect(throws: WebVTTFile.NotWebVTT.self) { try WebVTTFile(parsing: "") }
        #expect((try? WebVTTFile(parsing: "WEBVTT"))?.cues == [])
    }

    @Test func timestamps() {
        #expect(WebVTTFile.timestamp("00:00.000") == 0)
        #expect(WebVTTFile.timestamp("59:59.999") == 3599.999)
        #expect(WebVTTFile.timestamp("123:00:00.000") == 442_800)
        #expect(WebVTTFile.timestamp("1:00:00.000") == nil)
        #expect(WebVTTFile.timestamp("00:60.000") == nil)
        #expect(WebVTTFile.timestamp("00:00,000") == nil)
    }
}

/// The HLS playlists that name and list WebVTT segments. Pure.
@Suite struct HLSSubtitlePlaylistTests {
    static let base = URL(string: "http://127.0.0.1:8000/tv/master.m3u8")!

    @Test func readsTheSubtitleRenditionsOfTheVariantsGroup() {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",URI="audio.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English, CC",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="subs/en.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=NO,URI="http://cdn.example/de.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Forced",LANGUAGE="en",FORCED=YES,AUTOSELECT=YES,URI="subs/forced.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="other",NAME="Other",LANGUAGE="fr",URI="other.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="In band",LANGUAGE="es"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,SUBTITLES="subs",AUDIO="aud"
            video.m3u8
            """
        let r = HLSSubtitleRendition.renditions(inMaster: master, base: Self.base)
        #expect(r.map(\.name) == ["English, CC", "Deutsch", "Forced"])
        #expect(r[0].url.absoluteString == "http://127.0.0.1:8000/tv/subs/en.m3u8")
        #expect(r[1].url.absoluteString == "http://cdn.example/de.m3u8")
        #expect(r[0].language == "en" && r[0].isDefault && r[0].autoSelect && !r[0].forced)
        #expect(!r[1].autoSelect && r[2].forced)
        #expect(HLSSubtitleRendition.renditions(inMaster: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", base: Self.base).isEmpty)
    }

    @Test func readsAMediaPlaylist() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:4\r\n#EXT-X-MEDIA-SEQUENCE:17\r\n#EXTINF:4.000,\r\n17.vtt\r\n#EXT-X-DISCONTINUITY\r\n#EXTINF:3.5,\r\nhttp://x/18.vtt\r\n"
        let p = try HLSMediaPlaylist(parsing: text, base: Self.base)
        #expect(p.targetDuration == 4 && !p.ended)
        #expect(p.segments.map(\.sequence) == [17, 18])
        #expect(p.segments.map(\.url.absoluteString) == ["http://127.0.0.1:8000/tv/17.vtt", "http://x/18.vtt"])
        #expect(p.segments[1].duration == 3.5)
        let notHLS = #expect(throws: HLSPlaylistError.self) { try HLSMediaPlaylist(parsing: "WEBVTT\n", base: Self.base) }
        #expect(notHLS?.code == .notAPlaylist && notHLS?.message == "is no HLS playlist (it starts with \"WEBVTT \")", "\(String(describing: notHLS))")
        #expect(try HLSMediaPlaylist(parsing: "#EXTM3U\n#EXTINF:1,\na.vtt\n#EXT-X-ENDLIST\n", base: Self.base).ended)
    }
}

