import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lineup
import Logging

/// An Xtream Codes account as a lineup: `xtream://USER@HOST[:PORT]` (http) or
/// `xtreams://USER@HOST[:PORT]` (https), its password from `FLIPBOX_XTREAM_PASSWORD` or from the
/// file `FLIPBOX_XTREAM_PASSWORD_FILE` names (never on the command line). The panel's
/// `player_api.php` gives the account (`user_info`) and its live channels and groups; its
/// `xmltv.php` is the guide; `max_connections` the limit of the pool its streams share.
public struct XtreamSource: Sendable {
    /// `http://host:port`, without a trailing slash.
    public var server: String
    public var username: String
    var password: String

    public static let passwordVariable = "FLIPBOX_XTREAM_PASSWORD"
    public static let passwordFileVariable = "FLIPBOX_XTREAM_PASSWORD_FILE"

    /// Most bytes taken of each answer.
    static let accountLimit = 1 << 20
    static let categoriesLimit = 4 << 20
    static let streamsLimit = 32 << 20
    /// Most channels taken from one account.
    static let maxChannels = 20_000
    static let maxCategories = 10_000
    /// Seconds each request may take.
    static let deadline: TimeInterval = 20

    public init(server: String, username: String, password: String) {
        self.server = server
        self.username = username
        self.password = password
        SourceText.register(secret: password)
    }

    /// Reads `xtream://USER@HOST[:PORT]`; nil when `text` is no such URL, a message when it is a
    /// wrong one or no password is given in `environment`.
    public init?(_ text: String, environment: [String: String]) throws(SourceFailure) {
        let lower = text.lowercased()
        let secure = lower.hasPrefix("xtreams://")
        guard secure || lower.hasPrefix("xtream://") else { return nil }
        var rest = String(text.dropFirst(secure ? "xtreams://".count : "xtream://".count))
        if rest.hasSuffix("/") { rest.removeLast() }
        let usage = "write xtream://USER@HOST[:PORT] (xtreams:// for https), the password in $\(Self.passwordVariable) or in a file named by $\(Self.passwordFileVariable)"
        guard let at = rest.lastIndex(of: "@") else { throw SourceFailure.said(.setting, "\(SourceText.shown(text)): no username: \(usage)") }
        let user = String(rest[..<at]), host = String(rest[rest.index(after: at)...])
        if user.contains(":") {
            throw SourceFailure.said(.setting, "\(lower.hasPrefix("xtreams") ? "xtreams" : "xtream")://\(user.prefix { $0 != ":" })@\(host): a password is never taken on the command line (it would show in the process list and the shell's history); \(Self.account.advice)")
        }
        let name = user.removingPercentEncoding ?? user
        guard SourceAccount.validUsername(name) else { throw SourceFailure.said(.setting, "\(text): the username must be 1 to 128 characters without control characters or '/'") }
        guard SourceAccount.validHost(host) else { throw SourceFailure.said(.setting, "\(SourceText.shown(text)): '\(host.prefix(64))' is no HOST or HOST:PORT (port 1 to 65535): \(usage)") }
        let password: String?
        do { password = try Self.account.password(in: environment, for: "xtream://\(name)@\(host)") } catch { throw SourceFailure.said(.setting, error.description) }
        guard let password else { throw SourceFailure.said(.setting, "xtream://\(name)@\(host): no password: \(Self.account.advice)") }
        self.init(server: "\(secure ? "https" : "http")://\(host)", username: name, password: password)
    }

    /// The account a lineup names (`xtream: {server, username, password-file}`): the panel's
    /// address as `http(s)://HOST[:PORT]`, the password the first line of `passwordFile`
    /// (a warning logged when others may read it).
    public init(server: String, username: String, passwordFile: String, logger: Logger) throws(SourceFailure) {
        let lower = server.lowercased()
        let secure = lower.hasPrefix("https://")
        var host = String(server.dropFirst(secure ? "https://".count : "http://".count))
        while host.hasSuffix("/") { host.removeLast() }
        guard secure || lower.hasPrefix("http://"), SourceAccount.validHost(host) else {
            throw SourceFailure.said(.setting, "xtream server '\(SourceText.shown(String(server.prefix(80))))': write the panel's address as http://HOST:PORT (or https://), without a path")
        }
        guard SourceAccount.validUsername(username) else {
            throw SourceFailure.said(.setting, "xtream server \(server): the username must be 1 to 128 characters without control characters or '/'")
        }
        let read: (password: String, warning: String?)
        do { read = try Self.account.password(file: passwordFile, for: passwordFile) } catch { throw SourceFailure.said(.setting, error.description) }
        if let warning = read.warning { logger.warning("\(warning)") }
        self.init(server: "\(secure ? "https" : "http")://\(host)", username: username, password: read.password)
    }

