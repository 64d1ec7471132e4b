import Foundation
import GStreamer

/// The stored form of one timeshifted GOP: a magic line, then per entry its track, audio stream,
/// flags, times, caps (when it carries them) and bytes, little-endian. A timeshift buffer appends
/// GOPs one after the other to a file per minute (`TimeshiftSegmentFile`) and reads one back by
/// its place in the file; `write(_:to:)` and `read(_:)` keep one GOP in a file of its own.
enum TimeshiftSegment {
    static let magic = Array("FBTS2\n".utf8)

    /// One GOP as bytes.
    static func encode(_ entries: [GOPCache.Entry]) -> [UInt8] {
        var out = magic
        out.reserveCapacity(entries.reduce(64) { $0 + $1.buffer.size + 32 })
        for entry in entries {
            out.append(entry.track == .video ? 0 : 1)
            out.append(UInt8(clamping: entry.stream))
            out.append((entry.isKeyframe ? 1 : 0) | (entry.buffer.isKeyframe ? 2 : 0))
            append(UInt64(entry.pts), to: &out)
            append(UInt64(entry.dts), to: &out)
            let caps = entry.caps.map { Array($0.description.utf8) } ?? []
            append(UInt32(caps.count), to: &out)
            out += caps
            let size = entry.buffer.size
            append(UInt32(size), to: &out)
            _ = entry.buffer.withBytes { out.append(contentsOf: $0) }
        }
        return out
    }

    /// Writes one GOP to a file of its own, whole to a temporary name and renamed, so a reader
    /// never sees half a file.
    static func write(_ entries: [GOPCache.Entry], to file: URL) throws {
        let temporary = file.appendingPathExtension("part")
        try Data(encode(entries)).write(to: temporary)
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw TimeshiftError.storage("cannot rename \(temporary.lastPathComponent): \(reason)")
        }
    }

    static func read(_ file: URL) throws -> [GOPCache.Entry] {
        try decode([UInt8](Data(contentsOf: file)), name: file.lastPathComponent)
    }

    /// The GOP `length` bytes long at `offset` of `file`.
    static func read(_ file: URL, offset: UInt64, length: Int) throws -> [GOPCache.Entry] {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let data = try handle.read(upToCount: length) ?? Data()
        return try decode([UInt8](data), name: "\(file.lastPathComponent) at \(offset)")
    }

    /// One GOP from its bytes; `name` says where they come from in errors.
    static func decode(_ data: [UInt8], name: String) throws -> [GOPCache.Entry] {
        guard data.starts(with: magic) else { throw TimeshiftError.corrupt("\(name) has no segment header") }
        var at = magic.count
        func take(_ n: Int) throws -> ArraySlice<UInt8> {
            guard n >= 0, at + n <= data.count else { throw TimeshiftError.corrupt("\(name) ends in the middle of an entry") }
            defer { at += n }
            return data[at..<at + n]
        }
        func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            try take(MemoryLayout<T>.size).reversed().reduce(T(0)) { $0 << 8 | T($1) }
        }
        var entries: [GOPCache.Entry] = []
        while at < data.count {
            let track: GOPCache.Track = try take(1).first == 0 ? .video : .audio
            let stream = Int(try take(1).first!)
            let flags = try take(1).first!
            let pts = ClockTime(try integer(UInt64.self))
            let dts = ClockTime(try integer(UInt64.self))
            let capsLength = Int(try integer(UInt32.self))
            let capsText = try take(capsLength)
            let caps = capsLength == 0 ? nil : try? Caps(String(decoding: capsText, as: UTF8.self))
            let size = Int(try integer(UInt32.self))
            let buffer = Buffer(bytes: Array(try take(size)), pts: pts, dts: dts, keyframe: flags & 2 != 0)
            var entry = GOPCache.Entry(track: track, buffer: buffer, pts: pts, dts: dts, isKeyframe: flags & 1 != 0, caps: caps)
            entry.stream = stream
            entries.append(entry)
        }
        return entries
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}
