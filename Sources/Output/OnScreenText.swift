import Foundation
import GStreamer

/// Short texts drawn over the picture: the channel number being typed, and messages such as
/// "No channel 42". Rendered from SVG at the output size, so they are sharp at any resolution.
public enum OnScreenText {
    public enum Style: Sendable {
        /// Big digits in the top-left corner, like a TV's number entry.
        case entry
        /// A message box near the bottom, centred.
        case message
        /// A small notice at the top, centred ("Up next: …").
        case notice
        /// A question in the middle of the screen, on blue ("… OK to watch").
        case proposal
    }

    /// How a style looks, in 720-line units: the box (its padding, width per character, height,
    /// corner, colour) and the text (font, size, baseline), and where the box sits.
    struct Look {
        var padding: Double, perCharacter: Double, minimumCharacters = 0, height: Double, corner: Double
        var fill: String, opacity: Double
        var font = "DejaVu Sans", bold = false, fontSize: Double, baseline: Double, centred = true
    }

    static func look(_ style: Style) -> Look {
        switch style {
        case .entry:
            Look(padding: 60, perCharacter: 52, minimumCharacters: 2, height: 110, corner: 14, fill: "#000000", opacity: 0.7,
                 font: "DejaVu Sans Mono", bold: true, fontSize: 84, baseline: 84, centred: false)
        case .message:
            Look(padding: 80, perCharacter: 22, height: 80, corner: 12, fill: "#000000", opacity: 0.75, fontSize: 36, baseline: 52)
        case .notice:
            Look(padding: 60, perCharacter: 16, height: 56, corner: 10, fill: "#000000", opacity: 0.7, fontSize: 26, baseline: 38)
        case .proposal:
            Look(padding: 80, perCharacter: 21, height: 96, corner: 14, fill: "#1f4fbf", opacity: 0.92, fontSize: 34, baseline: 60)
        }
    }

    /// An overlay showing `text` on an output of `width` x `height`. Blocking (renders with
    /// GStreamer's SVG decoder); call it off the media thread and off the cooperative pool.
    public static func overlay(_ text: String, style: Style, width: Int, height: Int) throws(GStreamerError) -> Overlay {
        let scale = Double(height) / 720
        let look = look(style)
        let characters = Double(max(look.minimumCharacters, text.count))
        let boxW = min(width - 16, Int((look.padding + look.perCharacter * characters) * scale)), boxH = Int(look.height * scale)
        let anchor = look.centred ? #"x="50%" text-anchor="middle""# : #"x="30""#
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(boxW)" height="\(boxH)" viewBox="0 0 \(Double(boxW) / scale) \(look.height)">
            <rect width="100%" height="100%" rx="\(look.corner)" fill="\(look.fill)" fill-opacity="\(look.opacity)"/>
            <text \(anchor) y="\(look.baseline)" font-family="\(look.font)"\(look.bold ? #" font-weight="bold""# : "") font-size="\(look.fontSize)" fill="#ffffff">\(InterstitialCards.escape(text))</text>
            </svg>
            """
        let x: Int, y: Int
        switch style {
        case .entry: (x, y) = (Int(Double(width) * 0.05), Int(Double(height) * 0.05))
        case .message: (x, y) = ((width - boxW) / 2, height - boxH - Int(Double(height) * 0.08))
        case .notice: (x, y) = ((width - boxW) / 2, Int(Double(height) * 0.05))
        case .proposal: (x, y) = ((width - boxW) / 2, Int(Double(height) * 0.42))
        }
        let image = try ImageCodec.renderSVG(svg)
        return Overlay(image: image, x: max(0, x), y: max(0, y))
    }
}
