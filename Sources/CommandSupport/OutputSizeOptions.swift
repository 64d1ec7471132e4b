import ArgumentParser

/// `--size` and `--fps`, shared by `play` and `bench`: the output's picture size and frame rate,
/// read and checked in one place.
public struct OutputSizeOptions: ParsableArguments {
    public init() {}

    public static let defaultSize = "1280x720"
    public static let defaultFPS = 30

    @Option(help: "Output size WIDTHxHEIGHT, even numbers (default 1280x720; play --output kms: the display's mode, see --mode).")
    public var size: String?

    @Option(help: "Output frame rate, 1 to 120 (default 30; play --output kms: the display's refresh).")
    public var fps: Int?

    /// The size and frame rate asked for, defaults filled in; a clear error for a bad one.
    public func resolved() throws -> (width: Int, height: Int, fps: Int) {
        let text = size ?? Self.defaultSize
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (64...7680).contains(w), (64...4320).contains(h),
              w % 2 == 0, h % 2 == 0 else {
            throw ValidationError("--size must be WIDTHxHEIGHT with even numbers from 64x64 to 7680x4320, e.g. 1280x720, not '\(text)'")
        }
        let rate = fps ?? Self.defaultFPS
        guard (1...120).contains(rate) else { throw ValidationError("--fps must be 1 to 120, not \(rate)") }
        return (w, h, rate)
    }
}
