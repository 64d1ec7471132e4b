import Foundation

/// A pool of streams: the sources that share one limit on how many streams may be open at
/// once (the tuners of an HDHomeRun, the connections of an IPTV account). Named by the lineup
/// (`pools:`) or, by default, by the host and port of its source URLs (`192.168.1.20:5004`).
public struct StreamPoolID: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }
    public static func < (a: Self, b: Self) -> Bool { a.name < b.name }
}

/// How many streams a pool may have open, and who said so.
public struct PoolLimit: Sendable, Hashable, CustomStringConvertible {
    /// Where a limit came from, strongest first: the command line over the lineup over what the
    /// source says over what the box learned.
    public enum Origin: String, Sendable, Hashable, Codable, CaseIterable {
        case commandLine = "command line"
        case lineup
        case source = "told by the source"
        case learned
    }

    public var streams: Int
    public var origin: Origin

    public init(streams: Int, origin: Origin) {
        self.streams = streams
        self.origin = origin
    }

    public var description: String { "\(streams) (\(origin.rawValue))" }

    /// The most streams any limit may say: beyond it a number is a typo, not a tuner count.
    public static let maxStreams = 1024
}

/// Which pool each source URL belongs to, and the limits the box was given (command line and
/// lineup). Pure: URLs in, pool ids out.
///
/// A URL goes to the declared pool whose `match` is the longest prefix of it; otherwise to the
/// default pool of its host and port. Sources the box only listens for (UDP, RTP: multicast or
/// unicast pushed to it) and local ones (`file://`, `test://`) belong to no pool: unlimited.
public struct StreamPoolMap: Sendable, Hashable {
    /// A pool the lineup names: every source URL starting with `match` is in it.
    public struct Declared: Sendable, Hashable {
        public var name: String
        public var match: String
        public var streams: Int?
        /// Most bits a second its warm channels may take together (its link's share); nil: no limit.
        public var bandwidth: Int?
        /// Who gave `streams`: the lineup's author, or the source itself (an HDHomeRun's
        /// `TunerCount`, an IPTV account's `max_connections`).
        public var origin: PoolLimit.Origin
        public init(name: String, match: String, streams: Int?, bandwidth: Int? = nil, origin: PoolLimit.Origin = .lineup) {
            self.name = name
            self.match = match
            self.streams = streams
            self.bandwidth = bandwidth
            self.origin = origin
        }
    }

    /// A limit given for a host (`--max-streams HOST[:PORT]=N`): every default pool on `host`
    /// (on `port` only, when given).
    public struct HostLimit: Sendable, Hashable {
        public var host: String
        public var port: Int?
        public var streams: Int
        public init(host: String, port: Int?, streams: Int) {
            self.host = host.lowercased()
            self.port = port
            self.streams = streams
        }

