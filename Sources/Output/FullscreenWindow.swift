import CX11
import Foundation
import Lineup

/// The window output's full-screen window on X11: covers the whole screen (the window manager is
/// asked for full screen; without one it is simply placed at 0,0 with the screen's size), is
/// black, and shows no cursor. The output's video sink draws into it (`GstVideoOverlay`) instead
/// of opening a window of its own.
///
/// The only file that calls into X11 (the `CX11` module; libX11 is loaded at run time, so a box
/// without it still runs the other outputs). Owns its display connection: ``close()`` (after the
/// pipeline that draws into it has stopped) destroys the window. Thread-safe.
public final class FullscreenWindow: @unchecked Sendable {
    /// The X11 window id, for `GstVideoOverlay.set_window_handle`.
    public let handle: UInt
    public let width: Int
    public let height: Int
    private let lock = NSLock()
    private var window: cx11_window

    /// Opens `display` (nil: `$DISPLAY`) and maps the window.
    public init(display: String? = nil, title: String = "Flipbox") throws(FullscreenWindowError) {
        var window = cx11_window()
        let status = cx11_open_fullscreen(display, title, &window)
        guard status == 0 else { throw .opening(status: status, display: display) }
        self.window = window
        handle = UInt(window.window)
        width = Int(window.width)
        height = Int(window.height)
    }

    deinit { close() }

    /// Destroys the window and closes the connection; later calls do nothing.
    public func close() {
        lock.withLock { cx11_close(&window) }
    }

    /// The size of `display`'s default screen (nil: `$DISPLAY`).
    public static func screenSize(display: String? = nil) throws(FullscreenWindowError) -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0
        let status = cx11_screen_size(display, &width, &height)
        guard status == 0 else { throw .opening(status: status, display: display) }
        return (Int(width), Int(height))
    }
}

/// Why the full-screen window could not be made.
public typealias FullscreenWindowError = Failure<FullscreenWindowCode>

public enum FullscreenWindowCode: String, FailureCode {
    /// libX11 is not installed.
    case noLibX11
    /// The X display cannot be opened: no X server there, or this user may not use it.
    case noDisplay

    public var kind: FailureKind {
        switch self {
        case .noLibX11: .unsupported
        case .noDisplay: .unavailable
        }
    }
}

extension Failure where Code == FullscreenWindowCode {
    /// The error for `status`, what `cx11_open_fullscreen` or `cx11_screen_size` answered
    /// (-1: no libX11; else the display did not open), naming `display` (nil: `$DISPLAY`).
    static func opening(status: Int32, display: String?) -> FullscreenWindowError {
        guard status != -1 else {
            return FullscreenWindowError(.noLibX11, "the window output needs libX11 for --fullscreen (sudo apt-get install libx11-6)")
        }
        let name = display ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? "(DISPLAY is not set)"
        return FullscreenWindowError(
            .noDisplay,
            "cannot open the X display \(name) for a full-screen window (is the X server running, and may this user use it? see xhost/XAUTHORITY)")
    }
}
