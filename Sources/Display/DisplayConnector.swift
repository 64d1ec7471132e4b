/// One output of a graphics card (an HDMI port, a DisplayPort, a virtual GPU's screen) and
/// what the display on it accepts.
public struct DisplayConnector: Sendable, Hashable {
    public enum Connection: String, Sendable, Hashable {
        case connected, disconnected, unknown
    }

    /// The DRM object id (kmssink's `connector-id`).
    public var id: UInt32
    /// The kernel's name for it: type and index, e.g. `HDMI-A-1`, `DP-2`, `Virtual-1`.
    public var name: String
    public var connection: Connection
    /// In the driver's order: the preferred mode first on most displays.
    public var modes: [DisplayMode]

    public init(id: UInt32, name: String, connection: Connection, modes: [DisplayMode]) {
        self.id = id
        self.name = name
        self.connection = connection
        self.modes = modes
    }

    /// The display's preferred mode, else the first one it lists.
    public var preferredMode: DisplayMode? { modes.first(where: \.preferred) ?? modes.first }
}