    /// Where the account's password comes from.
    static let account = SourceAccount(kind: "Xtream", passwordVariable: passwordVariable, passwordFileVariable: passwordFileVariable)

    /// The password in `file` (its first line, at most 4 KB), and a warning when others may read it.
    static func readPassword(file: String) throws(SourceFailure) -> (password: String, warning: String?) {
        do { return try account.readPassword(file: file) } catch { throw SourceFailure.said(.setting, error.description) }
    }

    /// `xtream://USER@HOST:PORT` (no password), for messages.
    public var description: String {
        "\(server.hasPrefix("https") ? "xtreams" : "xtream")://\(username)@\(server.drop { $0 != "/" }.dropFirst(2))"
    }

    /// A name for the copy kept in the state directory (no password in it).
    public var keptName: String {
        let host = server.drop { $0 != "/" }.dropFirst(2).map { $0 == ":" ? "-" : $0 }
        let user = username.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        return "xtream-\(String(host).prefix(64))-\(String(user).prefix(64))"
    }

    static func encoded(_ text: String) -> String { SourceAccount.encoded(text) }

    var credentials: String { "username=\(Self.encoded(username))&password=\(Self.encoded(password))" }

    /// `player_api.php` with the credentials and `action`.
    func apiURL(action: String? = nil) -> URL? {
        URL(string: "\(server)/player_api.php?\(credentials)\(action.map { "&action=\($0)" } ?? "")")
    }

    /// The panel's XMLTV guide.
    public var guideURL: String { "\(server)/xmltv.php?\(credentials)" }

    /// Where stream `id` plays, as `ext` (`ts` or `m3u8`).
    func streamURL(_ id: Int, ext: String) -> String {
        "\(server)/live/\(Self.encoded(username))/\(Self.encoded(password))/\(id).\(ext)"
    }

    /// The account and its live channels as a lineup; throws a message for the person running
    /// the box when the panel cannot be read or refuses the account.
    public func fetch(now: Date = Date()) async throws -> XtreamLineup {
        let account = try XtreamAccount(try await json(action: nil, limit: Self.accountLimit), now: now, source: description)
        if let refusal = account.refusal(now: now) { throw SourceFailure.said(.refused, "\(description): \(refusal)") }
        let categories = try await json(action: "get_live_categories", limit: Self.categoriesLimit)
        let streams = try await json(action: "get_live_streams", limit: Self.streamsLimit)
        var lineup = XtreamLineup(source: self, account: account, fetched: now)
        lineup.read(categories: categories, streams: streams)
        return lineup
    }

