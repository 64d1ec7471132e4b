import Foundation
import GStreamer
import Testing
@testable import Output

/// The info banner as rendered (GStreamer's SVG decoder), checked by its pixels: the rating
/// badge under the clock, and the long form's description lines.
@Suite struct InfoBannerTests {
    init() throws { try GStreamer.initialize() }

    static let programme = BannerContent.Guide(now: "20:00–21:00  The Late Film", next: "21:00  News", progress: 0.4, rating: "TV-14",
                                               description: "Two strangers share a night train across the Alps and find that the luggage they swapped holds more than clothes.")

    func content(_ guide: BannerContent.Guide?, long: Bool = false) -> BannerContent {
        BannerContent(number: "5", name: "Five", group: "Films", logoPath: nil, clock: "20:24", guide: guide, long: long)
    }

    /// Pixels of `image` in a rectangle given in the banner's 720-line units, that are nearly
    /// white and mostly opaque: text and the badge's frame.
    func brightPixels(_ image: BGRAImage, x: Double, y: Double, width: Double, height: Double, scale: Double) -> Int {
        var count = 0
        let x0 = Int(x * scale), y0 = Int(y * scale)
        let x1 = min(image.width, Int((x + width) * scale)), y1 = min(image.height, Int((y + height) * scale))
        for py in max(0, y0)..<max(y0, y1) {
            for px in max(0, x0)..<max(x0, x1) {
                let p = image.rgba(x: px, y: py)
                if p.a > 200 && p.r > 200 && p.g > 200 && p.b > 200 { count += 1 }
            }
        }
        return count
    }

    @Test func theRatingIsABadgeUnderTheClock() throws {
        let rated = try InfoBanner.picture(content(Self.programme), width: 1280, height: 720)
        var unratedGuide = Self.programme
        unratedGuide.rating = nil
        let unrated = try InfoBanner.picture(content(unratedGuide), width: 1280, height: 720)
        let vw = Double(rated.image.width)
        // The badge: right-aligned 32 units in, from 92 to 132; nothing else is drawn there.
        let badge = (x: vw - 32 - 140, y: 88.0, width: 140.0, height: 48.0)
        let withBadge = brightPixels(rated.image, x: badge.x, y: badge.y, width: badge.width, height: badge.height, scale: 1)
        let without = brightPixels(unrated.image, x: badge.x, y: badge.y, width: badge.width, height: badge.height, scale: 1)
        #expect(withBadge > 400, "the badge's frame and its text: \(withBadge) bright pixels")
        #expect(without == 0, "no rating, no badge: \(without)")
        // A longer rating makes a wider badge, still ending at the same right edge.
        var fsk = Self.programme
        fsk.rating = "FSK 16 Jahre"
        let wide = try InfoBanner.picture(content(fsk), width: 1280, height: 720)
        #expect(brightPixels(wide.image, x: vw - 32 - 260, y: 88, width: 110, height: 48, scale: 1) > 100, "the wide badge reaches further left")
        #expect(brightPixels(rated.image, x: vw - 32 - 260, y: 88, width: 110, height: 48, scale: 1) == 0)
    }

