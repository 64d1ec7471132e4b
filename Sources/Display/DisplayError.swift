import Failures

/// Why no display could be chosen, said to the person setting up the box: what, where, and
/// what to do.
public typealias DisplayError = Failure<DisplayCode>

public enum DisplayCode: String, FailureCode {
    /// No `cardN` device in the directory.
    case noDevice
    /// A device node that cannot be opened (permissions, gone).
    case cannotOpen
    /// A DRM device that cannot set modes (render-only, or not DRM at all).
    case notModeSetting
    /// Devices, but no display connected to any of them.
    case noConnectedDisplay
    /// `--connector NAME` that no device has.
    case noSuchConnector
    /// `--mode` that the display does not list.
    case noSuchMode

    public var kind: FailureKind {
        switch self {
        case .noDevice, .cannotOpen, .noConnectedDisplay: .unavailable
        case .notModeSetting: .unsupported
        case .noSuchConnector, .noSuchMode: .notFound
        }
    }
}
