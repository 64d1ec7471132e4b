import ArgumentParser
import ConnectionGuard
import Foundation
import Lineup
import Parental
import Serve

/// The options of the head-end's serving endpoints, shared by `flipbox serve` and `flipbox play --serve`.
struct ServeOptions: ParsableArguments {
    @Option(name: .customLong("serve-listen"), help: ArgumentHelp(
        "Address of the serving endpoints (streams, HLS, HDHomeRun, M3U, XMLTV) HOST:PORT. Loopback unless --serve-allow or a token is given.",
        valueName: "HOST:PORT"))
    var listen: String = "\(ServeConfiguration.defaultHost):\(ServeConfiguration.defaultPort)"

    @Option(name: .customLong("serve-allow"), help: ArgumentHelp(
        "A network whose clients may watch without the token, in CIDR form (192.168.1.0/24). Repeatable. Only on the command line: a lineup cannot set it.",
        valueName: "CIDR"))
    var allow: [String] = []

    @Option(name: .customLong("serve-trusted-proxy"), help: ArgumentHelp(
        "A proxy in front of the head-end (an nginx cache) whose X-Forwarded-For / Forwarded header names the client to judge, as ADDRESS or ADDRESS/PREFIX. Repeatable. A forwarded request from any other address is refused without the token. Only on the command line.",
        valueName: "ADDR[/PREFIX]"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("serve-max-clients"), help: "Most stream clients at once (more get 503). Default: the lineup's serve-max-clients, else 256.")
    var maxClients: Int?

    @Option(name: .customLong("serve-max-connections"), help: ArgumentHelp(
        "Most HTTP connections the serving endpoints hold at once (more get 503). Default: the client limit plus 1024.", valueName: "N"))
    var maxConnections: Int?

    @Option(name: .customLong("serve-max-per-address"), help: ArgumentHelp(
        "Most HTTP connections from one address (loopback and --serve-trusted-proxy excepted; more get 503). Default: 64.", valueName: "N"))
    var maxPerAddress: Int?

    @Option(name: .customLong("serve-header-timeout"), help: ArgumentHelp(
        "Seconds a request's head may take to arrive before it is answered 408 (slow clients). Default: 10.", valueName: "SECONDS"))
    var headerTimeout: Int?

    @Option(name: .customLong("serve-base-url"), help: ArgumentHelp(
        "The URL clients reach the serving endpoints at, when it is not the listen address (a proxy, a host name).", valueName: "URL"))
    var baseURL: String?

    @Option(name: .customLong("multicast"), help: ArgumentHelp(
        "Also send every channel to a multicast group: the first channel to the block's first address and so on, e.g. 239.1.1.0/24:5000. A channel with `multicast:` in the lineup goes to its own group (sent even without this option).",
        valueName: "GROUP/PREFIX:PORT"))
    var multicast: String?

    @Option(name: .customLong("multicast-ttl"), help: "Multicast TTL (1: the local network only).")
    var multicastTTL = 1

    @Option(name: .customLong("multicast-interface"), help: ArgumentHelp("The local IPv4 address whose interface sends the multicast.", valueName: "ADDRESS"))
    var multicastInterface: String?

    @Flag(name: .customLong("multicast-rtp"), help: "Wrap the multicast in RTP (MP2T, payload type 33) instead of plain UDP.")
    var multicastRTP = false

    @Flag(name: .customLong("sap"), help: "Announce the multicast channels by SAP/SDP to 224.2.127.254:9875, so players such as VLC list them.")
    var sap = false

    @Flag(name: .customLong("no-hdhomerun"), help: "Do not answer HDHomeRun discovery (UDP 65001) and control (TCP 65001).")
    var noHDHomeRun = false

    /// The configuration for `lineup`, with the lineup's settings under the options. `locks`:
    /// the parental locks (nil: the lineup's `parental` and `locked` settings).
    func configuration(lineup: Lineup, path: String, token: String?, locks: ServeLocks? = nil) throws -> ServeConfiguration {
        guard let (host, port) = ServeConfiguration.parseAddress(listen) else {
            throw ValidationError("--serve-listen must be HOST:PORT, e.g. 127.0.0.1:5004 or 0.0.0.0:5004, not '\(listen)'")
        }
        var ranges: [NetworkRange] = []
        for text in allow {
            guard let range = NetworkRange(text) else {
                throw ValidationError("--serve-allow '\(text)' is not a network such as 192.168.1.0/24 or an address such as 192.168.1.20")
            }
            ranges.append(range)
        }
        var proxies: [NetworkRange] = []
        for text in trustedProxies {
            guard let range = NetworkRange(text) else {
                throw ValidationError("--serve-trusted-proxy '\(text)' is not an address such as 127.0.0.1 or a network such as 10.0.0.0/24")
            }
            proxies.append(range)
        }
        var parental = locks
        if parental == nil {
            do {
                parental = ServeLocks(rules: try ParentalRules(settings: lineup.settings.parental), lockedChannels: Set(lineup.settings.locked ?? []))
            } catch {
                throw ValidationError("\(path): settings.\(error)")
            }
        }
        var streams = StreamServer.Settings()
        if let n = maxClients ?? lineup.settings.serveMaxClients { streams.maxClients = n }
        let device: HDHomeRunDevice
        do {
            device = try HDHomeRunDevice(settings: lineup.settings.hdhomerun, seed: (path as NSString).standardizingPath)
        } catch {
            throw ValidationError("\(path): \(error)")
        }
        if let baseURL, URL(string: baseURL)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--serve-base-url must be an http(s) URL such as http://tv.lan:5004, not '\(baseURL)'")
        }
        var plan: MulticastPlan?
        do {
            if let multicast {
                plan = try MulticastPlan(multicast, ttl: multicastTTL, interface: multicastInterface, rtp: multicastRTP)
            } else if lineup.channels.contains(where: { $0.multicast != nil }) {
                // Channels with a `multicast:` group of their own are sent without a block.
                plan = try MulticastPlan(ttl: multicastTTL, interface: multicastInterface, rtp: multicastRTP)
            }
        } catch {
            throw ValidationError("\(error)")
        }
        if sap {
            guard plan != nil else { throw ValidationError("--sap announces multicast channels: give --multicast, or a channel a multicast group in the lineup") }
            plan?.sap = true
        }
        var configuration = ServeConfiguration(host: host, port: port, allowed: ranges, token: token, streams: streams, device: device,
                                               hdhomerunProtocol: !noHDHomeRun, baseURL: baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
                                               multicast: plan)
        configuration.trustedProxies = proxies
        configuration.connections = try ConnectionLimitOptions(
            maxConnections: (maxConnections, "--serve-max-connections"), maxPerAddress: (maxPerAddress, "--serve-max-per-address"),
            headerTimeout: (headerTimeout, "--serve-header-timeout")).limits(default: configuration.connectionLimits)
        configuration.locks = parental ?? ServeLocks()
        return configuration
    }
}
