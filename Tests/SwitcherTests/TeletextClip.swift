import Foundation
@testable import Headend
import LoopbackStreams
@testable import MediaFormats
import TestSupport

/// EBU teletext in PES for test streams (ETSI EN 300 706 pages, carried as ETSI EN 300 472
/// data units): Hamming 8/4 for addresses and header fields, odd parity for text, every byte
/// bit-reversed as the data units carry them. Only what subtitle pages need.
enum TeletextWriter {
    /// Hamming 8/4 codes of the nibbles 0-15 (as the box reads them).
    static let hamming = TeletextHeader.hammingCodes

    /// A 7-bit character with its odd parity bit.
    static func odd(_ c: UInt8) -> UInt8 { c.nonzeroBitCount % 2 == 0 ? c | 0x80 : c }

    /// The byte with its bits in the other order.
    static func reversed(_ b: UInt8) -> UInt8 { TeletextHeader.reversed(b) }

    /// The two address bytes of packet `row` of magazine `magazine` (1-8).
    static func address(magazine: Int, row: Int) -> [UInt8] {
        [hamming[(magazine & 7) | ((row & 1) << 3)], hamming[(row >> 1) & 0xF]]
    }

    /// A page header (packet X/0) for page `page` (two BCD digits, `0x88`) of `magazine`: erase
    /// page (C4), subtitle (C6) and newsflash (C5) as asked, subcode 0, a blank header row.
    static func header(magazine: Int, page: UInt8, erase: Bool = false, subtitle: Bool = false, newsflash: Bool = false) -> [UInt8] {
        let fields: [UInt8] = [page & 0xF, page >> 4, 0, erase ? 0x8 : 0, 0, (newsflash ? 0x4 : 0) | (subtitle ? 0x8 : 0), 0, 0]
        return address(magazine: magazine, row: 0) + fields.map { hamming[Int($0)] } + [UInt8](repeating: odd(0x20), count: 32)
    }

    /// Row `row` (1-23) showing `text` boxed (start box twice, end box twice), centred.
    static func row(magazine: Int, row: Int, text: String) -> [UInt8] {
        let boxed: [UInt8] = [0x0B, 0x0B] + Array(text.utf8.prefix(34)) + [0x0A, 0x0A]
        var line = [UInt8](repeating: 0x20, count: (40 - boxed.count) / 2) + boxed
        line += [UInt8](repeating: 0x20, count: 40 - line.count)
        return address(magazine: magazine, row: row) + line.map(odd)
    }

    /// One data unit (46 bytes) carrying `packet` (42 bytes) on line `line` (7-22) of the first field.
    static func dataUnit(_ packet: [UInt8], line: Int, subtitle: Bool = true) -> [UInt8] {
        [subtitle ? 0x03 : 0x02, 0x2C, 0xE0 | UInt8(line), 0xE4] + packet.map(reversed)
    }

    /// A stuffing data unit (46 bytes).
    static let stuffing: [UInt8] = [0xFF, 0x2C] + [UInt8](repeating: 0xFF, count: 44)
}

/// An MPEG-TS clip of a dark H.264 picture with AAC sound and a teletext stream, made with
/// `gst-launch-1.0` (`mpegtsmux` takes `application/x-teletext` but writes a DVB subtitling
/// descriptor for it) and its programme table rewritten with the teletext descriptor the clip
/// asks for. Cached by name.
struct TeletextClip: Sendable {
    struct Page: Sendable {
        var language: String
        /// Magazine 1-8 and page as two BCD digits: 8 and 0x88 for page 888.
        var magazine: Int
        var page: UInt8
        /// 0x02 subtitles, 0x05 for the hard of hearing.
        var type: UInt8 = 0x02
        /// What the page shows on row 22, sent every `period` seconds; nil for a page the table
        /// names and the stream never sends.
        var text: String?

        var number: Int { magazine * 100 + Int(page >> 4) * 10 + Int(page & 0xF) }
    }

    enum Table: Sendable {
        /// A teletext descriptor naming the pages.
        case pages
        /// A teletext descriptor naming no page.
        case emptyDescriptor
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var name: String
    var pages: [Page]
    var table: Table = .pages
    /// Random bytes in place of every data unit's data (addresses, headers and text broken).
    var corrupt = false
    /// Seconds between two transmissions of a page.
    var period = 1
    var fps = 25
    var seconds = 6

    /// The data of one PES a frame: a data identifier and two data units per page (header and
    /// row every `period` seconds, else a time-filling header of the magazine and stuffing).
    func teletextData() -> [UInt8] {
        var random = SplitMix(seed: 15)
        var out: [UInt8] = []
        for frame in 0..<(fps * seconds) {
            var pes: [UInt8] = [0x10]
            for (i, page) in pages.enumerated() {
                let line = 7 + 2 * i
                guard let text = page.text else {
                    pes += TeletextWriter.stuffing + TeletextWriter.stuffing
                    continue
                }
                if frame % (fps * period) == 0 {
                    pes += TeletextWriter.dataUnit(TeletextWriter.header(magazine: page.magazine, page: page.page, erase: true, subtitle: true), line: line)
                    pes += TeletextWriter.dataUnit(TeletextWriter.row(magazine: page.magazine, row: 22, text: text), line: line + 1)
                } else {
                    pes += TeletextWriter.dataUnit(TeletextWriter.header(magazine: page.magazine, page: 0xFF), line: line, subtitle: false)
                    pes += TeletextWriter.stuffing
                }
            }
            if corrupt {
                for i in 1..<pes.count { pes[i] = UInt8(truncatingIfNeeded: random.next()) }
            }
            out += pes
        }
        return out
    }

