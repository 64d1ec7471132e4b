import ArgumentParser
import ConnectionGuard

/// Connection caps given on the command line (each with the option's name, for its message),
/// checked and laid over a server's defaults.
struct ConnectionLimitOptions {
    var maxConnections: (value: Int?, option: String)
    var maxPerAddress: (value: Int?, option: String) = (nil, "")
    var headerTimeout: (value: Int?, option: String) = (nil, "")

    /// The most connections any server here is given.
    static let connectionsCeiling = 1_000_000

    /// `base` with the options given; a value out of range is a usage error naming its option.
    func limits(default base: ConnectionLimits) throws -> ConnectionLimits {
        var limits = base
        if let n = maxConnections.value {
            guard (1...Self.connectionsCeiling).contains(n) else {
                throw ValidationError("\(maxConnections.option) must be from 1 to \(Self.connectionsCeiling), not \(n)")
            }
            limits.maxConnections = n
            limits.maxPerAddress = min(limits.maxPerAddress, n)
        }
        if let n = maxPerAddress.value {
            guard (1...limits.maxConnections).contains(n) else {
                throw ValidationError("\(maxPerAddress.option) must be from 1 to the connection limit (\(limits.maxConnections)), not \(n)")
            }
            limits.maxPerAddress = n
        }
        if let seconds = headerTimeout.value {
            guard (1...300).contains(seconds) else {
                throw ValidationError("\(headerTimeout.option) must be from 1 to 300 seconds, not \(seconds)")
            }
            limits.headerTimeout = .seconds(Int64(seconds))
        }
        return limits
    }
}
