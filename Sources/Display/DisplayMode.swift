/// One mode a display accepts: the parts of DRM's `drmModeModeInfo` that Flipbox uses.
public struct DisplayMode: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// The refresh rate in millihertz (59940 for 59.94 Hz), from the pixel clock and the totals.
    public var refreshMillihertz: Int
    /// The display's own choice (`DRM_MODE_TYPE_PREFERRED`): its native mode.
    public var preferred: Bool
    public var interlaced: Bool

    public init(width: Int, height: Int, refreshMillihertz: Int, preferred: Bool = false, interlaced: Bool = false) {
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
        self.preferred = preferred
        self.interlaced = interlaced
    }

    /// The refresh rate rounded to whole hertz (60 for 59.94): the output's frame rate follows it.
    public var refresh: Int { max(1, (refreshMillihertz + 500) / 1000) }

    /// `1920x1080@60`, `1920x1080@59.94`, `1920x1080i@50`.
    public var description: String {
        let hz = refreshMillihertz % 1000 == 0 || abs(refreshMillihertz - refresh * 1000) < 5
            ? "\(refresh)" : String(format: "%.2f", Double(refreshMillihertz) / 1000)
        return "\(width)x\(height)\(interlaced ? "i" : "")@\(hz)"
    }
}