    @Test func theLongFormAddsTheDescriptionBelowNowAndNext() throws {
        let short = try InfoBanner.picture(content(Self.programme), width: 1280, height: 720)
        let long = try InfoBanner.picture(content(Self.programme, long: true), width: 1280, height: 720)
        let shortBox = InfoBanner.box(width: 1280, height: 720, withGuide: true)
        #expect(content(Self.programme, long: true).descriptionLines(bannerWidth: 1194).count == 2)
        let longBox = InfoBanner.box(width: 1280, height: 720, withGuide: true, lines: 2)
        #expect(short.image.height == shortBox.height && long.image.height == longBox.height)
        #expect(longBox.height > shortBox.height + 70 && long.y == longBox.y && long.y < short.y, "taller, growing upwards")
        #expect(long.y + long.image.height == short.y + short.image.height, "both end at the same bottom margin")
        // The description is text in the rows below "Next:" (from 236 units on): two lines of it.
        let first = brightPixels(long.image, x: 40, y: 238, width: 1100, height: 32, scale: 1)
        let second = brightPixels(long.image, x: 40, y: 272, width: 1100, height: 32, scale: 1)
        #expect(first > 300 && second > 50, "description lines: \(first), \(second)")
        // The short form's top part is the long form's top part: channel, clock, badge.
        #expect(brightPixels(short.image, x: 0, y: 88, width: Double(short.image.width), height: 48, scale: 1)
                == brightPixels(long.image, x: 0, y: 88, width: Double(long.image.width), height: 48, scale: 1))
    }

    @Test func aLongFormWithoutADescriptionIsTheShortForm() throws {
        var plain = Self.programme
        plain.description = nil
        let long = try InfoBanner.picture(content(plain, long: true), width: 1280, height: 720)
        #expect(long.image.height == InfoBanner.box(width: 1280, height: 720, withGuide: true).height)
        let noGuide = try InfoBanner.picture(content(nil, long: true), width: 1280, height: 720)
        #expect(noGuide.image.height == InfoBanner.box(width: 1280, height: 720).height)
    }

    /// The rightmost column at or after `from` in rows `rows` holding the progress bar's yellow (#ffd54a).
    func yellowEnd(_ image: BGRAImage, rows: ClosedRange<Int>, from: Int) -> Int? {
        var end: Int?
        for y in rows {
            for x in from..<image.width {
                let p = image.rgba(x: x, y: y)
                if p.a > 200 && p.r > 220 && (180...235).contains(Int(p.g)) && p.b < 130 { end = max(end ?? x, x) }
            }
        }
        return end
    }

    /// Pixels in a rectangle (banner units at scale 1) with a luma over 120: text, light or grey.
    func lightPixels(_ image: BGRAImage, x: Int, y: Int, width: Int, height: Int) -> Int {
        var count = 0
        for py in y..<min(image.height, y + height) {
            for px in x..<min(image.width, x + width) {
                let p = image.rgba(x: px, y: py)
                if p.a > 200 && 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b) > 120 { count += 1 }
            }
        }
        return count
    }

    @Test func theProgressBarFillsWithTheProgrammeAndNowAndNextAreWritten() throws {
        // The bar runs from 32 units in (no logo) to 32 before the right edge, at y 178-186.
        var ends: [Double: Int] = [:]
        var width = 0
        for progress in [0.0, 0.25, 0.5, 0.9, 1.0] {
            var guide = Self.programme
            guide.progress = progress
            let picture = try InfoBanner.picture(content(guide), width: 1280, height: 720)
            width = picture.image.width
            ends[progress] = yellowEnd(picture.image, rows: 179...185, from: 20)
        }
        let barWidth = Double(width - 64)
        #expect(ends[0.0] == nil, "nothing filled at the start: \(ends)")
        for progress in [0.25, 0.5, 0.9, 1.0] {
            let expected = 32 + barWidth * progress
            let end = ends[progress].map(Double.init) ?? 0
            #expect(abs(end - expected) < 6, "filled to \(end), expected about \(expected) at \(progress)")
        }
        #expect(ends[0.25]! < ends[0.5]! && ends[0.5]! < ends[0.9]! && ends[0.9]! < ends[1.0]!, "\(ends)")

        // "Now: …" (y 136-172) and "Next: …" (y 192-222) hold text; without next, that row is empty.
        let full = try InfoBanner.picture(content(Self.programme), width: 1280, height: 720)
        #expect(lightPixels(full.image, x: 32, y: 136, width: 800, height: 38) > 800, "the now row")
        #expect(lightPixels(full.image, x: 32, y: 192, width: 800, height: 30) > 300, "the next row")
        var noNext = Self.programme
        noNext.next = nil
        let alone = try InfoBanner.picture(content(noNext), width: 1280, height: 720)
        #expect(lightPixels(alone.image, x: 32, y: 192, width: 800, height: 30) == 0, "no next programme, nothing there")
        #expect(lightPixels(alone.image, x: 32, y: 136, width: 800, height: 38) == lightPixels(full.image, x: 32, y: 136, width: 800, height: 38))
        // A longer title covers more of the row.
        var longer = Self.programme
        longer.now = "20:00–21:00  The Late Film: Night Train to Innsbruck"
        let wide = try InfoBanner.picture(content(longer), width: 1280, height: 720)
        #expect(lightPixels(wide.image, x: 32, y: 136, width: 1000, height: 38) > lightPixels(full.image, x: 32, y: 136, width: 1000, height: 38) + 300)
        // Without a guide the banner has no now row at all.
        let bare = try InfoBanner.picture(content(nil), width: 1280, height: 720)
        #expect(bare.image.height < full.image.height)
    }

    @Test func descriptionsWrapAtWordsAndEndInAnEllipsis() {
        #expect(InfoBanner.wrap("one two three", width: 20, lines: 3) == ["one two three"])
        #expect(InfoBanner.wrap("one two three four", width: 9, lines: 3) == ["one two", "three", "four"])
        let cut = InfoBanner.wrap("alpha beta gamma delta epsilon zeta", width: 11, lines: 2)
        #expect(cut == ["alpha beta", "gamma…"], "\(cut)")
        #expect(InfoBanner.wrap("Supercalifragilistic", width: 8, lines: 2) == ["Superca…"])
        #expect(InfoBanner.wrap("   ", width: 8, lines: 2).isEmpty)
        for line in InfoBanner.wrap(String(repeating: "word ", count: 80), width: 30, lines: 3) { #expect(line.count <= 30) }
    }
}
