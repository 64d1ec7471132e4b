import Foundation

/// Where the output goes.
public enum OutputSink: String, Sendable, CaseIterable {
    /// The console over HDMI, through KMS/DRM.
    case kms
    /// A window on X11 or Wayland.
    case window
    /// No display: frames are composed and kept for snapshots.
    case headless

    /// `auto`: a window under X11/Wayland, KMS on a console with a DRM device, else headless.
    public static func automatic(environment: [String: String] = ProcessInfo.processInfo.environment) -> OutputSink {
        if environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true || environment["DISPLAY"].map({ !$0.isEmpty }) == true {
            return .window
        }
        let onConsole = isatty(0) != 0 && (environment["TERM"] == "linux")
        if onConsole, FileManager.default.fileExists(atPath: "/dev/dri/card0") { return .kms }
        return .headless
    }

    /// The sink part of the output pipeline (constants only).
    func videoDescription(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        switch self {
        case .headless:
            return "fakesink name=vsink sync=false async=false enable-last-sample=false"
        case .kms:
            return "videoconvert ! kmssink name=vsink sync=false async=false"
        case .window:
            if environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true && environment["DISPLAY"] == nil {
                return "videoconvert ! waylandsink name=vsink sync=false async=false"
            }
            return "videoconvert ! ximagesink name=vsink sync=false async=false force-aspect-ratio=true"
        }
    }

    func audioDescription() -> String {
        switch self {
        case .headless: "fakesink name=asink sync=false async=false"
        case .kms, .window: "autoaudiosink name=asink"
        }
    }
}
