/// A page of a teletext stream that a programme table names (ETSI EN 300 468, teletext
/// descriptor 0x56): its language, its kind and its number. Pure.
public struct TeletextPage: Sendable, Hashable {
    /// The three letters the table gives (ISO 639-2, `deu` or `ger`), lower case; nil when
    /// they are no letters.
    public var language: String?
    /// `teletext_type`: 0x02 subtitles, 0x05 subtitles for the hard of hearing (0x01 is the
    /// initial page, 0x03 and 0x04 schedule pages).
    public var type: Int
    /// The page as a viewer dials it (`888`): magazine (1-8, 0 read as 8) and the two digits of
    /// the page; nil when the page number has a hexadecimal digit (no viewer can dial it, and
    /// `teletextdec` cannot be set to it).
    public var number: Int?

    public init(language: String?, type: Int, number: Int?) {
        self.language = language
        self.type = type
        self.number = number
    }

    /// Whether the page carries subtitles (plain or for the hard of hearing).
    public var isSubtitles: Bool { type == 0x02 || type == 0x05 }

    /// The pages of a teletext descriptor's body (five bytes each: language, type and magazine,
    /// page number); a page cut short is not read.
    static func pages(descriptor body: ArraySlice<UInt8>) -> [TeletextPage] {
        var pages: [TeletextPage] = []
        var e = body.startIndex
        while e + 5 <= body.endIndex {
            let letters = body[e..<e + 3]
            let magazine = Int(body[e + 3] & 0x07)
            let tens = Int(body[e + 4] >> 4), units = Int(body[e + 4] & 0x0F)
            let number = tens < 10 && units < 10 ? (magazine == 0 ? 8 : magazine) * 100 + tens * 10 + units : nil
            let lower = letters.map { $0 | 0x20 }
            let language = lower.allSatisfy { $0 >= 0x61 && $0 <= 0x7A } ? String(decoding: lower, as: UTF8.self) : nil
            pages.append(TeletextPage(language: language, type: Int(body[e + 3] >> 3), number: number))
            e += 5
        }
        return pages
    }
}
