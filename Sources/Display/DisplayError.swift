import Foundation

/// Why no display could be chosen, said to the person setting up the box: what, where, and
/// what to do.
public struct DisplayError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
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
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
