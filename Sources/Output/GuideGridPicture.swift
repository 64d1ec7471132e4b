import Foundation
import GStreamer

/// What the on-screen guide shows: a page of channels (logo, number, name) down, two hours of
/// their programmes across, a line at now, the focused programme highlighted and described on top.
public struct GuideGridContent: Sendable, Hashable {
    public struct Cell: Sendable, Hashable {
        public var title: String
        public var start: Date
        public var end: Date
        public init(title: String, start: Date, end: Date) {
            self.title = title
            self.start = start
            self.end = end
        }
    }

    public struct Row: Sendable, Hashable {
        public var number: String
        public var name: String
        public var logoPath: String?
        public var cells: [Cell]
        /// The channel on screen.
        public var playing: Bool
        public init(number: String, name: String, logoPath: String?, cells: [Cell], playing: Bool) {
            self.number = number
            self.name = name
            self.logoPath = logoPath
            self.cells = cells
            self.playing = playing
        }
    }

    public var rows: [Row]
    public var windowStart: Date
    public var now: Date
    /// The focused row (an index into `rows`) and the moment inside the focused programme.
    public var focusRow: Int
    public var focusTime: Date
    /// The focused programme on top: its title, its time and channel, and a line about it.
    public var title: String
    public var detail: String
    public var description: String

    public init(rows: [Row], windowStart: Date, now: Date, focusRow: Int, focusTime: Date,
                title: String, detail: String, description: String = "") {
        self.rows = rows
        self.windowStart = windowStart
        self.now = now
        self.focusRow = focusRow
        self.focusTime = focusTime
        self.title = title
        self.detail = detail
        self.description = description
    }
}

/// The on-screen guide as one full-screen still: the focused programme described on top, the grid
/// below. Drawn in 1280x720 units and rendered from SVG at the output size, again only when it
/// changes (a move, the now line every half minute). The output shows it as its cover: the
/// channel underneath keeps decoding and its sound plays, and nothing is blended per frame
/// (blending a picture this size into every frame took about a quarter of a core).
public enum GuideGridPicture {
    /// The grid's top edge, the header rows and the grid, in 1280x720 units.
    public static let top = 290.0, timeRowY = 340.0, firstRowY = 376.0, rowHeight = 62.0
    public static let gridX = 300.0, gridRight = 1260.0
    /// Rows on a page.
    public static let rowsPerPage = 5
    public static let span: TimeInterval = 7200

    /// The x of `date` in 1280x720 units (clamped to the grid).
    public static func x(of date: Date, windowStart: Date) -> Double {
        let fraction = date.timeIntervalSince(windowStart) / span
        return min(gridRight, max(gridX, gridX + fraction * (gridRight - gridX)))
    }

    /// The y of row `index`'s top, in 1280x720 units.
    public static func y(ofRow index: Int) -> Double { firstRowY + Double(index) * rowHeight }

    /// The guide as an output frame of `format`. Blocking (renders SVG); call it off the media
    /// thread and the cooperative pool.
    public static func frame(_ content: GuideGridContent, format: VideoFormat) throws(GStreamerError) -> Buffer {
        let image = try ImageCodec.renderSVG(svgText(content, width: format.width, height: format.height))
        return try format.frame(image: image)
    }

