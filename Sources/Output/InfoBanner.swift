import Foundation
import GStreamer

/// What the info banner says about the channel on screen.
public struct BannerContent: Sendable, Hashable {
    public var number: String
    public var name: String
    public var group: String?
    /// A logo file on this box (PNG, JPEG, SVG, GIF), embedded in the banner; nil draws none.
    public var logoPath: String?
    /// The time of day as shown, e.g. `21:05`.
    public var clock: String
    /// Now and next from a programme guide; nil when there is no guide (those lines are left out).
    public var guide: Guide?
    /// The long form (`i` twice): the programme's description under now and next.
    public var long: Bool

    public struct Guide: Sendable, Hashable {
        public var now: String
        public var next: String?
        /// How far the current programme is, 0...1.
        public var progress: Double
        /// The programme's rating as the guide gives it (`TV-14`, `FSK 16`), drawn as a badge.
        public var rating: String?
        /// What the programme is about; on the long form only.
        public var description: String?
        public init(now: String, next: String?, progress: Double, rating: String? = nil, description: String? = nil) {
            self.now = now
            self.next = next
            self.progress = progress
            self.rating = rating
            self.description = description
        }
    }

    public init(number: String, name: String, group: String?, logoPath: String?, clock: String, guide: Guide? = nil, long: Bool = false) {
        self.number = number
        self.name = name
        self.group = group
        self.logoPath = logoPath
        self.clock = clock
        self.guide = guide
        self.long = long
    }

    /// The description's lines on the long form for a banner `width` output pixels wide at
    /// `scale`; none on the short form or without a description.
    func descriptionLines(bannerWidth: Double) -> [String] {
        guard long, let description = guide?.description, !description.isEmpty else { return [] }
        let textX = InfoBanner.textX(hasLogo: logoPath != nil)
        // About 0.52 em per character of DejaVu Sans at 26 units.
        let perLine = max(12, Int((bannerWidth - textX - 32) / (26 * 0.52)))
        return InfoBanner.wrap(description, width: perLine, lines: InfoBanner.descriptionLines)
    }

    /// `HH:mm` in the box's time zone.
    public static func clock(at date: Date = Date()) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }
}

/// The info banner: a box along the bottom of the output with the channel's number, name, logo,
/// group, the clock and (with a guide) now/next with the programme's progress and its rating as
/// a badge; the long form adds up to three lines of the programme's description. Rendered from
/// SVG at the output size, so it is sharp at any resolution.
public enum InfoBanner {
    /// Where the text starts, in the banner's 720-line units: right of the logo, if any.
    static func textX(hasLogo: Bool) -> Double { hasLogo ? 210 : 32 }

    /// Lines of description on the long form, at most.
    public static let descriptionLines = 3
    static let descriptionLineHeight = 34.0

    /// The banner's box on an output of `width` x `height`, in output pixels, with `lines` of
    /// description (the long form; only with a guide).
    public static func box(width: Int, height: Int, withGuide: Bool = false, lines: Int = 0) -> (x: Int, y: Int, width: Int, height: Int) {
        let scale = Double(height) / 720
        let margin = Int(Double(height) * 0.06)
        var units = withGuide ? 230.0 : 150.0
        if withGuide && lines > 0 { units += 16 + Double(min(lines, descriptionLines)) * descriptionLineHeight }
        let h = Int(units * scale)
        return (margin, height - margin - h, width - 2 * margin, h)
    }

    /// `text` broken at spaces into at most `lines` lines of `width` characters; the last line
    /// ends in `…` when text is left over.
    static func wrap(_ text: String, width: Int, lines: Int) -> [String] {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        var out: [String] = []
        var line = ""
        var index = 0
        while index < words.count, out.count < lines {
            let word = words[index].count > width ? String(words[index].prefix(width - 1)) + "…" : words[index]
            if line.isEmpty {
                line = word
                index += 1
            } else if line.count + 1 + word.count <= width {
                line += " " + word
                index += 1
            } else {
                out.append(line)
                line = ""
            }
        }
        if !line.isEmpty, out.count < lines { out.append(line) }
        if index < words.count, let last = out.indices.last {
            var shortened = out[last]
            while shortened.count > width - 1, let space = shortened.lastIndex(of: " ") { shortened = String(shortened[..<space]) }
            out[last] = String(shortened.prefix(width - 1)) + "…"
        }
        return out
    }

