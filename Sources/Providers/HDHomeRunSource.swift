import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lineup

/// A lineup from an HDHomeRun tuner on the LAN: `hdhomerun://auto` (the first one discovery
/// finds), `hdhomerun://1234ABCD` (a device id) or `hdhomerun://192.168.1.20` (an address, for a
/// LAN that does not pass broadcasts). Its `lineup.json` gives the channels, its `TunerCount`
/// the limit of the pool its streams share.
public struct HDHomeRunSource: Sendable, Hashable {
    public enum Device: Sendable, Hashable {
        case any
        case id(UInt32)
        /// A host (an IP address, or a name asked over HTTP only) and its discovery port.
        case address(String, port: Int)
    }

    public var device: Device

    /// Most bytes of `discover.json` and of `lineup.json` taken.
    static let discoverLimit = 64 * 1024
    static let lineupLimit = 8 * 1024 * 1024
    /// Most channels taken from one device (a real one has a few hundred at most).
    static let maxChannels = 5000
    /// A tuner count past this is no tuner's.
    static let maxTuners = 64

    public init(device: Device) { self.device = device }

    /// Reads `hdhomerun://…`; nil when `text` is no such URL, a message when it is a wrong one.
    public init?(_ text: String) throws(SourceFailure) {
        guard text.lowercased().hasPrefix("hdhomerun://") else { return nil }
        var rest = String(text.dropFirst("hdhomerun://".count))
        if rest.hasSuffix("/") { rest.removeLast() }
        if rest.isEmpty || rest.lowercased() == "auto" {
            device = .any
        } else if rest.count == 8, rest.allSatisfy(\.isHexDigit), let id = UInt32(rest, radix: 16) {
            device = .id(id)
        } else {
            var host = rest
            var port = HDHomeRunDiscovery.port
            if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]"), rest.filter({ $0 == ":" }).count == 1 {
                guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else {
                    throw SourceFailure.said(.setting, "\(text): the port must be a number from 1 to 65535")
                }
                host = String(rest[..<colon])
                port = p
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, host.count <= 253, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:".contains($0) }), host.allSatisfy(\.isASCII) else {
                throw SourceFailure.said(.setting, "\(text): write hdhomerun://auto, hdhomerun://DEVICEID (8 hex digits) or hdhomerun://ADDRESS")
            }
            device = .address(host, port: port)
        }
    }

    /// A name for the copy kept in the state directory.
    public var keptName: String {
        switch device {
        case .any: "hdhomerun-auto"
        case .id(let id): "hdhomerun-\(HDHomeRunFound.text(id))"
        case .address(let host, let port): "hdhomerun-\(host.replacingOccurrences(of: ":", with: "_"))" + (port == HDHomeRunDiscovery.port ? "" : "-\(port)")
        }
    }

    public var description: String {
        switch device {
        case .any: "hdhomerun://auto"
        case .id(let id): "hdhomerun://\(HDHomeRunFound.text(id))"
        case .address(let host, let port): "hdhomerun://\(host)" + (port == HDHomeRunDiscovery.port ? "" : ":\(port)")
        }
    }

    /// The tuner this source names, found on the LAN (and the others found, for a note).
    public func find(window: Duration = .milliseconds(800)) async throws -> (device: HDHomeRunFound, others: [HDHomeRunFound]) {
        switch device {
        case .any, .id:
            let id: UInt32 = if case .id(let id) = device { id } else { HDHomeRunPacket.wildcard }
            let found = try await HDHomeRunDiscovery.discover(.broadcast, deviceID: id, window: window)
            guard let first = found.first else {
                if id != HDHomeRunPacket.wildcard {
                    throw SourceFailure.said(.notFound, "\(description): no HDHomeRun with that id answered discovery on the LAN (is it on, and on this box's network? `flipbox devices` lists the ones found)")
                }
                throw SourceFailure.said(.notFound, "hdhomerun://auto: no HDHomeRun answered discovery on the LAN (UDP port 65001); if it is on another subnet, give its address: hdhomerun://192.168.1.20")
            }
            return (first, Array(found.dropFirst()))
        case .address(let host, let port):
            if (try? HDHomeRunDiscovery.addresses(.address(host, port: port))) != nil,
               let found = try await HDHomeRunDiscovery.discover(.address(host, port: port), window: window).first {
                return (found, [])
            }
            // No discovery answer (a name, or UDP filtered): its HTTP API may still answer.
            return (HDHomeRunFound(deviceID: 0, address: host, baseURL: "http://\(host.contains(":") ? "[\(host)]" : host)"), [])
        }
    }

    /// The device's channels as a lineup, and what was left out.
    public func fetch(window: Duration = .milliseconds(800), deadline: TimeInterval = 10) async throws -> HDHomeRunLineup {
        let (found, others) = try await find(window: window)
        guard let base = found.baseURL, let discoverURL = URL(string: "\(base)/discover.json") else {
            throw SourceFailure.said(.badAnswer, "\(description): HDHomeRun \(found.deviceIDText) at \(found.address) gave no address of its HTTP API")
        }
        let info = try await Self.json(discoverURL, limit: Self.discoverLimit, deadline: deadline, what: "HDHomeRun at \(found.address)")
        guard let object = info as? [String: Any] else {
            throw SourceFailure.said(.badAnswer, "\(discoverURL): not the JSON object an HDHomeRun's discover.json is")
        }
        var device = found
        if let text = object["DeviceID"] as? String, text.count == 8, let id = UInt32(text, radix: 16) { device.deviceID = id }
        let tuners = (object["TunerCount"] as? Int).flatMap { (1...Self.maxTuners).contains($0) ? $0 : nil } ?? found.tunerCount
        let lineupText = (object["LineupURL"] as? String).flatMap(HDHomeRunFound.httpURL) ?? found.lineupURL ?? "\(base)/lineup.json"
        guard let lineupURL = URL(string: lineupText) else {
            throw SourceFailure.said(.badAnswer, "\(discoverURL): its LineupURL '\(lineupText)' is no URL")
        }
        let entries = try await Self.json(lineupURL, limit: Self.lineupLimit, deadline: deadline, what: "HDHomeRun \(device.deviceIDText)")
        guard let list = entries as? [Any] else {
            throw SourceFailure.said(.badAnswer, "\(lineupURL): not the JSON list an HDHomeRun's lineup.json is")
        }
        var lineup = HDHomeRunLineup(
            device: device, others: others, tunerCount: tuners,
            name: (object["FriendlyName"] as? String).map { String($0.prefix(64)) } ?? "HDHomeRun",
            model: (object["ModelNumber"] as? String).map { String($0.prefix(32)) }, baseURL: base, fetched: Date())
        lineup.read(list, from: lineupURL.absoluteString)
        return lineup
    }

    /// The JSON at `url` (HTTP 200, at most `limit` bytes, within `deadline` seconds).
    static func json(_ url: URL, limit: Int, deadline: TimeInterval, what: String) async throws -> Any {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await HTTPTransfer.data(for: request, deadline: deadline, limit: limit)
        } catch let error as URLError where error.code == .timedOut {
            throw SourceFailure.said(.unreachable, "\(url): \(what) did not answer within \(Int(deadline)) s")
        } catch {
            throw SourceFailure.said(.unreachable, "\(url): \(what) cannot be reached: \(PlaylistDownload.describe(error))")
        }
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            throw SourceFailure.said(.badAnswer, "\(url): \(what) answered HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        do { return try JSONSerialization.jsonObject(with: data) } catch {
            throw SourceFailure.said(.badAnswer, "\(url): \(what) answered something that is not JSON (\(data.count) bytes)")
        }
    }
}