    static func svgText(_ c: GuideGridContent, width: Int, height: Int) -> String {
        let e = InterstitialCards.escape
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(width)" height="\(height)" viewBox="0 0 1280 720" preserveAspectRatio="none">
            <rect x="0" y="0" width="1280" height="720" fill="#0b1220"/>
            <rect x="0" y="0" width="1280" height="\(top - 10)" fill="#121c33"/>
            <text x="60" y="64" font-family="DejaVu Sans" font-size="24" fill="#9fb0d0">Guide  ·  \(time(c.now))</text>
            <text x="60" y="140" font-family="DejaVu Sans" font-weight="bold" font-size="46" fill="#ffffff">\(e(clip(c.title, 44)))</text>
            <text x="60" y="192" font-family="DejaVu Sans" font-size="28" fill="#f2c200">\(e(clip(c.detail, 70)))</text>
            <text x="60" y="240" font-family="DejaVu Sans" font-size="24" fill="#c8d2e8">\(e(clip(c.description, 90)))</text>
            <text x="1220" y="64" text-anchor="end" font-family="DejaVu Sans" font-size="22" fill="#6f80a0">OK watch  ·  red remind  ·  ● or green record  ·  yellow series  ·  Back close</text>

            """
        // Half-hour marks.
        var mark = c.windowStart
        while mark < c.windowStart.addingTimeInterval(span) {
            let x = Self.x(of: mark, windowStart: c.windowStart)
            out += """
                <text x="\(x + 6)" y="\(timeRowY + 24)" font-family="DejaVu Sans" font-size="20" fill="#9fb0d0">\(time(mark))</text>
                <rect x="\(x)" y="\(timeRowY)" width="1" height="\(firstRowY + Double(rowsPerPage) * rowHeight - timeRowY)" fill="#33415f"/>

                """
            mark = mark.addingTimeInterval(1800)
        }
        let end = c.windowStart.addingTimeInterval(span)
        for (i, row) in c.rows.enumerated() {
            let y = Self.y(ofRow: i)
            let logo = InterstitialCards.dataURL(forLogo: row.logoPath)
            out += """
                <rect x="20" y="\(y + 4)" width="270" height="\(rowHeight - 8)" rx="6" fill="\(row.playing ? "#2c3d66" : "#16213a")"/>
                <image x="28" y="\(y + 10)" width="64" height="\(rowHeight - 20)" preserveAspectRatio="xMidYMid meet" xlink:href="\(logo)" href="\(logo)"/>
                <text x="102" y="\(y + 39)" font-family="DejaVu Sans" font-size="22" fill="#ffffff">\(e(clip("\(row.number) \(row.name)", 14)))</text>

                """
            for cell in row.cells where cell.end > c.windowStart && cell.start < end {
                let x0 = Self.x(of: cell.start, windowStart: c.windowStart), x1 = Self.x(of: cell.end, windowStart: c.windowStart)
                let focused = i == c.focusRow && cell.start <= c.focusTime && c.focusTime < cell.end
                let w = max(2, x1 - x0 - 4)
                out += """
                    <rect x="\(x0 + 2)" y="\(y + 4)" width="\(w)" height="\(rowHeight - 8)" rx="6" fill="\(focused ? "#f2c200" : "#22314f")"/>
                    <text x="\(x0 + 12)" y="\(y + 39)" font-family="DejaVu Sans" font-size="20" fill="\(focused ? "#101010" : "#ffffff")">\(e(clip(cell.title, Int((w - 16) / 11))))</text>

                    """
            }
        }
        if c.now >= c.windowStart && c.now < end {
            let line = nowLine(x: Self.x(of: c.now, windowStart: c.windowStart), outputWidth: width)
            let lineHeight = firstRowY + Double(rowsPerPage) * rowHeight - timeRowY
            out += "<rect x=\"\(line.x)\" y=\"\(timeRowY)\" width=\"\(line.width)\" height=\"\(lineHeight)\" fill=\"#ff3b30\"/>"
        }
        return out + "\n</svg>\n"
    }

    /// The now line at design x `x`, placed on whole output pixels: it starts on an even column
    /// and is an even number of columns wide (3 design units, at least 2 pixels), so it is
    /// neither smeared by anti-aliasing nor by 4:2:0 video, whose colour is shared by pixel
    /// pairs (a thin red line half in a pair came out pale on small outputs). In design units.
    static func nowLine(x: Double, outputWidth: Int) -> (x: Double, width: Double) {
        let scale = Double(max(1, outputWidth)) / 1280
        let columns = max(2, Int((3 * scale / 2).rounded()) * 2)
        let first = Int(((x * scale - Double(columns) / 2) / 2).rounded()) * 2
        return (Double(first) / scale, Double(columns) / scale)
    }

    /// `text` cut to `count` characters with an ellipsis.
    static func clip(_ text: String, _ count: Int) -> String {
        guard count > 1 else { return "" }
        return text.count <= count ? text : String(text.prefix(count - 1)) + "…"
    }

    /// `HH:mm` in the box's time zone.
    static func time(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }
}
