import Lineup

/// Where and how a channel logo sits on the output.
public struct LogoPlacement: Sendable, Hashable {
    public typealias Corner = LogoStyle.Corner

    public var corner: Corner
    /// Logo height as a fraction of the output height (width follows the logo's aspect, at most twice the height).
    public var size: Double
    /// Margin from the output edges as a fraction of each dimension (the title-safe area).
    public var safeArea: Double
    /// Further distance from the safe area's edge, as a fraction of the output height (so it is
    /// the same number of pixels on both axes).
    public var margin: Double
    public var opacity: Double

    public init(corner: Corner = .topRight, size: Double = 0.12, safeArea: Double = 0.05, margin: Double = 0, opacity: Double = 0.9) {
        self.corner = corner
        self.size = size
        self.safeArea = safeArea
        self.margin = margin
        self.opacity = opacity
    }

    /// This placement with a lineup's options over it, or nil when they turn the logo off.
    public func styled(_ style: LogoStyle) -> LogoPlacement? {
        if style.isShown == false { return nil }
        var placed = self
        if let corner = style.corner { placed.corner = corner }
        if let size = style.size { placed.size = size }
        if let margin = style.margin { placed.margin = margin }
        if let opacity = style.opacity { placed.opacity = opacity }
        return placed
    }

    /// The box the logo must fit in, for an output of `width` x `height`.
    public func box(width: Int, height: Int) -> (width: Int, height: Int) {
        let h = max(8, Int(Double(height) * size))
        return (h * 2, h)
    }

    /// Top-left position of a logo of `w` x `h` on an output of `width` x `height`.
    public func origin(logoWidth w: Int, logoHeight h: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let inset = Double(height) * margin
        let mx = Int(Double(width) * safeArea + inset), my = Int(Double(height) * safeArea + inset)
        switch corner {
        case .topLeft: return (mx, my)
        case .topRight: return (width - mx - w, my)
        case .bottomLeft: return (mx, height - my - h)
        case .bottomRight: return (width - mx - w, height - my - h)
        }
    }
}