    /// The JSON `player_api.php` answers to `action`.
    func json(action: String?, limit: Int) async throws -> Any {
        let what = "\(description): player_api.php" + (action.map { " (\($0))" } ?? "")
        guard let url = apiURL(action: action) else { throw SourceFailure.said(.setting, "\(description): '\(server)' makes no URL") }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data, response: URLResponse
        do {
            (data, response) = try await HTTPTransfer.data(for: request, deadline: Self.deadline, limit: limit)
        } catch let error as URLError where error.code == .timedOut {
            throw SourceFailure.said(.unreachable, "\(what): the panel did not answer within \(Int(Self.deadline)) s")
        } catch {
            throw SourceFailure.said(.unreachable, "\(what): the panel cannot be reached: \(SourceText.shown(PlaylistDownload.describe(error)))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 401 || status == 403 {
            throw SourceFailure.said(.refused, "\(what): the panel refused the account \(username) (HTTP \(status)): is the username or password wrong, or the account disabled?")
        }
        guard status == 200 else { throw SourceFailure.said(.badAnswer, "\(what): the panel answered HTTP \(status)") }
        let head = String(decoding: data.prefix(256), as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if head.hasPrefix("<") {
            throw SourceFailure.said(.badAnswer, "\(what): the server answered an HTML page, not the panel's JSON (is \(server) an Xtream Codes panel, and its address right?)")
        }
        do { return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw SourceFailure.said(.badAnswer, "\(what): the panel answered something that is not JSON (\(data.count) bytes)")
        }
    }
}

/// What `player_api.php` says of the account (`user_info`).
public struct XtreamAccount: Sendable, Hashable {
    public var authenticated: Bool
    /// `Active`, `Expired`, `Banned`, `Disabled`, … as the panel says it (nil: not said).
    public var status: String?
    public var expires: Date?
    /// `max_connections` when it is 1…1024; nil: no limit told.
    public var maxConnections: Int?
    public var activeConnections: Int?
    public var outputFormats: [String]

    init(_ json: Any, now: Date, source: String) throws(SourceFailure) {
        // A panel answers wrong credentials with `{"user_info":{"auth":0}}`, or with `[]`.
        guard let object = json as? [String: Any] else {
            if let list = json as? [Any], list.isEmpty { self.init(authenticated: false); return }
            throw SourceFailure.said(.badAnswer, "\(source): the panel's answer is not the JSON object player_api.php gives")
        }
        guard let info = object["user_info"] as? [String: Any] else {
            throw SourceFailure.said(.badAnswer, "\(source): the panel's answer has no user_info (is this an Xtream Codes panel?)")
        }
        self.init(authenticated: ProviderValue.int(info["auth"], in: 0...1) == 1)
        status = ProviderValue.text(info["status"]).map { String(ProviderValue.clean($0).prefix(32)) }
        // Unix seconds up to the year 2200; anything else is no date.
        expires = ProviderValue.int(info["exp_date"], in: 1...7_258_118_400).map { Date(timeIntervalSince1970: TimeInterval($0)) }
        maxConnections = ProviderValue.int(info["max_connections"], in: 1...StreamPoolDeclaration.maxStreams)
        activeConnections = ProviderValue.int(info["active_cons"], in: 0...100_000)
        outputFormats = ((info["allowed_output_formats"] as? [Any]) ?? []).prefix(16).compactMap { ProviderValue.text($0)?.lowercased() }
    }

    init(authenticated: Bool) {
        self.authenticated = authenticated
        outputFormats = []
    }

    /// Why the account cannot play; nil when it can.
    func refusal(now: Date) -> String? {
        let date = expires.map { ISO8601DateFormatter.string(from: $0, timeZone: .current, formatOptions: [.withFullDate]) }
        guard authenticated else { return "the panel refused the username or password (auth 0); check them, and that the account exists" }
        switch status?.lowercased() {
        case nil, "active": return nil
        case "expired": return "the account expired\(date.map { " on \($0)" } ?? ""); renew it with its provider"
        case "banned": return "the account is banned by its provider"
        case "disabled": return "the account is disabled by its provider"
        case let other?: return "the account's status is '\(other)', not Active"
        }
    }

    /// `ts` when the account may play MPEG-TS (or says nothing), else `m3u8` (HLS).
    var streamExtension: String {
        outputFormats.isEmpty || outputFormats.contains("ts") || !outputFormats.contains("m3u8") ? "ts" : "m3u8"
    }
}

/// JSON values as devices and panels write them: numbers as numbers or as strings.
enum ProviderValue {
    static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }

    /// A whole number in `range` (a number or a numeric string of at most 12 digits); nil otherwise.
    static func int(_ value: Any?, in range: ClosedRange<Int>) -> Int? {
        guard let text = text(value)?.trimmingCharacters(in: .whitespaces), (1...12).contains(text.count),
              let number = Int(text), range.contains(number) else { return nil }
        return number
    }

    /// `text` when it is an http(s) address fit for a logo: at most 2048 characters, no spaces.
    static func webAddress(_ text: String?) -> String? {
        guard let text else { return nil }
        let lower = text.lowercased()
        return (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && text.count <= 2048
            && !text.contains(where: { $0.isWhitespace }) ? text : nil
    }

    /// Control characters out (a name is one line).
    static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
            .trimmingCharacters(in: .whitespaces)
    }
}

/// An Xtream account's live channels as a lineup.
public struct XtreamLineup: Sendable {
    public struct Entry: Sendable, Hashable {
        public var number: Int
        public var name: String
        public var url: String
        public var group: String?
        public var logo: String?
        public var guideID: String?
        /// Days of archive (`tv_archive_duration`) when the panel keeps one.
        public var catchupDays: Int?
    }

    public var source: XtreamSource
    public var account: XtreamAccount
    public var fetched: Date
    public var entries: [Entry] = []
    /// Entries left out or renumbered, each said.
    public var notes: [String] = []

