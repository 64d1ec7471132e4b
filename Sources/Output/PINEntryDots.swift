import GStreamer

/// The PIN being typed on the lock card: one filled dot per digit typed, empty rings up to four,
/// in a box centred at `centre` (the lock card leaves that band empty). The digits never show.
public enum PINEntryDots {
    /// The box's centre in a 1280x720 frame (scaled to the output).
    public static let centre = (x: 640.0, y: 520.0)
    /// Distance between dot centres and the dot radius, in 1280x720 units.
    public static let spacing = 64.0, radius = 18.0

    /// Where dot `index` (0-based) of `slots` is centred on an output of `width` x `height`.
    public static func dotCentre(_ index: Int, of slots: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let scale = Double(height) / 720
        let x = centre.x * Double(width) / 1280 + (Double(index) - Double(slots - 1) / 2) * spacing * scale
        return (Int(x.rounded()), Int((centre.y * scale).rounded()))
    }

    /// How many places are drawn for `typed` digits: at least four, at most eight.
    public static func slots(typed: Int) -> Int { min(8, max(4, typed)) }

    /// The overlay for `typed` digits. Blocking (renders SVG); call it off the cooperative pool.
    public static func overlay(typed: Int, width: Int, height: Int) throws(GStreamerError) -> Overlay {
        let scale = Double(height) / 720
        let slots = slots(typed: typed)
        let boxW = Double(slots) * spacing + 48, boxH = 84.0
        var dots = ""
        for i in 0..<slots {
            let cx = 24 + spacing / 2 + Double(i) * spacing
            dots += i < typed
                ? "<circle cx=\"\(cx)\" cy=\"\(boxH / 2)\" r=\"\(radius)\" fill=\"#ffffff\"/>"
                : "<circle cx=\"\(cx)\" cy=\"\(boxH / 2)\" r=\"\(radius - 3)\" fill=\"none\" stroke=\"#8a8aa0\" stroke-width=\"4\"/>"
        }
        let pixelW = Int(boxW * scale), pixelH = Int(boxH * scale)
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixelW)" height="\(pixelH)" viewBox="0 0 \(boxW) \(boxH)">
            <rect width="100%" height="100%" rx="16" fill="#000000" fill-opacity="0.55"/>\(dots)
            </svg>
            """
        let image = try ImageCodec.renderSVG(svg)
        let x = Int(centre.x * Double(width) / 1280) - pixelW / 2
        let y = Int(centre.y * scale) - pixelH / 2
        return Overlay(image: image, x: max(0, x), y: max(0, y))
    }
}
