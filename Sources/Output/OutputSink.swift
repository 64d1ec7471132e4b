import Foundation

/// Where the output goes.
public enum OutputSink: String, Sendable, CaseIterable {
    /// The console over HDMI, through KMS/DRM.
    case kms
    /// A window on X11 or Wayland.
    case window
    /// No display: frames are composed and kept for snapshots.
    case headless

    /// `auto`: a window under X11/Wayland; KMS when a display is connected and Flipbox runs as a
    /// service (stdin is not a terminal) or on a text console (`TERM=linux`); else headless.
    /// `displayConnected` is asked only when it matters.
    public static func automatic(environment: [String: String] = ProcessInfo.processInfo.environment,
                                 stdinIsTerminal: Bool, displayConnected: @autoclosure () -> Bool) -> OutputSink {
        if environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true || environment["DISPLAY"].map({ !$0.isEmpty }) == true {
            return .window
        }
        let onConsole = stdinIsTerminal && environment["TERM"] == "linux"
        if (!stdinIsTerminal || onConsole) && displayConnected() { return .kms }
        return .headless
    }

    /// The sink part of the output pipeline (constants only). `kmsDevice`: an open descriptor of
    /// `kms`'s device, which kmssink uses instead of opening one by driver name.
    /// `fullscreen`: waylandsink's own full screen (on X11 the output makes a ``FullscreenWindow``).
    func videoDescription(kms: KMSTarget? = nil, kmsDevice: Int32? = nil, fullscreen: Bool = false,
                          environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        switch self {
        case .headless:
            return "fakesink name=vsink sync=false async=false enable-last-sample=false"
        case .kms:
            guard let kms, let kmsDevice else { return "videoconvert ! kmssink name=vsink sync=false async=false" }
            return "videoconvert ! kmssink name=vsink sync=false async=false fd=\(kmsDevice) connector-id=\(kms.connectorID) force-modesetting=true"
        case .window:
            if Self.waylandOnly(environment) {
                return "videoconvert ! waylandsink name=vsink sync=false async=false\(fullscreen ? " fullscreen=true" : "")"
            }
            return "videoconvert ! ximagesink name=vsink sync=false async=false force-aspect-ratio=true"
        }
    }

    /// A Wayland session without X11 (no `DISPLAY`): the window output uses waylandsink.
    public static func waylandOnly(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true && (environment["DISPLAY"] ?? "").isEmpty
    }

    /// The audio sink: `device` when one is chosen (`--audio-device`), else the default one. A
    /// box with no sound card (no ALSA playback device) plays silently rather than failing to
    /// start: autoaudiosink would pick a sink that errors when it opens.
    func audioDescription(soundCard: Bool, device: AudioDevice? = nil) -> String {
        switch self {
        case .headless: return "fakesink name=asink sync=false async=false"
        case .window, .kms:
            if let device { return "alsasink name=asink device=\(device.alsaName) async=false" }
            return soundCard ? "autoaudiosink name=asink" : "fakesink name=asink sync=false async=false"
        }
    }

    /// Whether a desktop's sound server (PulseAudio, PipeWire) has its socket here: a window
    /// output may have sound through it without /dev/snd (a container, a remote session).
    public static func soundServerPresent(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["PULSE_SERVER"].map({ !$0.isEmpty }) == true { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        return ["pulse/native", "pipewire-0"].contains { FileManager.default.fileExists(atPath: runtime + "/" + $0) }
    }

    /// Whether ALSA has a playback device: a `pcmC<card>D<device>p` node in `directory`.
    public static func soundCardPresent(directory: String = "/dev/snd") -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.contains { $0.hasPrefix("pcmC") && $0.hasSuffix("p") }
    }
}
