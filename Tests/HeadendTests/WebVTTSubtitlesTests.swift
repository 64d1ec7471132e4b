import Foundation
import GStreamer
@testable import Headend
import MediaFormats
import Testing

/// Subtitle tracks of WebVTT renditions in the selection.
@Suite struct WebVTTTrackSelectionTests {
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
