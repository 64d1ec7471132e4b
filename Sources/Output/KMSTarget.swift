import Lineup

/// Where the kms output draws: a DRM device node, one of its connectors, and a mode of that
/// connector whose size is the output's size. Found by probing the display (the Display module),
/// never guessed: kmssink's own defaults miss drivers it does not know (virtio_gpu) and keep
/// the console's mode.
///
/// The output opens `devicePath` itself, hands the descriptor to kmssink (`fd`) with mode setting
/// on (`force-modesetting`, which needs the output's size to be one of the connector's modes) and
/// closes it when the output shuts down.
public struct KMSTarget: Sendable, Hashable {
    /// e.g. `/dev/dri/card0`.
    public var devicePath: String
    /// The DRM connector's object id (kmssink's `connector-id`).
    public var connectorID: UInt32
    /// The connector's kernel name (`HDMI-A-1`), for following its hotplug; nil when not known.
    public var connectorName: String?

    public init(devicePath: String, connectorID: UInt32, connectorName: String? = nil) {
        self.devicePath = devicePath
        self.connectorID = connectorID
        self.connectorName = connectorName
    }
}

/// Why the kms output cannot use its device; the message names it and says what to do.
public typealias KMSDeviceError = Failure<KMSDeviceCode>

public enum KMSDeviceCode: String, FailureCode {
    /// The device node cannot be opened for reading and writing: this user is not in the video
    /// group, or the device is gone.
    case cannotOpen

    public var kind: FailureKind { .unavailable }
}
