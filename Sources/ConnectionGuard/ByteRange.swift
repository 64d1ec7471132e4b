/// What a `Range` header (RFC 9110, section 14) asks of a file of `size` bytes: the whole file,
/// one span of it, or nothing it can give. Only one `bytes=` range is answered with a part: a
/// header that is not one (several ranges, another unit, bad syntax, over 256 bytes) is
/// ignored and the whole file is sent, as the RFC allows. Pure, safe on any text (fuzzed by
/// `make fuzz-http`).
public enum ByteRange: Equatable, Sendable {
    case whole
    /// Offsets of the first and last byte, both inside the file.
    case part(ClosedRange<Int64>)
    /// A range that starts at or after the end of the file (416 with `Content-Range: bytes */size`).
    case unsatisfiable

    public static let maxHeaderLength = 256

    public init(header: String?, size: Int64) {
        guard let header, header.utf8.count <= Self.maxHeaderLength, let equals = header.firstIndex(of: "=") else {
            self = .whole
            return
        }
        let unit = header[..<equals].trimmingSpaces
        let spec = header[header.index(after: equals)...].trimmingSpaces
        guard unit.lowercased() == "bytes", !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingSpaces, last = spec[spec.index(after: dash)...].trimmingSpaces
        switch (Self.number(first), Self.number(last)) {
        case (nil, let suffix?) where first.isEmpty:
            // The last `suffix` bytes (all of them when the file is shorter).
            self = suffix == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - suffix)...(size - 1))
        case (let start?, nil) where last.isEmpty:
            self = start >= size ? .unsatisfiable : .part(start...(size - 1))
        case (let start?, let end?) where start <= end:
            self = start >= size ? .unsatisfiable : .part(start...min(end, size - 1))
        default:
            self = .whole
        }
    }

    /// Digits as a count; more than `Int64` holds reads as `Int64.max` (beyond any file).
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text) ?? .max
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let c = text.first, c == " " || c == "\t" { text = text.dropFirst() }
        while let c = text.last, c == " " || c == "\t" { text = text.dropLast() }
        return text
    }
}