        /// Parses `HOST[:PORT]=N` (`192.168.1.20=4`, `provider.example:8080=2`, `[::1]:80=1`);
        /// nil when malformed.
        public init?(_ text: String) {
            guard let eq = text.lastIndex(of: "=") else { return nil }
            let target = text[..<eq].trimmingCharacters(in: .whitespaces)
            guard let n = Int(text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)),
                  (1...PoolLimit.maxStreams).contains(n), !target.isEmpty else { return nil }
            var host = target, port: Int?
            if target.hasPrefix("[") {
                guard let close = target.firstIndex(of: "]") else { return nil }
                host = String(target[target.index(after: target.startIndex)..<close])
                let rest = target[target.index(after: close)...]
                if rest.hasPrefix(":") {
                    guard let p = Int(rest.dropFirst()), (1...65535).contains(p) else { return nil }
                    port = p
                } else if !rest.isEmpty { return nil }
            } else if let colon = target.lastIndex(of: ":"), target.firstIndex(of: ":") == colon {
                host = String(target[..<colon])
                guard let p = Int(target[target.index(after: colon)...]), (1...65535).contains(p) else { return nil }
                port = p
            }
            guard !host.isEmpty, !host.contains("/") else { return nil }
            self.init(host: host, port: port, streams: n)
        }
    }

    public var declared: [Declared]
    public var hostLimits: [HostLimit]
    /// The lineup's `max-streams`: the limit of every default pool of its sources.
    public var lineupLimit: Int?

    public init(declared: [Declared] = [], hostLimits: [HostLimit] = [], lineupLimit: Int? = nil) {
        self.declared = declared
        self.hostLimits = hostLimits
        self.lineupLimit = lineupLimit
    }

    /// The pool of `url`; nil when its streams are not rationed (listened for, or local).
    public func pool(for url: String) -> StreamPoolID? {
        // A pool names its server's streams by their address, whatever credentials a URL carries.
        let address = Self.withoutUserInfo(url)
        if let named = declared.filter({ address.hasPrefix($0.match) }).max(by: { $0.match.count < $1.match.count }) {
            return StreamPoolID(named.name)
        }
        guard let (host, port) = Self.endpoint(of: url) else { return nil }
        return StreamPoolID(Self.defaultName(host: host, port: port))
    }

    /// The most bits a second the warm channels of each declared pool with a `bandwidth` may take.
    public var bandwidths: [StreamPoolID: Int] {
        var all: [StreamPoolID: Int] = [:]
        for pool in declared { if let bandwidth = pool.bandwidth { all[StreamPoolID(pool.name)] = bandwidth } }
        return all
    }

    /// The limit the box was given for `pool` (nil: none given; it may still be learned).
    public func givenLimit(of pool: StreamPoolID) -> PoolLimit? {
        if let host = hostLimit(of: pool) { return PoolLimit(streams: host, origin: .commandLine) }
        if let named = declared.first(where: { $0.name == pool.name }) {
            return named.streams.map { PoolLimit(streams: $0, origin: named.origin) }
        }
        return lineupLimit.map { PoolLimit(streams: $0, origin: .lineup) }
    }

    /// The command line's limit of a default pool (`host:port`).
    private func hostLimit(of pool: StreamPoolID) -> Int? {
        guard !declared.contains(where: { $0.name == pool.name }) else { return nil }
        guard let colon = pool.name.lastIndex(of: ":"), let port = Int(pool.name[pool.name.index(after: colon)...]) else { return nil }
        var host = String(pool.name[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let matching = hostLimits.filter { $0.host == host && ($0.port == nil || $0.port == port) }
        // A limit for the port is more precise than one for the whole host.
        return (matching.first { $0.port != nil } ?? matching.first)?.streams
    }

    /// `url` without the `USER[:PASSWORD]@` of its authority (`http://u:p@host/a` is `http://host/a`;
    /// VLC's `udp://@239.0.0.1:1234` is kept as written).
    public static func withoutUserInfo(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authority = url[scheme.upperBound...].prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@"), at != authority.startIndex else { return url }
        return String(url[..<scheme.upperBound] + url[url.index(after: at)...])
    }

    /// `host:port` of a URL whose streams a server hands out (HTTP, HTTPS, RTSP, SRT callers),
    /// the port defaulted by scheme; nil for the rest.
    public static func endpoint(of url: String) -> (host: String, port: Int)? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              var host = components.host?.lowercased(), !host.isEmpty else { return nil }
        // Foundation keeps an IPv6 literal's brackets on some platforms.
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        case "rtsp": defaultPort = 554
        case "rtsps": defaultPort = 322
        case "srt":
            // A listener waits for its caller: nothing is rationed.
            if components.queryItems?.contains(where: { $0.name == "mode" && $0.value == "listener" }) == true { return nil }
            guard let port = components.port else { return nil }
            return (host, port)
        default: return nil
        }
        return (host, components.port ?? defaultPort)
    }

    /// `192.168.1.20:5004`, `[::1]:80`.
    public static func defaultName(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
