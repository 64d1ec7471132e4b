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
    }

    /// An overlay showing `text` on an output of `width` x `height`. Blocking (renders with
    /// GStreamer's SVG decoder); call it off the media thread and off the cooperative pool.
    public static func overlay(_ text: String, style: Style, width: Int, height: Int) throws(GStreamerError) -> Overlay {
        let scale = Double(height) / 720
        let escaped = InterstitialCards.escape(text)
        let svg: String
        let x: Int, y: Int
        switch style {
        case .entry:
            let boxW = Int((60 + 52 * Double(max(2, text.count))) * scale), boxH = Int(110 * scale)
            svg = """
                <svg xmlns="http://www.w3.org/2000/svg" width="\(boxW)" height="\(boxH)" viewBox="0 0 \(Double(boxW) / scale) 110">
                <rect width="100%" height="100%" rx="14" fill="#000000" fill-opacity="0.7"/>
                <text x="30" y="84" font-family="DejaVu Sans Mono" font-weight="bold" font-size="84" fill="#ffffff">\(escaped)</text>
                </svg>
                """
            (x, y) = (Int(Double(width) * 0.05), Int(Double(height) * 0.05))
        case .message:
            let boxW = min(width - 16, Int((80 + 22 * Double(text.count)) * scale)), boxH = Int(80 * scale)
            svg = """
                <svg xmlns="http://www.w3.org/2000/svg" width="\(boxW)" height="\(boxH)" viewBox="0 0 \(Double(boxW) / scale) 80">
                <rect width="100%" height="100%" rx="12" fill="#000000" fill-opacity="0.75"/>
                <text x="50%" y="52" text-anchor="middle" font-family="DejaVu Sans" font-size="36" fill="#ffffff">\(escaped)</text>
                </svg>
                """
            (x, y) = ((width - boxW) / 2, height - boxH - Int(Double(height) * 0.08))
        }
        let image = try ImageCodec.renderSVG(svg)
        return Overlay(image: image, x: max(0, x), y: max(0, y))
    }
}
