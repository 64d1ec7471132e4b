import Foundation
import GStreamer

/// What the on-screen list of recordings shows: the focused recording described on top (title,
/// time, channel, length, its guide description), a page of recordings below, newest first, each
/// with how much of it was watched, and a red mark on one still being written.
public struct RecordingListContent: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        public var title: String
        /// `Tue 20:00 · 5 BBC One · 58 min`.
        public var detail: String
        public var description: String
        /// How far it was watched (0...1); nil when never.
        public var watched: Double?
        /// Still being written.
        public var recording: Bool
        /// The channel's logo, or the programme's picture.
        public var logoPath: String?
        /// A conflict choice (`Drop Film`), drawn with a warning sign, not a recording.
        public var choice: Bool
        public init(title: String, detail: String, description: String, watched: Double?, recording: Bool, logoPath: String?,
                    choice: Bool = false) {
            self.choice = choice
            self.title = title
            self.detail = detail
            self.description = description
            self.watched = watched
            self.recording = recording
            self.logoPath = logoPath
        }
    }

    /// The page shown.
    public var items: [Item]
    /// The focused item (an index into `items`).
    public var focus: Int
    /// `3 of 12`.
    public var position: String
    public var now: Date

    public init(items: [Item], focus: Int, position: String, now: Date) {
        self.items = items
        self.focus = focus
        self.position = position
        self.now = now
    }
}

/// Conflict choices come first, each with a warning sign, its action as the title and the
/// conflict as the detail.
///
/// The list of recordings as one full-screen still, drawn in 1280x720 units from SVG at the
/// output size, like the guide (`GuideGridPicture`): the output shows it as its cover, and the
/// picture underneath keeps playing.
public enum RecordingListPicture {
    /// Rows on a page, and where they are, in 1280x720 units.
    public static let rowsPerPage = 6
    public static let firstRowY = 290.0, rowHeight = 66.0

    /// The list as an output frame of `format`. Blocking (renders SVG); off the media thread.
    public static func frame(_ content: RecordingListContent, format: VideoFormat) throws(GStreamerError) -> Buffer {
        let image = try ImageCodec.renderSVG(svgText(content, width: format.width, height: format.height))
        return try format.frame(image: image)
    }

    static func svgText(_ c: RecordingListContent, width: Int, height: Int) -> String {
        let e = InterstitialCards.escape, clip = GuideGridPicture.clip
        let focused = c.items.indices.contains(c.focus) ? c.items[c.focus] : nil
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(width)" height="\(height)" viewBox="0 0 1280 720" preserveAspectRatio="none">
            <rect x="0" y="0" width="1280" height="720" fill="#0b1220"/>
            <rect x="0" y="0" width="1280" height="270" fill="#121c33"/>
            <text x="60" y="64" font-family="DejaVu Sans" font-size="24" fill="#9fb0d0">Recordings  ·  \(e(c.position))  ·  \(GuideGridPicture.time(c.now))</text>
            <text x="1220" y="64" text-anchor="end" font-family="DejaVu Sans" font-size="22" fill="#6f80a0">\(focused?.choice == true ? "OK do this" : "OK watch")  ·  Back close</text>

            """
        if let focused {
            out += """
                <text x="60" y="140" font-family="DejaVu Sans" font-weight="bold" font-size="46" fill="#ffffff">\(e(clip(focused.title, 44)))</text>
                <text x="60" y="192" font-family="DejaVu Sans" font-size="28" fill="#f2c200">\(e(clip(focused.detail, 70)))</text>
                <text x="60" y="240" font-family="DejaVu Sans" font-size="24" fill="#c8d2e8">\(e(clip(focused.description, 90)))</text>

                """
        } else {
            out += """
                <text x="60" y="140" font-family="DejaVu Sans" font-weight="bold" font-size="46" fill="#ffffff">No recordings yet</text>
                <text x="60" y="192" font-family="DejaVu Sans" font-size="28" fill="#c8d2e8">Record from the guide (g, then ● or green)</text>

                """
        }
        for (i, item) in c.items.enumerated() {
            let y = firstRowY + Double(i) * rowHeight
            let on = i == c.focus
            out += "<rect x=\"40\" y=\"\(y + 4)\" width=\"1200\" height=\"\(rowHeight - 8)\" rx=\"8\" fill=\"\(on ? "#f2c200" : item.choice ? "#3a2a12" : "#16213a")\"/>\n"
            if item.choice {
                // A warning sign where a recording has its picture.
                out += """
                    <polygon points="84,\(y + 14) 110,\(y + 54) 58,\(y + 54)" fill="\(on ? "#101010" : "#ff9f0a")"/>
                    <text x="84" y="\(y + 50)" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="26" fill="\(on ? "#f2c200" : "#3a2a12")">!</text>

                    """
            } else {
                let logo = InterstitialCards.dataURL(forLogo: item.logoPath)
                out += "<image x=\"52\" y=\"\(y + 12)\" width=\"64\" height=\"\(rowHeight - 24)\" preserveAspectRatio=\"xMidYMid meet\" xlink:href=\"\(logo)\" href=\"\(logo)\"/>\n"
            }
            out += """
                <text x="132" y="\(y + 31)" font-family="DejaVu Sans" font-size="22" fill="\(on ? "#101010" : "#ffffff")">\(e(clip(item.title, 60)))</text>
                <text x="132" y="\(y + 53)" font-family="DejaVu Sans" font-size="18" fill="\(on ? "#303030" : "#9fb0d0")">\(e(clip(item.detail, 70)))</text>

                """
            if item.recording {
                out += "<circle cx=\"1210\" cy=\"\(y + rowHeight / 2)\" r=\"9\" fill=\"#ff3b30\"/>\n"
            }
            if let watched = item.watched {
                let w = 260 * min(1, max(0, watched))
                out += """
                    <rect x="930" y="\(y + rowHeight / 2 - 3)" width="260" height="6" rx="3" fill="\(on ? "#7a6300" : "#33415f")"/>
                    <rect x="930" y="\(y + rowHeight / 2 - 3)" width="\(w)" height="6" rx="3" fill="\(on ? "#101010" : "#f2c200")"/>

                    """
            }
        }
        return out + "\n</svg>\n"
    }
}
