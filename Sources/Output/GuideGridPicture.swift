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
    /// The line on top: the focused programme's time, title, and what it is.
    public var detail: String

    public init(rows: [Row], windowStart: Date, now: Date, focusRow: Int, focusTime: Date, detail: String) {
        self.rows = rows
        self.windowStart = windowStart
        self.now = now
        self.focusRow = focusRow
        self.focusTime = focusTime
        self.detail = detail
    }
}

/// The on-screen guide as an overlay over the lower part of the output (the channel keeps
/// playing above it). Drawn in 1280x720 units and rendered from SVG at the output size;
/// re-drawn only when it changes (a move, the now line every half minute), so an open guide
/// costs one still picture blended into each frame.
public enum GuideGridPicture {
    /// The panel's top edge, the header rows and the grid, in 1280x720 units.
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

    /// Blocking (renders SVG); call it off the media thread and the cooperative pool.
    public static func overlay(_ content: GuideGridContent, width: Int, height: Int) throws(GStreamerError) -> Overlay {
        let panelTop = Int(top * Double(height) / 720)
        let pixelH = height - panelTop
        let svg = svgText(content, width: width, height: pixelH)
        let image = try ImageCodec.renderSVG(svg)
        return Overlay(image: image, x: 0, y: panelTop)
    }

    static func svgText(_ c: GuideGridContent, width: Int, height: Int) -> String {
        let e = InterstitialCards.escape
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(width)" height="\(height)" viewBox="0 \(top) 1280 \(720 - top)" preserveAspectRatio="none">
            <rect x="0" y="\(top)" width="1280" height="\(720 - top)" fill="#0b1220" fill-opacity="0.94"/>
            <text x="40" y="\(top + 36)" font-family="DejaVu Sans" font-weight="bold" font-size="26" fill="#ffffff">\(e(c.detail))</text>

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
            let x = Self.x(of: c.now, windowStart: c.windowStart)
            let lineHeight = firstRowY + Double(rowsPerPage) * rowHeight - timeRowY
            out += "<rect x=\"\(x - 1.5)\" y=\"\(timeRowY)\" width=\"3\" height=\"\(lineHeight)\" fill=\"#ff3b30\"/>"
        }
        return out + "\n</svg>\n"
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
