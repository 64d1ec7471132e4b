/// A DRM device that can set modes (`/dev/dri/cardN`) and its connectors.
public struct DisplayCard: Sendable, Hashable {
    /// The device node, e.g. `/dev/dri/card0`.
    public var path: String
    /// The kernel driver, e.g. `i915`, `amdgpu`, `vc4`, `virtio_gpu`.
    public var driver: String
    public var connectors: [DisplayConnector]

    public init(path: String, driver: String, connectors: [DisplayConnector]) {
        self.path = path
        self.driver = driver
        self.connectors = connectors
    }

    /// Connectors with a display on them that reports modes.
    public var connectedConnectors: [DisplayConnector] {
        connectors.filter { $0.connection == .connected && !$0.modes.isEmpty }
    }
}
