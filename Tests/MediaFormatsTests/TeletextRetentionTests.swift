import Testing
@testable import MediaFormats

/// Which teletext a decoder started later gets: each page's newest transmission, not only the
/// newest few frames of time fillers.
@Suite struct TeletextRetentionTests {
    /// One EBU teletext data unit carrying packet `row` of `magazine`: a header of `page` for
    /// row 0, text otherwise; each byte sent least significant bit first.
    static func unit(magazine: Int, row: Int, page: UInt8 = 0, subtitle: Bool = true) -> [UInt8] {
        let h = TeletextHeader.hammingCodes
        var packet = [h[(magazine & 7) | ((row & 1) << 3)], h[(row >> 1) & 0xF]]
        packet += row == 0 ? [h[Int(page & 0xF)], h[Int(page >> 4)]] + [UInt8](repeating: h[0], count: 6) + [UInt8](repeating: 0x20, count: 32)
                           : [UInt8](repeating: 0x41, count: 40)
        return [subtitle ? 0x03 : 0x02, 0x2C, 0xE7, 0xE4] + packet.map(TeletextHeader.reversed)
    }

    static let stuffing: [UInt8] = [0xFF, 0x2C] + [UInt8](repeating: 0xFF, count: 44)

    @Test func headersAreReadWithTheirMagazineAndPage() {
        let pes = [0x10] + Self.unit(magazine: 8, row: 0, page: 0x88) + Self.unit(magazine: 8, row: 22) + Self.stuffing
            + Self.unit(magazine: 1, row: 0, page: 0xFF, subtitle: false)
        #expect(TeletextHeader.headers(in: pes) == [TeletextHeader(magazine: 8, page: 0x88), TeletextHeader(magazine: 1, page: 0xFF)])
        #expect(TeletextHeader.headers(in: pes).map(\.startsPage) == [true, false])
        // One wrong bit in the page number is corrected; two make the header unread.
        var oneBit = pes, twoBits = pes
        oneBit[1 + 6] ^= 0x01
        twoBits[1 + 6] ^= 0x03
        #expect(TeletextHeader.headers(in: oneBit).first == TeletextHeader(magazine: 8, page: 0x88))
        #expect(TeletextHeader.headers(in: twoBits) == [TeletextHeader(magazine: 1, page: 0xFF)])
    }

    @Test func bytesThatAreNoTeletextGiveNoHeader() {
        #expect(TeletextHeader.headers(in: [UInt8]()).isEmpty)
        #expect(TeletextHeader.headers(in: [0x20, 0x00] + Self.unit(magazine: 8, row: 0, page: 0x88)).isEmpty, "DVB subtitles open with 0x20")
        #expect(TeletextHeader.headers(in: [0x10, 0x03, 0x2C, 0x01]).isEmpty, "a unit cut short")
        #expect(TeletextHeader.headers(in: [0x10, 0x03, 0xFF] + [UInt8](repeating: 0, count: 40)).isEmpty, "a length past the end")
        var random: UInt64 = 7
        for _ in 0..<200 {
            let bytes = (0..<Int(random % 400)).map { i -> UInt8 in random = random &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: random >> 33 ^ UInt64(i)) }
            #expect(TeletextHeader.headers(in: [0x10] + bytes).count <= 64)
        }
    }

    /// A page sent once, two minutes of time fillers after it: the page's transmission (its
    /// header and the row after it, up to the filler that ends it) and the newest fillers stay.
    @Test func aPageSentOnceStaysPastAnyNumberOfFillers() {
        var kept = TeletextRetention<Int>()
        let page = TeletextHeader(magazine: 8, page: 0x88), filler = TeletextHeader(magazine: 8, page: 0xFF)
        kept.take(0, headers: [filler])
        kept.take(1, headers: [page])
        kept.take(2, headers: [])
        kept.take(3, headers: [filler])
        for n in 4..<3000 { kept.take(n, headers: [filler]) }
        let recent = TeletextRetention<Int>.recentKept
        #expect(kept.kept == [1, 2, 3] + Array((3000 - recent)..<3000))
        // Sent again: only the newest transmission stays.
        kept.take(3000, headers: [page])
        kept.take(3001, headers: [filler])
        #expect(kept.kept == Array((3002 - recent)..<3002), "the new transmission is among the newest: \(kept.kept)")
    }

    /// Bounds: pages of many numbers keep the newest `pagesKept`; a page that never ends keeps
    /// its first `entriesPerPage` entries.
    @Test func whatIsKeptIsBounded() {
        var kept = TeletextRetention<Int>()
        for n in 0..<100 { kept.take(n, headers: [TeletextHeader(magazine: 1 + n % 8, page: UInt8(n))]) }
        #expect(kept.keptCount <= TeletextRetention<Int>.recentKept + TeletextRetention<Int>.pagesKept * TeletextRetention<Int>.entriesPerPage)
        var endless = TeletextRetention<Int>()
        endless.take(0, headers: [TeletextHeader(magazine: 3, page: 0x33)])
        for n in 1..<1000 { endless.take(n, headers: []) }
        #expect(endless.kept == Array(0..<TeletextRetention<Int>.entriesPerPage) + Array((1000 - TeletextRetention<Int>.recentKept)..<1000))
    }
}