/// What an HDHomeRun says of itself and its channels, as a lineup.
public struct HDHomeRunLineup: Sendable {
    public struct Entry: Sendable, Hashable {
        public var number: ChannelNumber
        public var name: String
        public var url: String
        public var favourite: Bool
    }

    public var device: HDHomeRunFound
    /// Other tuners discovery found (`hdhomerun://auto` takes the first by id).
    public var others: [HDHomeRunFound]
    public var tunerCount: Int?
    public var name: String
    public var model: String?
    public var baseURL: String
    public var fetched: Date
    public var entries: [Entry] = []
    /// Entries left out, each with its reason.
    public var skipped: [String] = []

    public init(device: HDHomeRunFound, others: [HDHomeRunFound] = [], tunerCount: Int?, name: String, model: String? = nil,
                baseURL: String, fetched: Date = Date()) {
        self.device = device
        self.others = others
        self.tunerCount = tunerCount
        self.name = name
        self.model = model
        self.baseURL = baseURL
        self.fetched = fetched
    }

    /// Takes lineup.json's entries: `GuideNumber`, `GuideName`, `URL`, `Favorite`; a copy-protected
    /// (`DRM`), numberless or duplicate entry is left out and said.
    public mutating func read(_ list: [Any], from source: String) {
        var numbers = Set<ChannelNumber>()
        for (index, item) in list.enumerated() {
            guard entries.count < HDHomeRunSource.maxChannels else {
                skipped.append("\(source): only the first \(HDHomeRunSource.maxChannels) channels are taken")
                break
            }
            guard let entry = item as? [String: Any] else { skipped.append("\(source) entry \(index + 1): not a JSON object"); continue }
            let guide = Self.text(entry["GuideNumber"]) ?? ""
            let name = Self.text(entry["GuideName"]).map(Self.clean) ?? ""
            let label = "channel \(guide.isEmpty ? "#\(index + 1)" : String(guide.prefix(16)))\(name.isEmpty ? "" : " \(name)")"
            guard let number = ChannelNumber(guide), number.major <= 99_999, (number.minor ?? 0) <= 99_999 else {
                skipped.append("\(label): '\(guide.prefix(16))' is not a channel number"); continue
            }
            guard (entry["DRM"] as? Int ?? 0) == 0 else { skipped.append("\(label): copy-protected (DRM), which no player but the HDHomeRun app may play"); continue }
            guard let url = (entry["URL"] as? String).flatMap(HDHomeRunFound.httpURL) else {
                skipped.append("\(label): no http URL to play"); continue
            }
            guard numbers.insert(number).inserted else { skipped.append("\(label): the number \(number) is taken by an earlier entry"); continue }
            entries.append(Entry(number: number, name: name.isEmpty ? "Channel \(number)" : String(name.prefix(128)), url: url,
                                 favourite: (entry["Favorite"] as? Int ?? 0) != 0))
        }
    }

