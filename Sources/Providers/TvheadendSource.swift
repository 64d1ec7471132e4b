import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lineup
import Logging

/// A Tvheadend server as a lineup: `tvheadend://USER@HOST[:PORT][/ROOT]` (http, port 9981
/// unless given; `/ROOT` for a server started with a web root, `--http_root`) or
/// `tvheadends://…` (https), or `tvheadend://HOST[:PORT]` for a server that lets anonymous
/// users stream. The user's password comes from `FLIPBOX_TVHEADEND_PASSWORD` or from
/// the file `FLIPBOX_TVHEADEND_PASSWORD_FILE` names (never the command line). `?profile=NAME`
/// picks the stream profile (`pass`, the broadcast's MPEG-TS unchanged, by default);
/// `?streams=N` says how many streams the server gives at once (its tuners).
///
/// The channels come from `/playlist/channels.m3u` (HTTP Basic: Tvheadend's authentication
/// type must accept plain), the guide from `/xmltv/channels`. The playlist's stream URLs carry
/// a ticket that expires within minutes; the lineup's carry the user's credentials instead.
public struct TvheadendSource: Sendable {
    /// `http://host:port`, without a trailing slash.
    public var server: String
    /// The server's web root (`--http_root`) as `/name`, or empty.
    public var root: String = ""
    /// Nil: the server's anonymous user.
    public var username: String?
    var password: String?
    public var profile: String
    /// How many streams the server gives at once, when the argument says (`?streams=N`).
    public var streams: Int?

    public static let passwordVariable = "FLIPBOX_TVHEADEND_PASSWORD"
    public static let passwordFileVariable = "FLIPBOX_TVHEADEND_PASSWORD_FILE"
    static let account = SourceAccount(kind: "Tvheadend", passwordVariable: passwordVariable, passwordFileVariable: passwordFileVariable)

    public static let defaultPort = 9981
    public static let defaultProfile = "pass"
    /// Most bytes taken of the playlist.
    static let playlistLimit = 16 << 20
    /// Seconds the playlist may take.
    static let deadline: TimeInterval = 20
    /// Most channels taken from one server.
    static let maxChannels = 20_000
    /// Most streams `?streams=` may say.
    static let maxStreams = 64

    public init(server: String, root: String = "", username: String?, password: String?, profile: String = defaultProfile, streams: Int? = nil) {
        self.server = server
        self.root = root
        self.username = username
        self.password = password
        self.profile = profile
        self.streams = streams
        if let password { SourceText.register(secret: password) }
    }

