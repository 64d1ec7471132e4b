/// Where and how a channel logo sits on the output.
public struct LogoPlacement: Sendable, Hashable {
    public enum Corner: String, Sendable, CaseIterable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }
    public var corner: Corner
    /// Logo height as a fraction of the output height (width follows the logo's aspect, at most twice the height).
    public var size: Double
    /// Margin from the output edges as a fraction of each dimension (the title-safe area).
    public var safeArea: Double
    public var opacity: Double

    public init(corner: Corner = .topRight, size: Double = 0.12, safeArea: Double = 0.05, opacity: Double = 0.9) {
        self.corner = corner
        self.size = size
        self.safeArea = safeArea
        self.opacity = opacity
    }

    /// The box the logo must fit in, for an output of `width` x `height`.
    public func box(width: Int, height: Int) -> (width: Int, height: Int) {
        let h = max(8, Int(Double(height) * size))
        return (h * 2, h)
    }

    /// Top-left position of a logo of `w` x `h` on an output of `width` x `height`.
    public func origin(logoWidth w: Int, logoHeight h: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let mx = Int(Double(width) * safeArea), my = Int(Double(height) * safeArea)
        switch corner {
        case .topLeft: return (mx, my)
        case .topRight: return (width - mx - w, my)
        case .bottomLeft: return (mx, height - my - h)
        case .bottomRight: return (width - mx - w, height - my - h)
        }
    }
}
