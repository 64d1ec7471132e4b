import Lineup

/// Where the picture-in-picture window sits.
public struct PictureInPicturePlacement: Sendable, Hashable {
    public typealias Corner = LogoStyle.Corner

    public var corner: Corner
    /// Window width as a fraction of the output width (0.1...0.6); the height follows the output's aspect.
    public var size: Double
    /// Margin from the output edges as a fraction of each dimension (the title-safe area).
    public var safeArea: Double

    public static let sizes: ClosedRange<Double> = 0.1...0.6

    public init(corner: Corner = .bottomRight, size: Double = 0.3, safeArea: Double = 0.05) {
        self.corner = corner
        self.size = min(Self.sizes.upperBound, max(Self.sizes.lowerBound, size))
        self.safeArea = safeArea
    }

    /// The window's rectangle (with its 2-pixel frame) on an output of `width` x `height`;
    /// even sizes and positions, the output's aspect.
    public func rect(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let w = max(32, Int(Double(width) * size)) & ~1
        let h = max(18, w * height / width) & ~1
        let mx = Int(Double(width) * safeArea) & ~1, my = Int(Double(height) * safeArea) & ~1
        let x = corner == .topLeft || corner == .bottomLeft ? mx : width - mx - w
        let y = corner == .topLeft || corner == .topRight ? my : height - my - h
        return (x, y, w, h)
    }
}
