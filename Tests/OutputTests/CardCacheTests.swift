import Foundation
import GStreamer
import Logging
@testable import Output
import Testing

/// Rendered cards are kept as frames of their own, within a memory budget. A frame fresh out of
/// a conversion belongs to that conversion's buffer pool and keeps the pool alive (its memory
/// and its two sockets): the soak's cache of 32 cards held 32 pools, 64 sockets and 44 MB.
@Suite struct CardCacheTests {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test func convertedFramesKeepNoPoolAlive() throws {
        try GStreamer.initialize()
        let format = try VideoFormat(caps: try Caps("video/x-raw,format=I420,width=320,height=180,framerate=30/1,pixel-aspect-ratio=1/1"))
        let image = BGRAImage(width: 64, height: 36, pixels: [UInt8](repeating: 200, count: 64 * 36 * 4))
        let sourceCaps = try Caps("video/x-raw,format=BGRA,width=64,height=36,framerate=0/1,pixel-aspect-ratio=1/1")
        // What a conversion hands back belongs to its pool (so the test can tell the difference)...
        let raw = try Sample(buffer: Buffer(bytes: image.pixels), caps: sourceCaps).converted(to: format.caps)
        #expect(raw.buffer?.isFromPool == true, "a conversion's output comes from its pool")
        // ...and what the output keeps does not.
        let frame = try format.frame(image: image)
        #expect(!frame.isFromPool)
        #expect(frame.size == 320 * 180 * 3 / 2)
        #expect(frame.bytes() == raw.buffer?.bytes())
    }

    @Test func renderedCardsStayWithinTheirBudget() throws {
        try GStreamer.initialize()
        let format = try VideoFormat(caps: try Caps("video/x-raw,format=I420,width=1280,height=720,framerate=30/1,pixel-aspect-ratio=1/1"))
        let cards = InterstitialCards(directory: nil, format: format, logger: Self.logger)
        for n in 1...20 {
            let card = cards.renderNow(template: nil, fields: CardFields(number: "\(n)", name: "Channel \(n)", status: "Tuning…"))
            #expect(!card.isFromPool)
        }
        let cache = cards.renderedCache
        #expect(cache.bytes <= InterstitialCards.renderedBudget, "\(cache)")
        #expect(cache.count >= 5 && cache.count < 20, "1280x720 cards: about 11 fit, \(cache.count) kept")
        // The newest is still kept: rendering it again gives the same frame at once.
        let again = cards.renderNow(template: nil, fields: CardFields(number: "20", name: "Channel 20", status: "Tuning…"))
        #expect(cards.renderedCache.count == cache.count)
        #expect(again.size == 1280 * 720 * 3 / 2)
    }
}