    /// An overlay showing `content` on an output of `width` x `height`. Blocking (renders with
    /// GStreamer's SVG decoder); call it off the media thread and off the cooperative pool.
    public static func overlay(_ content: BannerContent, width: Int, height: Int) throws(GStreamerError) -> Overlay {
        let drawn = try picture(content, width: width, height: height)
        return Overlay(image: drawn.image, x: drawn.x, y: drawn.y)
    }

    /// The banner's picture and where it goes on an output of `width` x `height`. Blocking, as
    /// `overlay`.
    public static func picture(_ content: BannerContent, width: Int, height: Int) throws(GStreamerError) -> (image: BGRAImage, x: Int, y: Int) {
        let scale = Double(height) / 720
        let margin = Int(Double(height) * 0.06)
        let lines = content.descriptionLines(bannerWidth: Double(width - 2 * margin) / scale)
        let b = box(width: width, height: height, withGuide: content.guide != nil, lines: lines.count)
        let vw = Double(b.width) / scale, vh = Double(b.height) / scale
        let e = InterstitialCards.escape
        let hasLogo = content.logoPath != nil
        let textX = textX(hasLogo: hasLogo)
        var body = """
            <rect width="100%" height="100%" rx="16" fill="#0b1320" fill-opacity="0.82"/>
            <rect x="0" y="0" width="8" height="\(vh)" rx="4" fill="#ffd54a"/>

            """
        if hasLogo {
            body += """
                <image x="28" y="20" width="160" height="110" preserveAspectRatio="xMidYMid meet" xlink:href="\(InterstitialCards.dataURL(forLogo: content.logoPath))"/>

                """
        }
        body += """
            <text x="\(textX)" y="72" font-family="DejaVu Sans" font-size="50" fill="#ffffff"><tspan font-weight="bold" fill="#ffd54a">\(e(content.number))</tspan><tspan dx="26">\(e(content.name))</tspan></text>
            <text x="\(vw - 32)" y="66" text-anchor="end" font-family="DejaVu Sans" font-size="40" fill="#ffffff">\(e(content.clock))</text>

            """
        if let group = content.group, !group.isEmpty {
            body += """
                <text x="\(textX)" y="118" font-family="DejaVu Sans" font-size="28" fill="#b8c4d6">\(e(group))</text>

                """
        }
        if let guide = content.guide {
            let barW = vw - textX - 32
            let progress = min(1, max(0, guide.progress))
            body += """
                <text x="\(textX)" y="166" font-family="DejaVu Sans" font-size="30" fill="#ffffff">Now: \(e(guide.now))</text>
                <rect x="\(textX)" y="178" width="\(barW)" height="8" rx="4" fill="#ffffff" fill-opacity="0.25"/>
                <rect x="\(textX)" y="178" width="\(barW * progress)" height="8" rx="4" fill="#ffd54a"/>

                """
            if let next = guide.next {
                body += """
                    <text x="\(textX)" y="214" font-family="DejaVu Sans" font-size="26" fill="#b8c4d6">Next: \(e(next))</text>

                    """
            }
            if let rating = guide.rating?.trimmingCharacters(in: .whitespaces), !rating.isEmpty {
                // A white-framed badge at the right, under the clock; its width follows the text.
                let label = String(rating.prefix(12))
                let badgeW = Double(label.count) * 17 + 28
                body += """
                    <rect x="\(vw - 32 - badgeW)" y="92" width="\(badgeW)" height="40" rx="6" fill="#ffffff" fill-opacity="0.12" stroke="#ffffff" stroke-width="3"/>
                    <text x="\(vw - 32 - badgeW / 2)" y="122" text-anchor="middle" font-family="DejaVu Sans" font-size="26" font-weight="bold" fill="#ffffff">\(e(label))</text>

                    """
            }
            for (i, line) in lines.enumerated() {
                body += """
                    <text x="\(textX)" y="\(262 + Double(i) * descriptionLineHeight)" font-family="DejaVu Sans" font-size="26" fill="#e3e8f0">\(e(line))</text>

                    """
            }
        }
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(b.width)" height="\(b.height)" viewBox="0 0 \(vw) \(vh)">
            \(body)</svg>
            """
        return (try ImageCodec.renderSVG(svg), b.x, b.y)
    }
}
