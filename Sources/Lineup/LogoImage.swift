import Foundation

/// What a logo file is, judged by its own first bytes, never by its name: a PNG, JPEG, GIF, WebP
/// or SVG picture and the size its header declares. Anything else (a text file, the process's
/// environment, a JSON answer) is no logo. Pure: safe on any bytes.
public struct LogoImage: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case png, jpeg, gif, webp, svg

        /// The media type the head-end serves it as.
        public var mediaType: String {
            switch self {
            case .png: "image/png"
            case .jpeg: "image/jpeg"
            case .gif: "image/gif"
            case .webp: "image/webp"
            case .svg: "image/svg+xml"
            }
        }
    }

    public var kind: Kind
    /// The size the header declares; nil for an SVG that declares none (it is drawn at the
    /// renderer's default size).
    public var width: Int?
    public var height: Int?

    /// The largest side a logo may declare: decoding it takes `width * height * 4` bytes before it
    /// is scaled to the few hundred pixels a logo is shown at (4096 x 4096: 64 MB).
    public static let maxSide = 4096

    /// Reads `bytes` (the whole file, or at least its first part): the picture, or why it is none.
    public static func inspect(_ bytes: Data) -> Result<LogoImage, LogoImageProblem> {
        let b = [UInt8](bytes.prefix(headLength))
        let found: LogoImage?
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            found = png(b)
        } else if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            found = jpeg(b)
        } else if b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8)) {
            found = b.count >= 10 ? LogoImage(kind: .gif, width: Int(b[6]) | Int(b[7]) << 8, height: Int(b[8]) | Int(b[9]) << 8) : nil
        } else if b.count >= 12, b[0..<4].elementsEqual("RIFF".utf8), b[8..<12].elementsEqual("WEBP".utf8) {
            found = webp(b)
        } else if let svg = svg(b) {
            found = svg
        } else {
            return .failure(.notAnImage)
        }
        guard let found else { return .failure(.unreadableHeader) }
        if let width = found.width, let height = found.height {
            guard width > 0, height > 0 else { return .failure(.empty(found.kind)) }
            guard width <= maxSide, height <= maxSide else { return .failure(.tooLarge(found.kind, width: width, height: height)) }
        }
        return .success(found)
    }

    /// How much of a file ``inspect(_:)`` reads: a JPEG's size comes after its metadata segments.
    public static let headLength = 1 << 20

    // MARK: Formats

    /// PNG: the IHDR chunk comes first, width and height as 32-bit big-endian numbers.
    private static func png(_ b: [UInt8]) -> LogoImage? {
        guard b.count >= 24, b[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        return LogoImage(kind: .png, width: be32(b, 16), height: be32(b, 20))
    }

    /// JPEG: segments up to the first start-of-frame marker (SOF0-15 but DHT, JPG, DAC), whose
    /// height and width are 16-bit big-endian numbers.
    private static func jpeg(_ b: [UInt8]) -> LogoImage? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 9 <= b.count else { return nil }
                return LogoImage(kind: .jpeg, width: Int(b[i + 7]) << 8 | Int(b[i + 8]), height: Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image, or the scan, before any frame
            i += 2 + length
        }
        return nil
    }

    /// WebP: the first chunk says the size: `VP8 ` (lossy), `VP8L` (lossless) or `VP8X` (extended).
    private static func webp(_ b: [UInt8]) -> LogoImage? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            return LogoImage(kind: .webp, width: (Int(b[26]) | Int(b[27]) << 8) & 0x3FFF, height: (Int(b[28]) | Int(b[29]) << 8) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let width = 1 + (Int(b[21]) | (Int(b[22]) & 0x3F) << 8)
            let height = 1 + (Int(b[22]) >> 6 | Int(b[23]) << 2 | (Int(b[24]) & 0x0F) << 10)
            return LogoImage(kind: .webp, width: width, height: height)
        case "VP8X":
            return LogoImage(kind: .webp, width: 1 + (Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16),
                             height: 1 + (Int(b[27]) | Int(b[28]) << 8 | Int(b[29]) << 16))
        default:
            return nil
        }
    }

    /// SVG: XML text whose root element is `<svg` (after an optional XML declaration, comments
    /// and a doctype); its size is `width`/`height` (units to pixels at 96 per inch), else the
    /// `viewBox`'s. A percentage or no size: none declared.
    private static func svg(_ b: [UInt8]) -> LogoImage? {
        var text = String(decoding: b.prefix(64 * 1024), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("<?") || rest.hasPrefix("<!--") || rest.hasPrefix("<!") {
                let close = rest.hasPrefix("<!--") ? "-->" : ">"
                guard let end = rest.range(of: close) else { return nil }
                rest = rest[end.upperBound...]
                continue
            }
            break
        }
        guard rest.hasPrefix("<svg"), let tagEnd = rest.firstIndex(of: ">") else { return nil }
        let tag = rest[..<tagEnd]
        guard let next = tag.dropFirst(4).first, next.isWhitespace || next == "/" || next == ">" else {
            return tag.count == 4 ? LogoImage(kind: .svg, width: nil, height: nil) : nil
        }
        var width = attribute("width", in: tag).flatMap(pixels)
        var height = attribute("height", in: tag).flatMap(pixels)
        if width == nil || height == nil, let box = attribute("viewBox", in: tag) {
            let numbers = box.split { $0 == " " || $0 == "," || $0.isWhitespace }.compactMap { Double($0) }
            if numbers.count == 4 {
                width = width ?? size(numbers[2])
                height = height ?? size(numbers[3])
            }
        }
        guard let width, let height else { return LogoImage(kind: .svg, width: nil, height: nil) }
        return LogoImage(kind: .svg, width: width, height: height)
    }

    /// The value of `name="..."` (or single quotes) in a start tag.
    private static func attribute(_ name: String, in tag: Substring) -> String? {
        var search = tag[...]
        while let found = search.range(of: name) {
            let before = found.lowerBound == tag.startIndex ? " " : tag[tag.index(before: found.lowerBound)]
            var after = tag[found.upperBound...].drop { $0.isWhitespace }
            if before.isWhitespace, after.first == "=" {
                after = after.dropFirst().drop { $0.isWhitespace }
                if let quote = after.first, quote == "\"" || quote == "'" {
                    let value = after.dropFirst()
                    if let end = value.firstIndex(of: quote) { return String(value[..<end]) }
                }
                return nil
            }
            search = tag[found.upperBound...]
        }
        return nil
    }

    /// An SVG length in pixels (`120`, `120px`, `2in`, `10cm`, `1e9`); nil for a percentage or no number.
    private static func pixels(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [("px", 1), ("pt", 4.0 / 3), ("pc", 16), ("in", 96), ("cm", 96 / 2.54), ("mm", 96 / 25.4),
                                         ("em", 16), ("ex", 8)]
        guard !trimmed.hasSuffix("%") else { return nil }
        for (unit, factor) in units where trimmed.hasSuffix(unit) {
            return Double(trimmed.dropLast(unit.count)).flatMap { size($0 * factor) }
        }
        return Double(trimmed).flatMap(size)
    }

    /// A declared size as a whole number of pixels, saturated so any finite size compares.
    private static func size(_ value: Double) -> Int? {
        guard value.isFinite else { return Int.max }
        return value >= Double(Int32.max) ? Int(Int32.max) : max(0, Int(value.rounded(.up)))
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }
}

/// Why a file is no logo, worded for the lineup's owner.
public enum LogoImageProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Its first bytes are those of no picture format a logo may have.
    case notAnImage
    /// It starts like a picture but its size cannot be read.
    case unreadableHeader
    /// It declares no pixels.
    case empty(LogoImage.Kind)
    /// It declares more than ``LogoImage/maxSide`` on a side.
    case tooLarge(LogoImage.Kind, width: Int, height: Int)

    public var description: String {
        switch self {
        case .notAnImage:
            "it is not a picture (a logo must be a PNG, JPEG, GIF, WebP or SVG file; its first bytes are those of none)"
        case .unreadableHeader:
            "it starts like a picture but its size cannot be read (a damaged or cut-off file)"
        case .empty(let kind):
            "the \(kind.rawValue.uppercased()) declares a size of 0 pixels"
        case .tooLarge(let kind, let width, let height):
            "the \(kind.rawValue.uppercased()) declares \(width) x \(height) pixels, more than \(LogoImage.maxSide) on a side (it would take too much memory to decode); scale it down"
        }
    }
}
