import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a lineup's logos may come from. A lineup is untrusted (often a provider's file, soon a
/// URL), and the head-end serves each logo to its clients, so a logo must not become a way to read
/// the box's own files or reach the box's own services:
/// - files under `/proc`, `/sys` and `/dev` (after symbolic links are resolved) are refused;
/// - URLs whose host resolves to a loopback, link-local (`169.254.0.0/16`, `fe80::/10`) or
///   unspecified (`0.0.0.0/8`, `::`) address, or to one of this machine's own addresses on one of
///   the box's own listening ports, are refused; every address the name resolves to is checked,
///   and a plain `http://` request is then sent to the address checked (no second lookup for a
///   DNS-rebinding name to change);
/// - hosts the box's owner names (`--allow-logo-host`) are exempt from the address rules: the box's
///   own configuration, never the lineup, decides that.
///
/// Pure value; ``route(_:)`` resolves names (blocking `getaddrinfo` on a thread of its own).
public struct LogoSourcePolicy: Sendable, Hashable {
    /// Host names or addresses (as written in logo URLs, lowercased) exempt from the address rules.
    public var allowedHosts: Set<String>
    /// The box's own listening ports (control API, head-end, HDHomeRun).
    public var ownPorts: Set<Int>

    /// - Parameters:
    ///   - allowedHosts: `--allow-logo-host` names or addresses (`[::1]` and `::1` both work).
    ///   - ownPorts: the ports the box listens on, refused on this machine's own addresses.
    public init(allowedHosts: [String] = [], ownPorts: [Int] = []) {
        self.allowedHosts = Set(allowedHosts.map(Self.hostKey))
        self.ownPorts = Set(ownPorts)
    }

    /// Whether the owner allowed `host` (`--allow-logo-host`).
    public func allows(host: String) -> Bool {
        allowedHosts.contains(Self.hostKey(host))
    }

    /// The option that allows a host, for messages.
    public static let option = "--allow-logo-host"

    /// `host` as compared: lowercased, without brackets or a final dot.
    public static func hostKey(_ host: String) -> String {
        var key = host.trimmingCharacters(in: .whitespaces).lowercased()
        if key.hasPrefix("["), key.hasSuffix("]") { key = String(key.dropFirst().dropLast()) }
        if key.hasSuffix(".") { key.removeLast() }
        return key
    }

    // MARK: Files

    /// Directories whose files are the kernel's and the devices', never logos.
    static let systemDirectories = ["/proc", "/sys", "/dev"]

    /// The file `path` stands for (symbolic links resolved), or why it may not be a logo.
    public static func resolveFile(_ path: String) -> Result<String, LogoRefusal> {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for directory in systemDirectories where resolved == directory || resolved.hasPrefix(directory + "/")
            || path == directory || path.hasPrefix(directory + "/") {
            return .failure(LogoRefusal("it is under \(directory) (\(resolved)), where the kernel's and the devices' files are, never a logo"))
        }
        return .success(resolved)
    }

    // MARK: Addresses

    /// Why a logo at `host`:`port` whose name resolved to `addresses` may not be fetched, nil
    /// when it may. `ownAddresses`: this machine's own addresses.
    public func refusal(host: String, port: Int, addresses: [String], ownAddresses: [String]) -> LogoRefusal? {
        if allows(host: host) { return nil }
        guard !addresses.isEmpty else { return LogoRefusal("the name \(host) does not resolve to an address") }
        let own = Set(ownAddresses.compactMap { IPAddressText.bytes($0).map(IPAddressText.unmapped) })
        for address in addresses {
            guard let bytes = IPAddressText.bytes(address).map(IPAddressText.unmapped) else {
                return LogoRefusal("\(host) resolves to '\(address)', which is no IP address")
            }
            let what: String?
            if let kind = IPAddressText.special(bytes) {
                what = kind
            } else if own.contains(bytes), ownPorts.contains(port) {
                what = "this machine's own address, on port \(port), where the box itself listens"
            } else {
                what = nil
            }
            if let what {
                let named = IPAddressText.bytes(host) == nil ? "\(host) resolves to \(address), " : "\(address) is "
                return LogoRefusal("\(named)\(what); logos are fetched only from other machines, unless the box is started with \(Self.option) \(host)")
            }
        }
        return nil
    }

    /// `request` ready to send for a logo: its host resolved and checked (``refusal(host:port:addresses:ownAddresses:)``),
    /// and a plain `http://` request sent to the address checked, its name kept in `Host`.
    /// Throws ``LogoRefusal``.
    public func route(_ request: URLRequest) async throws -> URLRequest {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw LogoRefusal("only http:// and https:// logo URLs are fetched")
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let addresses = await Self.resolve(host)
        if let refusal = refusal(host: host, port: port, addresses: addresses, ownAddresses: await Self.ownAddresses()) {
            throw refusal
        }
        guard scheme == "http", IPAddressText.bytes(host) == nil, let first = addresses.first,
              var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return request }
        // The address just checked, so a name that resolves anew cannot lead elsewhere.
        let literal = first.split(separator: "%").first.map(String.init) ?? first
        parts.host = literal.contains(":") ? "[\(literal)]" : literal
        guard let pinned = parts.url else { return request }
        var routed = request
        routed.url = pinned
        routed.setValue(url.port.map { "\(host):\($0)" } ?? host, forHTTPHeaderField: "Host")
        return routed
    }

    /// Every address `host` resolves to (`getaddrinfo(3)` through Foundation's `Host`), on a
    /// dispatch thread: the lookup blocks.
    static func resolve(_ host: String) async -> [String] {
        let name = hostKey(host)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Host(name: name).addresses) }
        }
    }

    /// This machine's own addresses (its interfaces'), on a dispatch thread.
    static func ownAddresses() async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Host.current().addresses) }
        }
    }
}

/// Why a logo is not used, worded for the lineup's owner.
public struct LogoRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
