/// The page headers (packets X/0) a teletext PES carries, in their order (ETSI EN 300 472 data
/// units holding ETSI EN 300 706 packets). Pure; bytes that are no teletext give none.
public struct TeletextHeader: Sendable, Hashable {
    /// Magazine 1-8.
    public var magazine: Int
    /// The page's two digits as sent (`0x88` for page 888); `0xFF` is the time-filling header
    /// that ends a page's transmission without starting another.
    public var page: UInt8

    public init(magazine: Int, page: UInt8) {
        self.magazine = magazine
        self.page = page
    }

    /// Whether the header starts a page (not a time filler).
    public var startsPage: Bool { page != 0xFF }

    /// The headers in the data of one teletext PES (data identifier first). A unit whose
    /// address or page number does not decode (more than one bit wrong in a Hamming 8/4 byte)
    /// is skipped; at most 64 units are read.
    public static func headers(in data: some Collection<UInt8>) -> [TeletextHeader] {
        let bytes = Array(data.prefix(1 + 64 * 46))
        guard let identifier = bytes.first, (0x10...0x1F).contains(identifier) else { return [] }
        var found: [TeletextHeader] = []
        var at = 1
        while at + 2 <= bytes.count {
            let id = bytes[at], length = Int(bytes[at + 1])
            let end = at + 2 + length
            guard end <= bytes.count else { break }
            // EBU teletext (non-subtitle 0x02, subtitle 0x03): line byte, framing code, then the
            // 42 bytes of the packet, each sent least significant bit first.
            if id == 0x02 || id == 0x03, length == 0x2C {
                let packet = bytes[(at + 4)..<end].map(reversed)
                if let address0 = hamming84(packet[0]), let address1 = hamming84(packet[1]) {
                    let magazine = Int(address0 & 7), row = Int(address0 >> 3) | Int(address1) << 1
                    if row == 0, let units = hamming84(packet[2]), let tens = hamming84(packet[3]) {
                        found.append(TeletextHeader(magazine: magazine == 0 ? 8 : magazine, page: tens << 4 | units))
                    }
                }
            }
            at = end
        }
        return found
    }

    /// The byte with its bits in the other order.
    static func reversed(_ byte: UInt8) -> UInt8 {
        var out: UInt8 = 0
        for bit in 0..<8 where byte & (1 << bit) != 0 { out |= 0x80 >> bit }
        return out
    }

    /// The Hamming 8/4 code of each nibble (ETSI EN 300 706, 8.2).
    static let hammingCodes: [UInt8] = [0x15, 0x02, 0x49, 0x5E, 0x64, 0x73, 0x38, 0x2F, 0xD0, 0xC7, 0x8C, 0x9B, 0xA1, 0xB6, 0xFD, 0xEA]

    /// The nibble a Hamming 8/4 byte carries, one wrong bit corrected; nil for two or more.
    static func hamming84(_ byte: UInt8) -> UInt8? {
        for (nibble, code) in hammingCodes.enumerated() where (code ^ byte).nonzeroBitCount <= 1 { return UInt8(nibble) }
        return nil
    }
}

/// What of a teletext stream to keep so that a decoder started later builds the pages on
/// screen: a subtitle page is sent once and stays until the next, while time fillers go on
/// every frame. Keeps the newest `recent` entries, and for each page (up to `pages` of them,
/// the most recently sent) the entries of its newest transmission: from its header until the
/// next header of its magazine, at most `perPage` entries. Pure; `Element` is what is kept.
public struct TeletextRetention<Element> {
    public static var recentKept: Int { 16 }
    public static var pagesKept: Int { 8 }
    public static var entriesPerPage: Int { 40 }

    private var recent: [(order: Int, element: Element)] = []
    private var pages: [TeletextHeader: [(order: Int, element: Element)]] = [:]
    /// The page being sent in each magazine.
    private var sending: [Int: TeletextHeader] = [:]
    /// Pages by when their newest transmission began, oldest first.
    private var pageOrder: [TeletextHeader] = []
    private var count = 0

    public init() {}

    /// Takes the next entry of the stream and the headers its data carries.
    public mutating func take(_ element: Element, headers: [TeletextHeader]) {
        let order = count
        count &+= 1
        recent.append((order, element))
        if recent.count > Self.recentKept { recent.removeFirst(recent.count - Self.recentKept) }
        // The pages this entry carries data of: those being sent when it starts, and each it
        // starts (a page's rows follow its header in the same or later entries).
        var touched = Set(sending.values)
        for header in headers {
            guard header.startsPage else {
                sending[header.magazine] = nil
                continue
            }
            sending[header.magazine] = header
            touched.insert(header)
            pages[header] = []
            pageOrder.removeAll { $0 == header }
            pageOrder.append(header)
            if pageOrder.count > Self.pagesKept { pages[pageOrder.removeFirst()] = nil }
        }
        for page in touched where (pages[page]?.count ?? Self.entriesPerPage) < Self.entriesPerPage {
            pages[page]?.append((order, element))
        }
    }

    /// What is kept, in the order it came, each entry once.
    public var kept: [Element] {
        var all = recent
        for list in pages.values { all += list }
        all.sort { $0.order < $1.order }
        var out: [Element] = []
        var last = -1
        for item in all where item.order != last {
            out.append(item.element)
            last = item.order
        }
        return out
    }

    /// How many entries are kept.
    public var keptCount: Int { kept.count }
}

extension TeletextRetention: Sendable where Element: Sendable {}
