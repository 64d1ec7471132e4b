import Foundation
@testable import Headend
import LoopbackStreams
@testable import MediaFormats
import Testing

extension HeadendTests {
    /// The programme-table watch on real transport streams written by ffmpeg: a clip followed by
    /// a clip of another codec on the same PIDs with the same table version (what a playout
    /// server changing clips sends, and what the demuxer does not follow) is a change; a new
    /// version, a bit flipped in the table, a loop of the same clip and a file that is not a
    /// transport stream are not.
    @Suite struct ProgramMapWatching {
        static func bytes(_ codec: ClipFormat.Codec) async throws -> [UInt8] {
            let format = ClipFormat(codec: codec, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 2, bitrateKbps: 300)
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await format.made(in: ClipFormat.cacheDirectory))))
        }

        /// Reads `stream` in pieces of `piece` bytes (a datagram, an HTTP read), the changes found.
        static func changes(_ stream: [UInt8], piece: Int) -> [ProgramMapWatch.Change] {
            var watch = ProgramMapWatch()
            var found: [ProgramMapWatch.Change] = []
            var i = 0
            while i < stream.count {
                found += watch.read(Array(stream[i..<min(stream.count, i + piece)]))
                i += piece
            }
            return found
        }

        /// The PMT PID of a clip (its PAT's first programme).
        static func programMapPID(_ stream: [UInt8]) -> Int? {
            var watch = ProgramMapWatch()
            _ = watch.read(Array(stream.prefix(188 * 50)))
            return watch.programMapPID
        }

        /// `stream` with `edit` applied to every PMT section (single-packet ones), its CRC made right
        /// again unless `keepCRC`.
        static func editingPMT(_ stream: [UInt8], keepCRC: Bool = false, _ edit: (inout [UInt8]) -> Void) throws -> [UInt8] {
            let pmtPID = try #require(programMapPID(stream))
            var out = stream
            var offset = 0
            while offset + 188 <= out.count {
                let pid = (Int(out[offset + 1] & 0x1F) << 8) | Int(out[offset + 2])
                if pid == pmtPID, out[offset + 1] & 0x40 != 0, (out[offset + 3] >> 4) & 0x3 == 1 {
                    let start = offset + 4 + 1 + Int(out[offset + 4])
                    let length = 3 + ((Int(out[start + 1] & 0x0F) << 8) | Int(out[start + 2]))
                    var section = Array(out[start..<start + length])
                    edit(&section)
                    if !keepCRC {
                        let crc = ProgramMapWatch.crc32(Array(section.dropLast(4)))
                        section.replaceSubrange(length - 4..<length, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
                    }
                    out.replaceSubrange(start..<start + length, with: section)
                }
                offset += 188
            }
            return out
        }

        @Test(arguments: [188 * 7, 1316 + 100, 4096, 61])
        func aCodecChangeUnderTheSameVersionIsFound(piece: Int) async throws {
            let h264 = try await Self.bytes(.h264), mpeg2 = try await Self.bytes(.mpeg2), hevc = try await Self.bytes(.hevc)
            #expect(Self.programMapPID(h264) == Self.programMapPID(mpeg2), "ffmpeg's clips share their PIDs")
            let found = Self.changes(h264 + mpeg2 + hevc + h264, piece: piece)
            #expect(found.map { $0.new.entries.first?.kind } == [0x02, 0x24, 0x1B], "\(found)")
            #expect(found.first?.old.entries.first?.kind == 0x1B)
            #expect(found.first?.old.version == found.first?.new.version)
            #expect(found.first.map { "\($0)" } == "its streams changed from H.264 on PID 256, AAC on PID 257 to MPEG-2 video on PID 256, AAC on PID 257 without a new table version",
                    "\(String(describing: found.first))")
        }

        @Test func theSameStreamsAgainUnderANewVersionOrABitFlipIsNoChange() async throws {
            let h264 = try await Self.bytes(.h264), mpeg2 = try await Self.bytes(.mpeg2)
            #expect(Self.changes(h264 + h264 + h264, piece: 1316).isEmpty, "a loop of one clip")
            // The same clip's tables as version 1: the same streams, nothing to read again.
            let bumped = try Self.editingPMT(h264) { $0[5] = ($0[5] & 0xC1) | (1 << 1) }
            #expect(Self.changes(h264 + bumped, piece: 1316).isEmpty, "a new version of the same streams")
            // Other streams under a new version: the demuxer follows, the ingest's routing must too.
            let other = try Self.editingPMT(mpeg2) { $0[5] = ($0[5] & 0xC1) | (1 << 1) }
            let found = Self.changes(h264 + other, piece: 1316)
            #expect(found.map { "\($0)" } == ["its streams changed from H.264 on PID 256, AAC on PID 257 to MPEG-2 video on PID 256, AAC on PID 257 (table version 0 to 1)"], "\(found)")
            // A bit flipped in the stream type on the way (the CRC no longer matches).
            let flipped = try Self.editingPMT(h264, keepCRC: true) { section in
                let infoLength = (Int(section[10] & 0x0F) << 8) | Int(section[11])
                section[12 + infoLength] ^= 0x04
            }
            #expect(Self.changes(h264 + flipped, piece: 1316).isEmpty, "a corrupt table")
        }

        /// The streams move to other PIDs, with a new PMT PID and new table versions (how a
        /// re-mux announces itself): the programme list changed.
        @Test func streamsOnOtherPIDsAreAChange() async throws {
            let h264 = try await Self.bytes(.h264)
            var moved = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 2, bitrateKbps: 300)
            moved.layout = ClipFormat.ProgramLayout(pmtPID: 0x1200, firstStreamPID: 0x300, tablesVersion: 1)
            let other = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await moved.made(in: ClipFormat.cacheDirectory))))
            let found = Self.changes(h264 + other, piece: 1316)
            #expect(found.first?.pid == 0, "the PAT names another PMT PID: \(found)")
            #expect(found.first.map { "\($0)" }?.hasPrefix("its programme list changed") == true)
        }

        /// Audio description is known by the programme's table: ffmpeg marks it with audio type 3
        /// in the ISO 639 descriptor; DVB's supplementary audio descriptor says it too.
        @Test func anAudioDescriptionStreamIsKnownByItsTable() async throws {
            var format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 2, bitrateKbps: 300)
            format.audioTracks = [.init(toneHz: 500, language: "eng", describesPicture: true), .init(toneHz: 300, language: "eng")]
            var watch = ProgramMapWatch()
            _ = watch.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: try await format.made(in: ClipFormat.cacheDirectory)))))
            #expect(watch.describingPIDs == [257], "video on 256, the described sound on 257, the main sound on 258")
            #expect(ProgramMapWatch.describesPicture([0x0A, 4] + Array("eng".utf8) + [0x03]))
            #expect(!ProgramMapWatch.describesPicture([0x0A, 4] + Array("eng".utf8) + [0x00]))
            #expect(ProgramMapWatch.describesPicture([0x7F, 2, 0x06, 0x01 << 2]), "supplementary audio: audio description")
            #expect(!ProgramMapWatch.describesPicture([0x7F, 2, 0x06, 0x00]), "supplementary audio: main audio")
            #expect(!ProgramMapWatch.describesPicture([0x0A, 200, 0x65]), "a descriptor cut short is read no further")
        }

        @Test func aFileThatIsNotATransportStreamIsNotRead() async throws {
            var watch = ProgramMapWatch()
            let mp4 = [UInt8](repeating: 0x47, count: 10) + (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(watch.read(mp4).isEmpty)
            #expect(watch.isTransportStream == false)
            var ts = ProgramMapWatch()
            _ = ts.read(Array(try await Self.bytes(.h264).dropFirst(100).prefix(4000)))  // starts mid-packet
            #expect(ts.isTransportStream == true)
        }
    }
}
