import Foundation

/// Whether a display is plugged into a connector, followed over time: a value fed with the
/// connector's status as the kernel keeps it (`connected`, `disconnected`, `unknown`), giving
/// the moments it was lost and came back. A TV switched off and on, or an HDMI cable pulled and
/// put back, is a `lost` then a `back`; on `back` the output sets its mode again (a display that
/// comes back often needs that: the link is trained anew, and another TV may have been put in).
public struct ConnectorPresence: Sendable {
    public enum Change: Sendable, Equatable { case lost, back }

    private var connected: Bool?

    public init() {}

    /// The change `status` makes, if any; the first status read sets the state without one.
    public mutating func read(_ status: String) -> Change? {
        let now = status.trimmingCharacters(in: .whitespacesAndNewlines) == "connected"
        defer { connected = now }
        guard let was = connected, was != now else { return nil }
        return now ? .back : .lost
    }

    /// Where the kernel shows the status of connector `name` of the DRM device at `devicePath`
    /// (`/dev/dri/card0`, `HDMI-A-1` → `/sys/class/drm/card0-HDMI-A-1/status`). Reading it asks
    /// the driver nothing (no probe, no EDID read): fine to read every second.
    public static func statusPath(devicePath: String, connector name: String, sysfs: String = "/sys/class/drm") -> String {
        "\(sysfs)/\((devicePath as NSString).lastPathComponent)-\(name)/status"
    }
}
