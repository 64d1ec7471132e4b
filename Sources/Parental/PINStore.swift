import Crypto
import CryptoExtras
import Failures
import Foundation

/// The parental PIN on disk (`pin.json` in the state directory, mode 0600): never the PIN
/// itself, only a random 16-byte salt and the scrypt hash of the PIN with it (swift-crypto's
/// `KDF.Scrypt`, N = 2^14, r = 8, p = 1: 16 MB and tens of milliseconds per try, so the
/// 10^4-10^8 possible PINs cannot be tried quickly from a copy of the file).
///
/// Thread-safe: no state besides the file. `set` and `matches` block the calling thread for one
/// key derivation; call them off the cooperative pool (`PINGate` does).
public struct PINStore: Sendable {
    public static let fileName = "pin.json"
    public let path: String

    /// The stored record; the parameters are kept so they can change without breaking old files.
    struct Record: Codable, Sendable {
        var kdf: String
        var n: Int
        var r: Int
        var p: Int
        var salt: String
        var hash: String
    }

    static let rounds = 1 << 14, blockSize = 8, parallelism = 1, saltBytes = 16, hashBytes = 32

    public init(directory: String) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
    }

    /// Checks that `pin` is 4 to 8 digits; throws `.malformed` saying so otherwise.
    public static func validate(_ pin: String) throws(PINError) {
        guard (4...8).contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw PINError(.malformed, "a PIN is 4 to 8 digits (0-9)")
        }
    }

    /// Whether a PIN is set.
    public var isSet: Bool { FileManager.default.fileExists(atPath: path) }

    /// Stores `pin` (replacing the old one), salted and hashed, atomically, mode 0600.
    public func set(_ pin: String) throws(PINError) {
        try Self.validate(pin)
        var salt = [UInt8](repeating: 0, count: Self.saltBytes)
        var generator = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: .min ... .max, using: &generator) }
        let hash = try Self.derive(pin, salt: salt, n: Self.rounds, r: Self.blockSize, p: Self.parallelism)
        let record = Record(kdf: "scrypt", n: Self.rounds, r: Self.blockSize, p: Self.parallelism,
                            salt: Data(salt).base64EncodedString(), hash: Data(hash).base64EncodedString())
        let data: Data
        do { data = try JSONEncoder().encode(record) } catch {
            throw PINError(.storage, "cannot encode the PIN record: \(error)")
        }
        try PrivateFile.write(data, to: path)
    }

    /// Whether `pin` is the stored PIN. Throws `.notSet` without a PIN, `.storage` when the file
    /// cannot be read or is not a PIN record. Compares in constant time.
    public func matches(_ pin: String) throws(PINError) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else {
            if isSet { throw PINError(.storage, "cannot read \(path)") }
            throw PINError(.notSet, "no PIN is set; set one with `flipbox pin set`")
        }
        guard let record = try? JSONDecoder().decode(Record.self, from: data), record.kdf == "scrypt",
              let salt = Data(base64Encoded: record.salt), let stored = Data(base64Encoded: record.hash),
              record.n > 1, record.n & (record.n - 1) == 0, (1...64).contains(record.r), (1...16).contains(record.p) else {
            throw PINError(.storage, "\(path) is not a PIN record; set the PIN again with `flipbox pin set`")
        }
        guard (try? Self.validate(pin)) != nil else { return false }
        let derived = try Self.key(pin, salt: [UInt8](salt), n: record.n, r: record.r, p: record.p)
        // SymmetricKey's == compares in constant time.
        return derived == SymmetricKey(data: stored)
    }

    static func derive(_ pin: String, salt: [UInt8], n: Int, r: Int, p: Int) throws(PINError) -> [UInt8] {
        try key(pin, salt: salt, n: n, r: r, p: p).withUnsafeBytes { Array($0) }
    }

    static func key(_ pin: String, salt: [UInt8], n: Int, r: Int, p: Int) throws(PINError) -> SymmetricKey {
        do {
            return try KDF.Scrypt.deriveKey(from: Array(pin.utf8), salt: salt, outputByteCount: hashBytes,
                                            rounds: n, blockSize: r, parallelism: p)
        } catch {
            throw PINError(.storage, "the key derivation failed: \(error)")
        }
    }
}

/// A PIN problem, with a code for programs and a message for people.
public typealias PINError = Failure<PINCode>

public enum PINCode: String, FailureCode {
    /// Not 4-8 digits.
    case malformed
    /// No PIN has been set.
    case notSet
    /// The file cannot be read or written.
    case storage

    public var kind: FailureKind {
        switch self {
        case .malformed: .badRequest
        case .notSet: .conflict
        case .storage: .internalFailure
        }
    }
}