    /// The teletext descriptor (tag 0x56) the programme table gets.
    var descriptor: [UInt8] {
        guard table == .pages else { return [0x56, 0] }
        let body = pages.flatMap { Array($0.language.utf8.prefix(3)) + [$0.type << 3 | UInt8($0.magazine & 7), $0.page] }
        return [0x56, UInt8(body.count)] + body
    }

    /// `file(in:)` off the concurrency pool (making it runs gst-launch for seconds).
    func made(in directory: String) async throws -> String {
        let clip = self
        return try await offPool { try clip.file(in: directory) }
    }

    /// The clip in `directory`, made when it is not there yet.
    func file(in directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent("teletext-\(name)-\(seconds)s.ts")
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let tmp = path + ".\(UUID().uuidString.prefix(8)).part"
        let data = tmp + ".ttx", raw = tmp + ".raw"
        defer { for f in [data, raw, tmp] { try? FileManager.default.removeItem(atPath: f) } }
        let teletext = teletextData()
        try Data(teletext).write(to: URL(fileURLWithPath: data))
        let size = teletext.count / (fps * seconds)
        let frames = fps * seconds
        let launch = """
            -q videotestsrc pattern=solid-color foreground-color=\(0xFF10_2040 as UInt32) num-buffers=\(frames) \
            ! video/x-raw,format=I420,width=720,height=576,framerate=\(fps)/1 \
            ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=\(fps) bitrate=600 ! h264parse ! mux. \
            audiotestsrc wave=sine freq=440 samplesperbuffer=\(48000 / fps) num-buffers=\(frames) ! audio/x-raw,rate=48000,channels=2 \
            ! avenc_aac ! aacparse ! mux. \
            filesrc location=\(data) ! rawvideoparse width=\(size) height=1 format=gray8 framerate=\(fps)/1 plane-strides=<\(size)> \
            ! capssetter join=false replace=true caps=application/x-teletext ! mux. \
            mpegtsmux name=mux ! filesink location=\(raw)
            """
        guard let tool = ["/usr/bin/", "/usr/local/bin/"].map({ $0 + "gst-launch-1.0" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Failure(description: "making teletext clips needs gst-launch-1.0 (run deploy/install-deps.sh)")
        }
        try ClipFormat.runTool(tool, launch.split(separator: " ").map(String.init))
        let muxed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        try Data(Self.rewritingPrivateStreams(muxed, descriptors: descriptor)).write(to: URL(fileURLWithPath: tmp))
        // rename(2) puts the file in place whole (replacing one another maker put there meanwhile).
        guard rename(tmp, path) == 0 || FileManager.default.fileExists(atPath: path) else {
            throw Failure(description: "cannot put the teletext clip in place at \(path)")
        }
        return path
    }

    /// `stream` with the descriptors of every private data stream (type 0x06) of its PMTs
    /// replaced by `descriptors` (single-packet sections, rewritten without adaptation stuffing).
    static func rewritingPrivateStreams(_ stream: [UInt8], descriptors: [UInt8]) -> [UInt8] {
        var out = stream
        var pmtPIDs = Set<Int>()
        var offset = 0
        while offset + 188 <= out.count {
            defer { offset += 188 }
            let p = Array(out[offset..<offset + 188])
            let pid = (Int(p[1] & 0x1F) << 8) | Int(p[2])
            guard p[1] & 0x40 != 0 else { continue }
            let payload = 4 + (p[3] & 0x20 != 0 ? 1 + Int(p[4]) : 0)
            let start = payload + 1 + Int(p[payload])
            if pid == 0 {
                pmtPIDs.insert((Int(p[start + 10] & 0x1F) << 8) | Int(p[start + 11]))
                continue
            }
            guard pmtPIDs.contains(pid) else { continue }
            let length = 3 + ((Int(p[start + 1] & 0x0F) << 8) | Int(p[start + 2]))
            let section = Array(p[start..<start + length])
            let info = (Int(section[10] & 0x0F) << 8) | Int(section[11])
            var body = Array(section[0..<12 + info])
            var i = 12 + info
            while i + 5 <= section.count - 4 {
                let esLength = (Int(section[i + 3] & 0x0F) << 8) | Int(section[i + 4])
                let own = section[i] == 0x06 ? descriptors : Array(section[i + 5..<i + 5 + esLength])
                body += [section[i], section[i + 1], section[i + 2], 0xF0 | UInt8(own.count >> 8), UInt8(own.count & 0xFF)] + own
                i += 5 + esLength
            }
            let sectionLength = body.count + 4 - 3
            body[1] = (body[1] & 0xF0) | UInt8(sectionLength >> 8)
            body[2] = UInt8(sectionLength & 0xFF)
            let crc = ProgramMapWatch.crc32(body)
            body += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
            var packet = [p[0], p[1], p[2], (p[3] & 0xCF) | 0x10, 0] + body
            packet += [UInt8](repeating: 0xFF, count: 188 - packet.count)
            out.replaceSubrange(offset..<offset + 188, with: packet)
        }
        return out
    }
}
