import Foundation

/// An ALSA playback device, as `/proc/asound/pcm` lists it (`00-03: HDMI 0 : HDMI 0 : playback 1`).
public struct AudioDevice: Sendable, Hashable, CustomStringConvertible {
    public var card: Int
    public var device: Int
    /// The device's name (`HDMI 0`, `ALC887-VD Analog`).
    public var name: String

    public init(card: Int, device: Int, name: String) {
        self.card = card
        self.device = device
        self.name = name
    }

    /// What alsasink opens: `plughw:` so ALSA converts the output's format to what the device takes.
    public var alsaName: String { "plughw:\(card),\(device)" }

    public var description: String { "hw:\(card),\(device) \(name)" }

    /// Whether the device is a digital link to a receiver (HDMI, DisplayPort, S/PDIF), by its
    /// name: only there does sound passed through undecoded reach a decoder; an analog output
    /// would play it as noise.
    public var isDigitalLink: Bool {
        let lower = name.lowercased()
        return ["hdmi", "displayport", "spdif", "s/pdif", "iec958", "digital"].contains { lower.contains($0) }
            || lower.split(separator: " ").contains("dp")
    }

    /// The playback devices in `/proc/asound/pcm`'s text (empty without a sound card).
    public static func playbackDevices(pcmList text: String) -> [AudioDevice] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 3, fields.dropFirst(3).contains(where: { $0.hasPrefix("playback") }) else { return nil }
            let numbers = fields[0].split(separator: "-").compactMap { Int($0) }
            guard numbers.count == 2 else { return nil }
            return AudioDevice(card: numbers[0], device: numbers[1], name: fields[1])
        }
    }

    /// Where ALSA lists its devices (`FLIPBOX_ASOUND_PCM` stands in for it in tests).
    public static let pcmListFile = ProcessInfo.processInfo.environment["FLIPBOX_ASOUND_PCM"] ?? "/proc/asound/pcm"

    /// The playback devices of this machine.
    public static func playbackDevices(pcmListFile: String = AudioDevice.pcmListFile) -> [AudioDevice] {
        playbackDevices(pcmList: (try? String(contentsOfFile: pcmListFile, encoding: .utf8)) ?? "")
    }

    /// The device `spec` names among `devices`: `hw:C,D` or `plughw:C,D` or `C,D`, or a name
    /// (`HDMI 0`, case-insensitive; a unique part of a name, such as `hdmi`, will do).
    public static func find(_ spec: String, in devices: [AudioDevice]) throws(AudioDeviceError) -> AudioDevice {
        let text = spec.trimmingCharacters(in: .whitespaces)
        var numbers = text
        for prefix in ["plughw:", "hw:"] where numbers.lowercased().hasPrefix(prefix) { numbers = String(numbers.dropFirst(prefix.count)) }
        let parts = numbers.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        if parts.count == 2, let card = parts[0], let device = parts[1] {
            if let found = devices.first(where: { $0.card == card && $0.device == device }) { return found }
            throw AudioDeviceError(spec: spec, available: devices, reason: "there is no playback device \(card),\(device)")
        }
        if let exact = devices.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) { return exact }
        let partial = devices.filter { $0.name.range(of: text, options: .caseInsensitive) != nil }
        if partial.count == 1 { return partial[0] }
        if partial.count > 1 {
            throw AudioDeviceError(spec: spec, available: partial, reason: "'\(text)' names \(partial.count) devices; give its hw:CARD,DEVICE")
        }
        throw AudioDeviceError(spec: spec, available: devices, reason: "no playback device is called '\(text)'")
    }
}

/// An `--audio-device` that does not name a playback device here, with the ones there are.
public struct AudioDeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var spec: String
    public var available: [AudioDevice]
    public var reason: String

    public var description: String { "audio device '\(spec)': \(reason); \(listing)" }

    /// The devices there are, for the person choosing.
    public var listing: String {
        available.isEmpty ? "this machine has no playback device (no sound card)"
            : "the playback devices are: " + available.map(\.description).joined(separator: "; ")
    }
}
