import Foundation
import GStreamer

/// One cell of the multiview: a channel's label and its latest picture.
public struct MultiviewTile: Sendable, Hashable {
    public var number: String
    public var name: String
    /// A JPEG of the channel's latest keyframe; nil draws the `note` instead.
    public var jpeg: [UInt8]?
    /// Why there is no picture (`cold`, `connecting`, ...).
    public var note: String?

    public init(number: String, name: String, jpeg: [UInt8]?, note: String? = nil) {
        self.number = number
        self.name = name
        self.jpeg = jpeg
        self.note = note
    }
}

/// The multiview mosaic: a grid of `grid` x `grid` channel pictures, each labelled with its number
/// and name, one cell highlighted. Drawn as one full-output picture from SVG (pictures embedded as
/// JPEG data URLs), so it costs one render per refresh; the output shows it instead of the channel
/// (`OutputPipeline.setCover`), with no blending per frame.
public enum MultiviewGrid {
    public static let grids: ClosedRange<Int> = 2...4

    /// The rectangle of cell `index` (row-major) on an output of `width` x `height`, in pixels.
    public static func cell(_ index: Int, grid: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let margin = Double(height) * 0.03, gap = Double(height) * 0.015
        let w = (Double(width) - 2 * margin - Double(grid - 1) * gap) / Double(grid)
        let h = (Double(height) - 2 * margin - Double(grid - 1) * gap) / Double(grid)
        let (row, column) = (index / grid, index % grid)
        return (Int(margin + Double(column) * (w + gap)), Int(margin + Double(row) * (h + gap)), Int(w), Int(h))
    }

    /// The width to ask channel pictures for, for a `grid` on an output `width` wide.
    public static func tileWidth(grid: Int, width: Int, height: Int) -> Int {
        cell(0, grid: grid, width: width, height: height).width & ~1
    }

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
