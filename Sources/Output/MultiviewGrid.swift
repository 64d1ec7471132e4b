import FlipboxCore
import Foundation
import GStreamer

/// Drawing the multiview: the grid as one full-output picture from SVG (pictures embedded as JPEG
/// data URLs); the output shows it instead of the channel (`OutputPipeline.setCover`), with no
/// blending per frame.
extension MultiviewGrid {
    /// The grid as a full-output frame of `format` (for `OutputPipeline.setCover`). Blocking
    /// (renders with GStreamer's SVG decoder); call it off the media thread and off the cooperative pool.
    public static func frame(tiles: [MultiviewTile], grid: Int, highlight: Int?, format: VideoFormat) throws(GStreamerError) -> Buffer {
        try format.frame(image: image(tiles: tiles, grid: grid, highlight: highlight, width: format.width, height: format.height))
    }

    /// The grid as a picture of `width` x `height`. Blocking, like `frame`.
    public static func image(tiles: [MultiviewTile], grid: Int, highlight: Int?, width: Int, height: Int) throws(GStreamerError) -> BGRAImage {
        let e = InterstitialCards.escape
        var body = ##"<rect width="100%" height="100%" fill="#05080d"/>"##
        for (i, tile) in tiles.prefix(grid * grid).enumerated() {
            let c = cell(i, grid: grid, width: width, height: height)
            let fontSize = max(10, Double(c.height) * 0.1)
            let strip = fontSize * 1.6
            body += "\n" + ##"<rect x="\##(c.x)" y="\##(c.y)" width="\##(c.width)" height="\##(c.height)" fill="#18202c"/>"##
            if let jpeg = tile.jpeg {
                body += "\n" + ##"<image x="\##(c.x)" y="\##(c.y)" width="\##(c.width)" height="\##(c.height)" preserveAspectRatio="xMidYMid slice" xlink:href="data:image/jpeg;base64,\##(Data(jpeg).base64EncodedString())"/>"##
            } else {
                body += "\n" + ##"<text x="\##(Double(c.x) + Double(c.width) / 2)" y="\##(Double(c.y) + Double(c.height) * 0.45)" text-anchor="middle" font-family="DejaVu Sans" font-size="\##(fontSize)" fill="#8090a8">\##(e(tile.note ?? "no picture"))</text>"##
            }
            body += "\n" + ##"<rect x="\##(c.x)" y="\##(Double(c.y + c.height) - strip)" width="\##(c.width)" height="\##(strip)" fill="#000000" fill-opacity="0.65"/>"##
            body += "\n" + ##"<text x="\##(Double(c.x) + fontSize * 0.5)" y="\##(Double(c.y + c.height) - strip * 0.3)" font-family="DejaVu Sans" font-size="\##(fontSize)" fill="#ffffff"><tspan font-weight="bold" fill="#ffd54a">\##(e(tile.number))</tspan><tspan dx="\##(fontSize * 0.5)">\##(e(tile.name))</tspan></text>"##
        }
        if let highlight, highlight >= 0, highlight < min(tiles.count, grid * grid) {
            let c = cell(highlight, grid: grid, width: width, height: height)
            let stroke = max(3, Double(height) / 160)
            body += "\n" + ##"<rect x="\##(Double(c.x) - stroke / 2)" y="\##(Double(c.y) - stroke / 2)" width="\##(Double(c.width) + stroke)" height="\##(Double(c.height) + stroke)" fill="none" stroke="#ffd54a" stroke-width="\##(stroke)"/>"##
        }
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">
            \(body)
            </svg>
            """
        return try ImageCodec.renderSVG(svg)
    }
}
