import Foundation
import GStreamer
@testable import Headend
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
        #expect(file.mpegTime(file.cues[0].start) == 183_600 + 180_000)
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
        let p = try #require(HLSMediaPlaylist(parsing: text, base: Self.base))
        #expect(p.targetDuration == 4 && !p.ended)
        #expect(p.segments.map(\.sequence) == [17, 18])
        #expect(p.segments.map(\.url.absoluteString) == ["http://127.0.0.1:8000/tv/17.vtt", "http://x/18.vtt"])
        #expect(p.segments[1].duration == 3.5)
        #expect(HLSMediaPlaylist(parsing: "WEBVTT\n", base: Self.base) == nil)
        #expect(HLSMediaPlaylist(parsing: "#EXTM3U\n#EXTINF:1,\na.vtt\n#EXT-X-ENDLIST\n", base: Self.base)?.ended == true)
    }

    @Test func languagesAndForcedRenditionsInTheSelection() {
        let tracks = [SubtitleTrack(index: 2000, kind: .webVTT, language: "eng", name: "Forced", autoSelect: false),
                      SubtitleTrack(index: 2001, kind: .webVTT, language: "eng", name: "English")]
        #expect(SubtitleSelection.choose(tracks, remembered: nil, preferred: ["eng"]) == 2001)
        #expect(SubtitleSelection.choose(tracks, remembered: nil, preferred: []) == nil)
        #expect(tracks[0].format == "WebVTT")
    }
}

/// Reading video PES timestamps from MPEG-TS bytes, and mapping MPEG-TS times by them. Pure.
@Suite struct MPEGTSClockTests {
    /// A TS packet starting a PES of `streamID` with `pts`.
    static func packet(streamID: UInt8, pts: Int64) -> [UInt8] {
        var p: [UInt8] = [0x47, 0x41, 0x00, 0x10, 0, 0, 1, streamID, 0, 0, 0x80, 0x80, 5]
        p += [UInt8(0x21 | ((pts >> 29) & 0x0E)), UInt8((pts >> 22) & 0xFF), UInt8(((pts >> 14) & 0xFE) | 1),
              UInt8((pts >> 7) & 0xFF), UInt8(((pts << 1) & 0xFE) | 1)]
        return p + [UInt8](repeating: 0xFF, count: 188 - p.count)
    }

    @Test func pairsVideoTimestampsWithFramesAndWraps() {
        let clock = MPEGTSClock()
        clock.isActive = true
        let bytes = Self.packet(streamID: 0xC0, pts: 5) + Self.packet(streamID: 0xE0, pts: (1 << 33) - 90_000)
            + Self.packet(streamID: 0xE0, pts: 3600)
        // Split across two buffers mid-packet.
        bytes[..<200].withUnsafeBytes { clock.read($0, owner: 0) }
        #expect(clock.runningTime(ofMPEG: 0) == nil)
        bytes[200...].withUnsafeBytes { clock.read($0, owner: 0) }
        clock.videoFrame(owner: 0, runningTime: 10 * ClockTime.second)
        // One second after the frame, across the 33-bit wrap.
        #expect(clock.runningTime(ofMPEG: 0) == 11 * ClockTime.second)
        #expect(clock.runningTime(ofMPEG: (1 << 33) - 180_000) == 9 * ClockTime.second)
        clock.videoFrame(owner: 0, runningTime: 20 * ClockTime.second)
        #expect(clock.runningTime(ofMPEG: 3600 + 90_000) == 21 * ClockTime.second)
        // Frames of another pad do not pair with these.
        clock.videoFrame(owner: 1, runningTime: 99 * ClockTime.second)
        #expect(clock.newestRunningTime == 20 * ClockTime.second)
    }
}

/// Hiding subtitle renditions from hlsdemux, in place, across buffers. Pure.
@Suite struct SubtitleRenditionMaskTests {
    @Test func masksTheTypeEvenWhenSplit() {
        let text = Array("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,URI=\"a.m3u8\"\n#EXT-X-MEDIA:TYPE=SUBTITLES,URI=\"s.m3u8\"\n#EXT-X-MEDIA:TTYPE=SUBTITLES\n".utf8)
        for cut in [0, 30, 60, 65, 70, text.count] {
            var mask = SubtitleRenditionMask()
            var bytes = text
            bytes.withUnsafeMutableBytes { all in
                mask.mask(UnsafeMutableRawBufferPointer(rebasing: all[..<cut]))
                mask.mask(UnsafeMutableRawBufferPointer(rebasing: all[cut...]))
            }
            let out = String(decoding: bytes, as: UTF8.self)
            #expect(out == String(decoding: text, as: UTF8.self).replacingOccurrences(of: "TYPE=SUBTITLES", with: "TYPE=SUBTITLEZ"), "cut at \(cut)")
            #expect(out.contains("TYPE=AUDIO"))
        }
    }
}

/// Cues placed on the ingest's running time by the video's clock, and again when it jumps.
@Suite struct WebVTTCuePlacementTests {
    static let ms = ClockTime.millisecond

    @Test func cuesWaitForTheClockAndMoveWithADiscontinuity() throws {
        let subs = WebVTTSubtitles(logger: testLogger, label: "test")
        subs.clock.isActive = true
        func frame(pts: Int64, at seconds: ClockTime) {
            MPEGTSClockTests.packet(streamID: 0xE0, pts: pts).withUnsafeBytes { subs.clock.read($0, owner: 0) }
            subs.clock.videoFrame(owner: 0, runningTime: seconds * ClockTime.second)
        }
        let file = try WebVTTFile(parsing: """
            WEBVTT
            X-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000

            00:02.000 --> 00:03.000
            first

            00:30.000 --> 00:31.000
            later
            """)
        subs.take(file, track: 2000)
        #expect(subs.text(track: 2000, at: 12_500 * Self.ms) == nil, "no clock yet")
        // MPEG-TS 10 s is running time 10 s.
        frame(pts: 900_000, at: 10)
        #expect(subs.text(track: 2000, at: 11_900 * Self.ms) == nil)
        #expect(subs.text(track: 2000, at: 12_500 * Self.ms) == "first")
        #expect(subs.text(track: 2000, at: 13_100 * Self.ms) == nil)
        #expect(subs.text(track: 2000, at: 40_500 * Self.ms) == "later")
        // At running time 20 s the video's timestamps start again at 0: the cue still ahead
        // moves with them, the one shown before stays.
        frame(pts: 0, at: 20)
        #expect(subs.text(track: 2000, at: 40_500 * Self.ms) == nil)
        #expect(subs.text(track: 2000, at: 60_500 * Self.ms) == "later")
        #expect(subs.text(track: 2000, at: 12_500 * Self.ms) == "first")
    }
}
