import Foundation
import Lineup

/// Who the head-end says it is to HDHomeRun clients (Plex, Jellyfin, Emby, Channels DVR,
/// `hdhomerun_config`): a device id, a tuner count, a name and a model.
///
/// From the lineup's settings: `hdhomerun-device-id` (8 hex digits whose last one is the
/// HDHomeRun check digit; without it one is derived from the lineup's path, so it is stable),
/// `hdhomerun-tuners` (how many streams a client may open, default 4) and `hdhomerun-name`.
public struct HDHomeRunDevice: Sendable, Hashable {
    public var deviceID: UInt32
    public var tunerCount: Int
    public var friendlyName: String
    public var modelNumber = "HDTC-2US"
    public var firmwareName = "hdhomeruntc_atsc"
    public var firmwareVersion = "20220303"
    public var manufacturer = "Flipbox"

    public init(deviceID: UInt32, tunerCount: Int = 4, friendlyName: String = "Flipbox") {
        self.deviceID = deviceID
        self.tunerCount = tunerCount
        self.friendlyName = friendlyName
    }

    /// The id as clients show it: `1234ABCD`.
    public var deviceIDText: String { String(format: "%08X", deviceID) }

    /// Reads the device from the lineup's settings. Throws a message naming the setting when one
    /// is malformed.
    public init(settings: [String: String], seed: String) throws(ServeConfigurationError) {
        if let text = settings["hdhomerun-device-id"] {
            guard text.count == 8, let id = UInt32(text, radix: 16) else {
                throw ServeConfigurationError(.badValue, "settings.hdhomerun-device-id '\(text)' is not 8 hex digits such as \(Self.derivedID(seed: seed).hex)")
            }
            guard Self.isValid(id) else {
                throw ServeConfigurationError(.badValue, "settings.hdhomerun-device-id '\(text)' has a wrong check digit: HDHomeRun clients ignore it; use \(Self.withCheckDigit(id).hex)")
            }
            deviceID = id
        } else {
            deviceID = Self.derivedID(seed: seed)
        }
        tunerCount = 4
        if let text = settings["hdhomerun-tuners"] {
            guard let n = Int(text), (1...64).contains(n) else {
                throw ServeConfigurationError(.badValue, "settings.hdhomerun-tuners '\(text)' is not a number from 1 to 64")
            }
            tunerCount = n
        }
        friendlyName = settings["hdhomerun-name"] ?? "Flipbox"
    }

    /// HDHomeRun's check on device ids (libhdhomerun `hdhomerun_discover_validate_device_id`):
    /// odd nibbles through a table, even ones as they are, all XORed, must give 0.
    public static func isValid(_ id: UInt32) -> Bool { checksum(id) == 0 }

    /// `id` with its last hex digit replaced by the check digit.
    public static func withCheckDigit(_ id: UInt32) -> UInt32 {
        let base = id & 0xFFFF_FFF0
        return base | UInt32(checksum(base))
    }

    /// A valid id from a stable hash of `seed` (FNV-1a).
    public static func derivedID(seed: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in seed.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        // 0x1xxxxxxx ids belong to real legacy models; keep clear of them.
        return withCheckDigit(0x2000_0000 | (hash & 0x0FFF_FFFF))
    }

    private static let table: [UInt8] = [0xA, 0x5, 0xF, 0x6, 0x7, 0xC, 0x1, 0xB, 0x9, 0x2, 0x8, 0xD, 0x4, 0x3, 0xE, 0x0]

    private static func checksum(_ id: UInt32) -> UInt8 {
        var sum: UInt8 = 0
        for nibble in 0..<8 {
            let value = UInt8((id >> (28 - 4 * UInt32(nibble))) & 0xF)
            sum ^= nibble % 2 == 0 ? table[Int(value)] : value
        }
        return sum
    }
}

extension UInt32 {
    fileprivate var hex: String { String(format: "%08X", self) }
}

/// A serving setting or option that cannot be used; the message names it and says what to give.
public typealias ServeConfigurationError = Failure<ServeConfigurationCode>

public enum ServeConfigurationCode: String, FailureCode {
    /// A setting or option has a value the head-end cannot use: a port, a limit, the token, the
    /// HDHomeRun device id or tuner count, the multicast block, TTL or interface.
    case badValue
    /// Serving would reach the network with neither the networks that may watch nor a token.
    case unguarded
    /// The multicast could not start: its socket could not be opened or set up.
    case multicastFailed

    public var kind: FailureKind {
        switch self {
        case .badValue, .unguarded: .badRequest
        case .multicastFailed: .unavailable
        }
    }
}
