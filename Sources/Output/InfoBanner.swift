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

    public struct Guide: Sendable, Hashable {
        public var now: String
        public var next: String?
        /// How far the current programme is, 0...1.
        public var progress: Double
        public init(now: String, next: String?, progress: Double) {
            self.now = now
            self.next = next
            self.progress = progress
        }
    }

    public init(number: String, name: String, group: String?, logoPath: String?, clock: String, guide: Guide? = nil) {
        self.number = number
        self.name = name
        self.group = group
        self.logoPath = logoPath
        self.clock = clock
        self.guide = guide
    }

    /// `HH:mm` in the box's time zone.
    public static func clock(at date: Date = Date()) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }
}

/// The info banner: a box along the bottom of the output with the channel's number, name, logo,
/// group, the clock and (with a guide) now/next with the programme's progress. Rendered from SVG
/// at the output size, so it is sharp at any resolution.
public enum InfoBanner {
    /// The banner's box on an output of `width` x `height`, in output pixels.
    public static func box(width: Int, height: Int, withGuide: Bool = false) -> (x: Int, y: Int, width: Int, height: Int) {
        let scale = Double(height) / 720
        let margin = Int(Double(height) * 0.06)
        let h = Int((withGuide ? 230 : 150) * scale)
        return (margin, height - margin - h, width - 2 * margin, h)
    }

    /// An overlay showing `content` on an output of `width` x `height`. Blocking (renders with
    /// GStreamer's SVG decoder); call it off the media thread and off the cooperative pool.
    public static func overlay(_ content: BannerContent, width: Int, height: Int) throws(GStreamerError) -> Overlay {
        let scale = Double(height) / 720
        let b = box(width: width, height: height, withGuide: content.guide != nil)
        let vw = Double(b.width) / scale, vh = Double(b.height) / scale
        let e = InterstitialCards.escape
        let hasLogo = content.logoPath != nil
        let textX = hasLogo ? 210.0 : 32.0
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
        }
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(b.width)" height="\(b.height)" viewBox="0 0 \(vw) \(vh)">
            \(body)</svg>
            """
        let image = try ImageCodec.renderSVG(svg)
        return Overlay(image: image, x: b.x, y: b.y)
    }
}