    /// Takes `get_live_categories` and `get_live_streams`. A stream without a `stream_id` is
    /// left out; one with a missing, bad or taken `num` gets the next free number after the highest.
    mutating func read(categories: Any, streams: Any) {
        var groups: [String: String] = [:]
        for item in ((categories as? [Any]) ?? []).prefix(XtreamSource.maxCategories) {
            guard let category = item as? [String: Any], let id = ProviderValue.text(category["category_id"]),
                  let name = ProviderValue.text(category["category_name"]).map(ProviderValue.clean), !name.isEmpty else { continue }
            groups[String(id.prefix(32))] = String(name.prefix(64))
        }
        guard let list = streams as? [Any] else {
            notes.append("get_live_streams: not the JSON list the panel gives; no channels")
            return
        }
        var given: [ChannelNumber?] = []
        let ext = account.streamExtension
        for (index, item) in list.enumerated() {
            guard entries.count < XtreamSource.maxChannels else {
                notes.append("only the first \(XtreamSource.maxChannels) channels are taken of \(list.count)")
                break
            }
            guard let stream = item as? [String: Any] else { notes.append("stream #\(index + 1): not a JSON object; left out"); continue }
            let name = ProviderValue.text(stream["name"]).map { String(ProviderValue.clean($0).prefix(128)) } ?? ""
            let label = "stream #\(index + 1)\(name.isEmpty ? "" : " \(name)")"
            guard let id = ProviderValue.int(stream["stream_id"], in: 1...Int(Int32.max)) else {
                notes.append("\(label): no stream_id; left out"); continue
            }
            var entry = Entry(number: 0, name: name.isEmpty ? "Stream \(id)" : name, url: source.streamURL(id, ext: ext))
            entry.group = ProviderValue.text(stream["category_id"]).flatMap { groups[String($0.prefix(32))] }
            entry.logo = ProviderValue.webAddress(ProviderValue.text(stream["stream_icon"]))
            entry.guideID = ProviderValue.text(stream["epg_channel_id"]).map { String(ProviderValue.clean($0).prefix(256)) }.flatMap { $0.isEmpty ? nil : $0 }
            if ProviderValue.int(stream["tv_archive"], in: 0...1) == 1 {
                entry.catchupDays = ProviderValue.int(stream["tv_archive_duration"], in: 1...3650)
            }
            given.append(ProviderValue.int(stream["num"], in: 1...99_999).map { ChannelNumber($0) })
            entries.append(entry)
        }
        // The numberless follow the highest number, in the panel's order.
        let numbering = SourceNumbering.assign(given, names: entries.map(\.name))
        for index in entries.indices { entries[index].number = numbering.numbers[index].major }
        notes += numbering.notes
        entries.sort { $0.number < $1.number }
    }

    /// The pool of the account's streams: every URL on its server (live, and the `timeshift/`
    /// of catch-up, which one prefix cannot name apart from `live/`), limited to `max_connections`.
    public var pool: StreamPoolDeclaration {
        .told(name: "Xtream \(source.description.drop { $0 != "/" }.dropFirst(2))", match: "\(source.server)/", streams: account.maxConnections)
    }

    /// The lineup as YAML (each value a JSON string): what the box plays and keeps.
    public var yaml: String {
        let q = ProviderYAML.quoted
        let stamp = ISO8601DateFormatter().string(from: fetched)
        let pool = self.pool
        var lines = [
            "# \(source.description): \(account.maxConnections.map { "\($0) connections" } ?? "connections not told"), \(entries.count) channels, read \(stamp).",
            "# Its stream URLs carry the account's password: keep this file the box's user's only.",
            "guide: \(q(source.guideURL))",
        ] + ProviderYAML.head(pool: pool, channels: entries.count)
        for entry in entries {
            lines += ProviderYAML.channel(number: ChannelNumber(entry.number), name: entry.name, source: entry.url,
                                          group: entry.group, logo: entry.logo, guide: entry.guideID)
            if let days = entry.catchupDays {
                lines.append("    catchup: \"xc\"")
                lines.append("    catchup-days: \(days)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension StreamPoolDeclaration {
    /// A source's pool: its limit, when it tells one (tuners, connections), is the source's word.
    static func told(name: String, match: String, streams: Int?) -> StreamPoolDeclaration {
        var pool = StreamPoolDeclaration(name: name, match: match, streams: streams)
        pool.toldBySource = streams != nil
        return pool
    }
}

/// YAML written by the sources: values as JSON strings, which YAML reads as written.
enum ProviderYAML {
    /// The `pools:` list of one pool, and the start of the `channels:` list.
    static func head(pool: StreamPoolDeclaration, channels: Int) -> [String] {
        var lines = ["pools:", "  - name: \(quoted(pool.name))", "    match: \(quoted(pool.match))"]
        if let streams = pool.streams { lines.append("    streams: \(streams)") }
        lines.append(channels == 0 ? "channels: []" : "channels:")
        return lines
    }

    /// One entry of the `channels:` list.
    static func channel(number: ChannelNumber, name: String, source: String, group: String?, logo: String?, guide: String?) -> [String] {
        // A sub-number is quoted, or YAML would read `9.10` as the number 9.1.
        var lines = ["  - number: \(number.minor == nil ? number.description : quoted(number.description))",
                     "    name: \(quoted(name))", "    source: \(quoted(source))"]
        if let group { lines.append("    group: \(quoted(group))") }
        if let logo { lines.append("    logo: \(quoted(logo))") }
        if let guide { lines.append("    guide: \(quoted(guide))") }
        return lines
    }

    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}