    /// Reads `tvheadend://[USER@]HOST[:PORT][/ROOT][?profile=NAME&streams=N]`; nil when `text` is no
    /// such URL, a message when it is a wrong one or a user is given without a password in
    /// `environment`.
    public init?(_ text: String, environment: [String: String]) throws(SourceFailure) {
        let lower = text.lowercased()
        let secure = lower.hasPrefix("tvheadends://")
        guard secure || lower.hasPrefix("tvheadend://") else { return nil }
        let scheme = secure ? "tvheadends" : "tvheadend"
        var rest = Substring(text.dropFirst(scheme.count + 3))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        while rest.hasSuffix("/") { rest.removeLast() }
        let usage = "write tvheadend://USER@HOST[:PORT][/ROOT] (tvheadends:// for https; tvheadend://HOST[:PORT] for the anonymous user), the password in $\(Self.passwordVariable) or in a file named by $\(Self.passwordFileVariable)"
        var user: String?
        var root = ""
        // A username has no '/', so the first one after the '@' starts the web root.
        if let slash = rest[(rest.lastIndex(of: "@") ?? rest.startIndex)...].firstIndex(of: "/") {
            root = String(rest[slash...])
            rest = rest[..<slash]
            guard Self.validRoot(root) else {
                throw SourceFailure.said(.setting, "\(SourceText.shown(text)): '\(root.prefix(64))' is no web root: 1 to 64 letters, digits, '-', '_' or '.' after each '/' (such as /tvheadend)")
            }
        }
        var host = String(rest)
        if let at = rest.lastIndex(of: "@") {
            let given = String(rest[..<at])
            host = String(rest[rest.index(after: at)...])
            if given.contains(":") {
                throw SourceFailure.said(.setting, "\(scheme)://\(given.prefix { $0 != ":" })@\(host): a password is never taken on the command line (it would show in the process list and the shell's history); \(Self.account.advice)")
            }
            let name = given.removingPercentEncoding ?? given
            guard SourceAccount.validUsername(name) else {
                throw SourceFailure.said(.setting, "\(SourceText.shown(text)): the username must be 1 to 128 characters without control characters or '/'")
            }
            user = name
        }
        guard SourceAccount.validHost(host) else {
            throw SourceFailure.said(.setting, "\(SourceText.shown(text)): '\(host.prefix(64))' is no HOST or HOST:PORT (port 1 to 65535): \(usage)")
        }
        // A port ends the host unless the host is a bracketed IPv6 address alone.
        if host.hasSuffix("]") || !host.contains(":") { host += ":\(Self.defaultPort)" }
        let shown = "\(scheme)://\(user.map { "\($0)@" } ?? "")\(host)\(root)"
        var profile = Self.defaultProfile
        var streams: Int?
        for item in query.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = pair.count == 2 ? String(pair[1]) : ""
            switch pair[0] {
            case "profile":
                guard (1...64).contains(value.count), value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                    throw SourceFailure.said(.setting, "\(shown): the profile must be a Tvheadend stream profile's name: 1 to 64 letters, digits, '-' or '_' (such as pass, matroska or webtv-h264-aac-mpegts)")
                }
                profile = value
            case "streams":
                guard value.count <= 2, let number = Int(value), (1...Self.maxStreams).contains(number) else {
                    throw SourceFailure.said(.setting, "\(shown): streams= takes how many streams the server gives at once (its tuners), 1 to \(Self.maxStreams)")
                }
                streams = number
            default:
                throw SourceFailure.said(.setting, "\(shown): '\(item.prefix(32))' is no option of a Tvheadend source; it takes ?profile=NAME and &streams=N")
            }
        }
        var password: String?
        if let user {
            do { password = try Self.account.password(in: environment, for: shown) } catch { throw SourceFailure.said(.setting, error.description) }
            guard password != nil else { throw SourceFailure.said(.setting, "\(shown): no password for \(user): \(Self.account.advice)") }
        }
        self.init(server: "\(secure ? "https" : "http")://\(host)", root: root, username: user, password: password, profile: profile, streams: streams)
    }

    /// The server a lineup names (`tvheadend: {server, username, password-file, profile,
    /// streams}`): its address as `http(s)://HOST[:PORT][/ROOT]`, the password the first line of
    /// `passwordFile` (a warning logged when others may read it); no user: the anonymous one.
    public init(server: String, username: String?, passwordFile: String?, profile: String?, streams: Int?,
                logger: Logger) throws(SourceFailure) {
        let lower = server.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://") else {
            throw SourceFailure.said(.setting, "tvheadend server '\(SourceText.shown(String(server.prefix(80))))': write its address as http://HOST:PORT (or https://), its web root after it when it has one")
        }
        // Read as the argument form is, so both take the same hosts, roots, profiles and limits.
        var argument = "\(secure ? "tvheadends" : "tvheadend")://"
        if let username {
            guard SourceAccount.validUsername(username) else {
                throw SourceFailure.said(.setting, "tvheadend server \(server): the username must be 1 to 128 characters without control characters or '/'")
            }
            argument += "\(SourceAccount.encoded(username))@"
        }
        argument += server.dropFirst(secure ? "https://".count : "http://".count)
        let options = [profile.map { "profile=\($0)" }, streams.map { "streams=\($0)" }].compactMap { $0 }
        if !options.isEmpty { argument += "?" + options.joined(separator: "&") }
        var environment: [String: String] = [:]
        var warning: String?
        if let passwordFile {
            do {
                let read = try Self.account.password(file: passwordFile, for: passwordFile)
                environment[Self.passwordVariable] = read.password
                warning = read.warning
            } catch { throw SourceFailure.said(.setting, error.description) }
        }
        guard let source = try Self(argument, environment: environment) else {
            throw SourceFailure.said(.setting, "tvheadend server '\(SourceText.shown(String(server.prefix(80))))' is no http(s) address")
        }
        if let warning { logger.warning("\(warning)") }
        self = source
    }

    /// A web root as Tvheadend takes it: `/name[/name…]`, each name of letters, digits, `-`, `_`, `.`.
    static func validRoot(_ root: String) -> Bool {
        let names = root.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return root.hasPrefix("/") && root.count <= 128 && !names.isEmpty && names.allSatisfy { name in
            (1...64).contains(name.count) && name != "." && name != ".."
                && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }
    }

    /// `host:port`.
    public var hostAndPort: String { String(server.drop { $0 != "/" }.dropFirst(2)) }

    var scheme: String { server.hasPrefix("https") ? "https" : "http" }

    /// `tvheadend://USER@HOST:PORT[/ROOT]` (no password), for messages.
    public var description: String {
        "\(scheme == "https" ? "tvheadends" : "tvheadend")://\(username.map { "\($0)@" } ?? "")\(hostAndPort)\(root)"
    }

    /// A name for the copy kept in the state directory (no password in it).
    public var keptName: String {
        let host = hostAndPort.map { $0 == ":" ? "-" : $0 }
        let user = (username ?? "anonymous").map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        let profile = profile == Self.defaultProfile ? "" : "-\(profile)"
        let root = root.map { $0 == "/" ? "-" : $0 }
        return "tvheadend-\(String(host).prefix(64))\(String(root).prefix(64))-\(String(user).prefix(64))\(profile)"
    }

    /// `USER:PASSWORD@`, percent-encoded; empty for the anonymous user.
    var userInfo: String {
        guard let username else { return "" }
        return "\(SourceAccount.encoded(username)):\(SourceAccount.encoded(password ?? ""))@"
    }

    /// The playlist of the channels, its stream URLs in `profile`.
    var playlistURL: String { "\(server)\(root)/playlist/channels.m3u?profile=\(profile)" }

    /// The server's XMLTV guide of every channel, the user's credentials in it.
    public var guideURL: String { "\(scheme)://\(userInfo)\(hostAndPort)\(root)/xmltv/channels" }

    /// Where `path` (`channelid/1234` or `channel/UUID`) plays, without a ticket: the user's
    /// credentials in the URL, which GStreamer's HTTP source sends when the server asks.
    func streamURL(_ path: String) -> String {
        "\(scheme)://\(userInfo)\(hostAndPort)\(root)/stream/\(path)?profile=\(profile)"
    }

    /// `channelid/ID` or `channel/UUID` of a Tvheadend stream URL (`…/stream/channelid/1234?ticket=…`);
    /// nil for any other URL.
    static func streamPath(_ url: String) -> String? {
        guard url.count <= 4096, let components = URLComponents(string: url) else { return nil }
        let parts = components.path.split(separator: "/")
        guard let at = parts.lastIndex(of: "stream"), parts.count == at + 3 else { return nil }
        let kind = parts[at + 1], id = parts[at + 2]
        switch kind {
        case "channelid":
            // Tvheadend's channel ids are unsigned 32-bit numbers.
            guard id.count <= 10, id.allSatisfy(\.isASCII), let number = Int(id), (0...Int(UInt32.max)).contains(number) else { return nil }
        case "channel":
            guard (1...64).contains(id.count), id.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        default:
            return nil
        }
        return "\(kind)/\(id)"
    }

    /// Who the server is asked as, in messages.
    var who: String { username.map { "the user \($0)" } ?? "the anonymous user" }

    /// The server's channels as a lineup; throws a message for the person running the box when
    /// the server cannot be read, refuses the user, or has no channel for it.
    public func fetch(now: Date = Date()) async throws -> TvheadendLineup {
        let text = String(decoding: try await playlist(), as: UTF8.self)
        var lineup = TvheadendLineup(source: self, fetched: now)
        lineup.read(playlist: text)
        guard !lineup.entries.isEmpty else {
            let left = lineup.notes.first.map { " (\(lineup.notes.count) entries left out; the first: \($0))" } ?? ""
            throw SourceFailure.said(.refused, "\(description): the playlist has no channel \(who) may stream\(left): are channels mapped to the server's services, and does the user's access entry allow them (Configuration → Users → Access Entries: its channel tags and numbers)?")
        }
        return lineup
    }

    /// The playlist's bytes: an M3U playlist, or a message saying why not.
    func playlist() async throws -> Data {
        let what = "\(description): /playlist/channels.m3u"
        guard let url = URL(string: playlistURL) else { throw SourceFailure.said(.setting, "\(description): '\(server)' makes no URL") }
        var request = URLRequest(url: url)
        if let username {
            request.setValue(HTTPTransfer.basicAuthorization(user: username, password: password ?? ""), forHTTPHeaderField: "Authorization")
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await HTTPTransfer.data(for: request, deadline: Self.deadline, limit: Self.playlistLimit)
        } catch let error as URLError where error.code == .timedOut {
            throw SourceFailure.said(.unreachable, "\(what): Tvheadend did not answer within \(Int(Self.deadline)) s")
        } catch {
            throw SourceFailure.said(.unreachable, "\(what): Tvheadend cannot be reached: \(SourceText.shown(PlaylistDownload.describe(error)))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200:
            break
        case 401 where username == nil:
            throw SourceFailure.said(.refused, "\(what): Tvheadend asks for a login (HTTP 401): name its user, tvheadend://USER@\(hostAndPort), and give the password in $\(Self.passwordVariable) or a file named by $\(Self.passwordFileVariable)")
        case 401:
            throw SourceFailure.said(.refused, "\(what): Tvheadend refused \(who) (HTTP 401): check the username and password, and that Tvheadend takes them as the box sends them: set its authentication type (Configuration → General → Base → HTTP Server Settings) to 'Both plain and digest' or 'Plain'")
        case 403:
            throw SourceFailure.said(.refused, "\(what): \(who) may not stream (HTTP 403): give it the streaming right in Tvheadend (Configuration → Users → Access Entries: Streaming)")
        case 404:
            throw SourceFailure.said(.badAnswer, "\(what): the server has no /playlist (HTTP 404): is \(hostAndPort) a Tvheadend server's web interface (port \(Self.defaultPort) unless changed)?")
        default:
            throw SourceFailure.said(.badAnswer, "\(what): Tvheadend answered HTTP \(status)")
        }
        let head = String(decoding: data.prefix(512), as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if head.hasPrefix("<") {
            throw SourceFailure.said(.badAnswer, "\(what): the server answered an HTML page, not Tvheadend's playlist (is \(hostAndPort) a Tvheadend server's web interface?)")
        }
        guard head.uppercased().hasPrefix("#EXTM3U") else {
            throw SourceFailure.said(.badAnswer, "\(what): the server answered something that is not an M3U playlist (\(data.count) bytes); is \(hostAndPort) a Tvheadend server?")
        }
        return data
    }
}

/// A Tvheadend server's channels as a lineup.
public struct TvheadendLineup: Sendable {
    public struct Entry: Sendable, Hashable {
        public var number: ChannelNumber
        public var name: String
        public var url: String
        public var group: String?
        public var logo: String?
        public var guideID: String?
    }

    public var source: TvheadendSource
    public var fetched: Date
    public var entries: [Entry] = []
    /// Entries left out or renumbered, each said.
    public var notes: [String] = []

    /// Takes the playlist's entries: their stream URLs rewritten without the ticket and with the
    /// user's credentials; one that is no Tvheadend stream URL is left out; one with a missing,
    /// bad or taken number gets the next free number after the highest.
    mutating func read(playlist text: String) {
        let (found, problems) = M3UEntry.read(text, file: source.description)
        for problem in problems where problem.severity == .error { notes.append("playlist line \(problem.line): \(problem.message)") }
        var given: [ChannelNumber?] = []
        for item in found {
            guard entries.count < TvheadendSource.maxChannels else {
                notes.append("only the first \(TvheadendSource.maxChannels) channels are taken of \(found.count)")
                break
            }
            let name = String(ProviderValue.clean(item.name).prefix(128))
            guard let path = TvheadendSource.streamPath(item.url) else {
                notes.append("\(name.isEmpty ? "playlist line \(item.line)" : name): \(SourceText.shown(String(item.url.prefix(128)))) is no Tvheadend stream URL (/stream/channelid/ID or /stream/channel/UUID); left out")
                continue
            }
            var entry = Entry(number: ChannelNumber(0), name: name.isEmpty ? "Channel \(path)" : name, url: source.streamURL(path))
            entry.guideID = item.guideID.map { String(ProviderValue.clean($0).prefix(256)) }.flatMap { $0.isEmpty ? nil : $0 }
            entry.group = item.group.map { String(ProviderValue.clean($0).prefix(64)) }.flatMap { $0.isEmpty ? nil : $0 }
            // `/imagecache/N` asks for the user's login too, which a logo fetch does not send.
            entry.logo = source.username == nil ? ProviderValue.webAddress(item.logo) : nil
            given.append(SourceNumbering.fit(item.number))
            entries.append(entry)
        }
        let numbering = SourceNumbering.assign(given, names: entries.map(\.name))
        for index in entries.indices { entries[index].number = numbering.numbers[index] }
        notes += numbering.notes
        entries.sort { $0.number < $1.number }
    }

    /// The pool of the server's streams (its tuners, or its streaming limit): every
    /// `/stream/` URL on it, its limit `?streams=` when given, else learned.
    public var pool: StreamPoolDeclaration {
        .told(name: "Tvheadend \(source.hostAndPort)", match: "\(source.server)\(source.root)/stream/", streams: source.streams)
    }

    /// The lineup as YAML (each value a JSON string): what the box plays and keeps.
    public var yaml: String {
        let stamp = ISO8601DateFormatter().string(from: fetched)
        var lines = [
            "# \(source.description), profile \(source.profile): \(entries.count) channels, read \(stamp).",
        ]
        if source.username != nil {
            lines.append("# Its stream and guide URLs carry the user's password: keep this file the box's user's only.")
        }
        lines.append("guide: \(ProviderYAML.quoted(source.guideURL))")
        lines += ProviderYAML.head(pool: pool, channels: entries.count)
        for entry in entries {
            lines += ProviderYAML.channel(number: entry.number, name: entry.name, source: entry.url,
                                          group: entry.group, logo: entry.logo, guide: entry.guideID)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

