import Foundation
@testable import MediaFormats
import Testing

/// Numbers a hostile or broken HLS source can put in its subtitle playlists and WebVTT files
/// (issue 32): each once trapped the process (`arithmetic overflow`, exit 132). Now each is a
/// cue or a playlist refused with the reason, and nothing computed from what is kept overflows.
@Suite struct HostileTextTests {
    static let base = URL(string: "http://127.0.0.1:8000/tv/subs.m3u8")!

    @Test(arguments: [
        "99999999999999999:00:00.000",  // hours past Int: `hours * 3600` trapped
        "9223372036854775807:00:00.000",  // Int.max hours
        "2562047788015:00:00.000",  // fits Int, but its 90 kHz ticks do not fit Int64
        "1000000:00:00.000",  // one past the 6 digits of hours kept
        "100001:00:00.000",  // past maxSeconds
        "-1:00:00.000", "+01:00:00.000", "٠١:00:00.000", "00:+1:00.000", "00:00:+1.000", "00:00:00.-01",
    ])
    func aTimeOutOfRangeIsNoTime(_ time: String) throws {
        #expect(WebVTTFile.timestamp(time) == nil, "\(time)")
        let file = try WebVTTFile(parsing: "WEBVTT\n\n\(time) --> \(time)\nboom\n\n00:01.000 --> 00:02.000\nkept\n")
        #expect(file.cues.map(\.text) == ["kept"])
        #expect(file.problems.count == 1 && file.problems[0].contains("cue 1"), "\(file.problems)")
    }

    @Test func theLastTimeKeptStillMapsToTicks() throws {
        #expect(WebVTTFile.timestamp("100000:00:00.000") == WebVTTFile.maxSeconds)
        #expect(WebVTTFile.timestamp("0000000100000:00:00.000") == WebVTTFile.maxSeconds, "leading zeros are not digits of size")
        let file = try WebVTTFile(parsing: "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:8589934591,LOCAL:00:00:00.000\n\n100000:00:00.000 --> 100000:00:00.000\nlate\n")
        let ticks = try #require(file.mpegTime(file.cues[0].start))
        #expect(ticks == 8_589_934_591 + 100_000 * 3600 * 90_000)
        // From the far end of LOCAL too.
        let back = try WebVTTFile(parsing: "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:100000:00:00.000\n\n00:00.000 --> 00:01.000\nearly\n")
        #expect(back.mpegTime(back.cues[0].start) == -100_000 * 3600 * 90_000)
        // Any Double is an answer, never a trap.
        for seconds in [Double.infinity, -.infinity, .nan, 1e300, -1e300] { #expect(file.mpegTime(seconds) == nil) }
    }

    @Test(arguments: [
        ("MPEGTS:9223372036854775807,LOCAL:00:00:00.000", Int64(9_223_372_036_854_775_807 % (1 << 33))),  // wrapped into 33 bits
        ("MPEGTS:8589934592,LOCAL:00:00:00.000", 0),
        ("MPEGTS:900000,LOCAL:00:00:00.000", 900_000),
    ])
    func aTimestampMapIsKeptIn33Bits(_ map: String, _ mpegts: Int64) throws {
        let file = try WebVTTFile(parsing: "WEBVTT\nX-TIMESTAMP-MAP=\(map)\n\n00:01.000 --> 00:02.000\nx\n")
        #expect(file.timestampMap?.mpegts == mpegts)
        #expect(file.mpegTime(file.cues[0].start) == mpegts + 90_000)
    }

    @Test(arguments: [
        "MPEGTS:-9223372036854775808,LOCAL:00:00:00.000", "MPEGTS:-1,LOCAL:00:00:00.000",
        "MPEGTS:99999999999999999999,LOCAL:00:00:00.000", "MPEGTS:+5,LOCAL:00:00:00.000",
        "MPEGTS:0,LOCAL:99999999999999999:00:00.000",
    ])
    func aTimestampMapOutOfRangeIsRefusedAndSaidSo(_ map: String) throws {
        let file = try WebVTTFile(parsing: "WEBVTT\nX-TIMESTAMP-MAP=\(map)\n\n00:01.000 --> 00:02.000\nx\n")
        #expect(file.timestampMap == nil)
        #expect(file.problems.count == 1 && file.problems[0].contains("no timestamp map"), "\(file.problems)")
        #expect(file.mpegTime(file.cues[0].start) == 90_000)
    }

    @Test(arguments: ["9223372036854775807", "18446744073709551615", "-9223372036854775808", "-1", "2199023254529", "x"])
    func aMediaSequenceOutOfRangeRefusesThePlaylist(_ sequence: String) {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n#EXTINF:4,\na.vtt\n#EXTINF:4,\nb.vtt\n"
        do {
            _ = try HLSMediaPlaylist(parsing: text, base: Self.base)
            Issue.record("sequence \(sequence) was taken")
        } catch let error as HLSPlaylistError {
            #expect(error.code == .mediaSequenceOutOfRange)
            #expect(error.description.contains("media sequence") && error.description.contains(String(sequence.prefix(24))), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func theLastSequenceKeptCountsOnSafely() throws {
        var text = "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:\(HLSMediaPlaylist.maxSequence)\n"
        for i in 0..<100 { text += "#EXTINF:1,\n\(i).vtt\n" }
        let p = try HLSMediaPlaylist(parsing: text, base: Self.base)
        #expect(p.segments.first?.sequence == HLSMediaPlaylist.maxSequence)
        #expect(p.segments.last?.sequence == HLSMediaPlaylist.maxSequence + 99)
    }

    @Test func tooManySegmentsRefuseThePlaylist() {
        var text = "#EXTM3U\n"
        for i in 0...HLSMediaPlaylist.maxSegments { text += "\(i).vtt\n" }
        let refused = #expect(throws: HLSPlaylistError.self) { try HLSMediaPlaylist(parsing: text, base: Self.base) }
        #expect(refused?.code == .tooManySegments && refused?.message == "lists more than \(HLSMediaPlaylist.maxSegments) segments",
                "\(String(describing: refused))")
    }

    @Test(arguments: ["nan", "inf", "-inf", "-1", "1e400", "1e9", ""])
    func durationsOutOfRangeAreNotTaken(_ value: String) throws {
        let p = try HLSMediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:\(value)\n#EXTINF:\(value),\na.vtt\n", base: Self.base)
        #expect(p.targetDuration == 6)
        #expect(p.segments.map(\.duration) == [0])
    }
}
