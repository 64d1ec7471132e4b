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
/// and name, one cell highlighted. Its layout is here; the output draws it (`MultiviewGrid.frame`
/// in Output) as one full-output picture from SVG, so it costs one render per refresh.
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
}

/// A move of the multiview's highlight.
public enum MultiviewMove: String, Sendable, Hashable, Codable {
    case up, down, left, right
}