    /// A string or a number as text.
    static func text(_ value: Any?) -> String? { ProviderValue.text(value) }

    /// Control characters out (a name is one line).
    static func clean(_ text: String) -> String { ProviderValue.clean(text) }

    /// The pool of the device's streams: the URLs' common start (a real device serves them on
    /// port 5004 under `/auto/`), limited to its tuner count.
    public var pool: StreamPoolDeclaration {
        let urls = entries.map(\.url)
        var prefix = urls.first ?? "\(baseURL)/"
        for url in urls.dropFirst() { prefix = String(prefix.commonPrefix(with: url)) }
        if let slash = prefix.lastIndex(of: "/"), prefix.distance(from: prefix.startIndex, to: slash) >= "http://x".count {
            prefix = String(prefix[...slash])
        }
        return .told(name: "HDHomeRun \(device.deviceIDText)", match: prefix, streams: tunerCount)
    }

    /// The lineup as YAML (each value a JSON string, which YAML reads as written): what the box
    /// plays and keeps in its state directory.
    public var yaml: String {
        let q = ProviderYAML.quoted
        let stamp = ISO8601DateFormatter().string(from: fetched)
        let pool = self.pool
        var lines = [
            "# \(HDHomeRunLineup.clean(name)) (HDHomeRun \(device.deviceIDText)\(model.map { ", \(HDHomeRunLineup.clean($0))" } ?? "")) at \(baseURL),",
            "# \(tunerCount.map { "\($0) tuners" } ?? "tuner count unknown"), \(entries.count) channels, read \(stamp).",
        ] + ProviderYAML.head(pool: pool, channels: entries.count)
        for entry in entries {
            lines.append("  - number: \(q(entry.number.description))")
            lines.append("    name: \(q(entry.name))")
            lines.append("    source: \(q(entry.url))")
            if entry.favourite { lines.append("    favourite: true") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
