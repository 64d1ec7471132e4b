import Foundation
import Yams

/// Reads Flipbox's native YAML lineup into a `LineupDraft`.
///
/// Works on Yams' node tree so every message carries the line it is about.
/// Unknown keys are errors (typo protection). Never fails: problems go to the log.
enum YAMLLineupParser {
    static let topLevelKeys = ["settings", "guide", "pools", "channels", "lineup", "xtream", "tvheadend", "groups"]
    static let xtreamKeys = ["server", "username", "password-file"]
    static let tvheadendKeys = ["server", "username", "password-file", "profile", "streams"]
    static let poolKeys = ["name", "match", "streams", "bandwidth"]
    static let channelKeys = [
        "number", "name", "id", "source", "sources", "logo", "group", "rating", "guide",
        "interstitial", "favourite", "favorite", "hidden", "radio", "options", "language", "country",
        "breaks", "linear-breaks", "multicast", "catchup", "catchup-days",
    ]

    static func parse(_ text: String, log: inout DiagnosticLog) -> LineupDraft {
        var draft = LineupDraft()
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            let (line, message) = describe(error, in: text)
            log.error(line, "YAML syntax error: \(message)")
            return draft
        } catch {
            log.error(1, "YAML syntax error: \(error)")
            return draft
        }
        guard let root, !isNull(root) else { return draft }
        guard case .mapping(let top) = root else {
            log.error(line(root), "a YAML lineup is a mapping with a `channels:` list at the top; found \(kind(root))")
            return draft
        }

        var namesSource = false
        for (keyNode, value) in top {
            let key = scalarText(keyNode) ?? ""
            switch key {
            case "settings":
                (draft.settings, draft.settingLines) = readSettings(value, log: &log)
                draft.namesSettings = true
                draft.logoDefaults = readLogoSettings(value, log: &log)
            case "guide": draft.guideURLs = readLocatedStrings(value, key: "guide", log: &log)
            case "pools": draft.pools = readPools(value, log: &log)
            case "channels": break
            case "lineup", "xtream", "tvheadend":
                namesSource = true
                guard let source = readSource(key: key, value, log: &log) else { continue }
                if let earlier = draft.source {
                    log.error(line(keyNode), "a lineup names one source; `\(key)` here and another on line \(earlier.line)")
                } else {
                    draft.source = Located(value: source, line: line(keyNode))
                }
            case "groups": draft.groups = readLocatedStrings(value, key: "groups", log: &log)
            default:
                log.error(line(keyNode), "unknown top-level key '\(key)'\(suggestion(for: key, among: topLevelKeys))")
            }
        }

        if let source = draft.source {
            // Its channels are the source's: a list here would be a second, ignored lineup.
            if let channels = top["channels"] {
                log.error(line(channels), "this lineup takes its channels from its source (line \(source.line)); remove `channels:`, or the source")
            }
            return draft
        }
        // A source named wrongly is said on its line; it is not also a lineup without channels.
        if namesSource { return draft }
        if let groups = draft.groups.first {
            log.error(groups.line, "`groups` keeps some groups of a source's channels; this lineup names no source (`lineup:`, `xtream:` or `tvheadend:`)")
        }
        guard let channels = top["channels"] else {
            log.error(line(root), "the lineup has no `channels:` list (nor a source: `lineup: URL`, `lineup: hdhomerun://auto`, `xtream:`, `tvheadend:`)")
            return draft
        }
        if isNull(channels) { return draft }
        guard case .sequence(let items) = channels else {
            log.error(line(channels), "`channels` must be a list of channels (items starting with `- `); found \(kind(channels))")
            return draft
        }
        for item in items {
            if let channel = readChannel(item, log: &log) { draft.channels.append(channel) }
        }
        return draft
    }

    // MARK: Sections

    /// `lineup: URL` (a playlist URL, `hdhomerun://…`, `xtream://…`), `xtream:` with the
    /// account's server, username and password file, or `tvheadend:` with the server, and its
    /// user, password file, profile and streams when given; nil (and an error on its line) when wrong.
    private static func readSource(key: String, _ node: Node, log: inout DiagnosticLog) -> LineupSourceReference? {
        if key == "lineup" {
            guard let text = nonEmpty(string(node, key: "lineup", log: &log)) else {
                if isNull(node) { log.error(line(node), "`lineup` names where the channels come from: a playlist URL, hdhomerun://auto, xtream://USER@HOST, tvheadend://USER@HOST, a lineup file") }
                return nil
            }
            guard text.count <= 4096, !text.contains(where: \.isNewline) else {
                log.error(line(node), "`lineup` is one URL of at most 4096 characters")
                return nil
            }
            return .argument(text)
        }
        let tvheadend = key == "tvheadend"
        let keys = tvheadend ? tvheadendKeys : xtreamKeys
        guard case .mapping(let map) = node else {
            log.error(line(node), "`\(key)` is a mapping: \(keys.joined(separator: ", ")); found \(kind(node))")
            return nil
        }
        let kindName = tvheadend ? "Tvheadend" : "Xtream"
        var fields: [String: (text: String, line: Int)] = [:]
        for (keyNode, value) in map {
            let name = scalarText(keyNode) ?? ""
            if name == "password" {
                log.error(line(keyNode), "a \(kindName) password is never written in a lineup (it would be in every copy and backup of the file); put it alone in a file readable by the box's user only, and name that file with `password-file`")
                continue
            }
            guard keys.contains(name) else {
                log.error(line(keyNode), "unknown key '\(key).\(name)'\(suggestion(for: name, among: keys))")
                continue
            }
            if let text = nonEmpty(string(value, key: "\(key).\(name)", log: &log)) { fields[name] = (text, line(value)) }
        }
        // Tvheadend's anonymous user needs neither; a user needs its password file.
        let required = tvheadend ? ["server"] + (fields["username"] != nil ? ["password-file"] : []) : xtreamKeys
        var complete = true
        for name in required where fields[name] == nil {
            log.error(line(node), "`\(key)` needs `\(name)`")
            complete = false
        }
        if tvheadend, fields["username"] == nil, let file = fields["password-file"] {
            log.error(file.line, "`tvheadend.password-file` without `username`: the password is a user's (leave both out for the server's anonymous user)")
            complete = false
        }
        guard complete, let server = fields["server"]?.text else { return nil }
        let lower = server.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), server.count <= 512 else {
            let what = tvheadend ? "the server's address as http://HOST:PORT (its web root after it when it has one: http://HOST:PORT/tvheadend)"
                                 : "the panel's address as http://HOST:PORT or https://HOST:PORT"
            log.error(line(node), "`\(key).server` is \(what); found '\(server.prefix(80))'")
            return nil
        }
        guard tvheadend else {
            guard let username = fields["username"]?.text, let passwordFile = fields["password-file"]?.text else { return nil }
            return .xtream(server: server, username: username, passwordFile: passwordFile)
        }
        var streams: Int?
        if let given = fields["streams"] {
            guard given.text.count <= 3, let n = Int(given.text), (1...64).contains(n) else {
                log.error(given.line, "`tvheadend.streams` is how many streams the server gives at once (its tuners), 1 to 64; found '\(given.text.prefix(16))'")
                return nil
            }
            streams = n
        }
        return .tvheadend(server: server, username: fields["username"]?.text, passwordFile: fields["password-file"]?.text,
                          profile: fields["profile"]?.text, streams: streams)
    }

    /// `pools:`, a list of `{name, match, streams}`; every problem an error on its line.
    private static func readPools(_ node: Node, log: inout DiagnosticLog) -> [StreamPoolDeclaration] {
        if isNull(node) { return [] }
        guard case .sequence(let items) = node else {
            log.error(line(node), "`pools` must be a list of pools (items starting with `- `), each with name, match and streams; found \(kind(node))")
            return []
        }
        var pools: [StreamPoolDeclaration] = []
        for item in items {
            guard case .mapping(let map) = item else {
                log.error(line(item), "each pool is a mapping with name, match and streams; found \(kind(item))")
                continue
            }
            var name: String?, match: String?, streams: Int?, bandwidth: BitRate?, bad = false
            for (keyNode, value) in map {
                let key = scalarText(keyNode) ?? ""
                switch key {
                case "name": name = nonEmpty(string(value, key: "pools.name", log: &log))
                case "match": match = nonEmpty(string(value, key: "pools.match", log: &log))
                case "streams":
                    let text = scalarText(value) ?? ""
                    if let n = Int(text), (1...StreamPoolDeclaration.maxStreams).contains(n) {
                        streams = n
                    } else {
                        log.error(line(value), "pools.streams must be a number of streams from 1 to \(StreamPoolDeclaration.maxStreams), not '\(text)'")
                        bad = true
                    }
                case "bandwidth":
                    let text = scalarText(value) ?? ""
                    if let rate = BitRate(text) {
                        bandwidth = rate
                    } else {
                        log.error(line(value), "pools.bandwidth must be a rate such as 20Mbps or 800kbps, not '\(text)'")
                        bad = true
                    }
                default:
                    log.error(line(keyNode), "unknown pool key '\(key)'\(suggestion(for: key, among: poolKeys))")
                    bad = true
                }
            }
            guard let name else {
                log.error(line(item), "a pool needs a `name`")
                continue
            }
            guard let match, match.contains("://") else {
                log.error(line(item), "pool '\(name)' needs a `match`: the start of its source URLs, such as http://192.168.1.20:5004/")
                continue
            }
            if pools.contains(where: { $0.name == name }) {
                log.error(line(item), "pool '\(name)' is named twice")
                continue
            }
            if !bad { pools.append(StreamPoolDeclaration(name: name, match: match, streams: streams, bandwidth: bandwidth, line: line(item))) }
        }
        return pools
    }

    private static func readSettings(_ node: Node, log: inout DiagnosticLog) -> ([String: String], [String: Int]) {
        if isNull(node) { return ([:], [:]) }
        guard case .mapping(let mapping) = node else {
            log.error(line(node), "`settings` must be a mapping of names to values; found \(kind(node))")
            return ([:], [:])
        }
        var settings: [String: String] = [:]
        var lines: [String: Int] = [:]
        for (keyNode, value) in mapping {
            let key = scalarText(keyNode) ?? ""
            // A list of plain values (`audio-languages: [deu, eng]`) is kept as `deu, eng`.
            if case .sequence(let items) = value, case let texts = items.compactMap(scalarText), texts.count == items.count {
                settings[key] = texts.joined(separator: ", ")
                lines[key] = line(value)
                continue
            }
            if case .mapping(let group) = value {
                // A group of settings (`parental: {FSK: 12}`) reads as `parental.FSK: 12`.
                for (subKeyNode, subValue) in group {
                    let name = "\(key).\(scalarText(subKeyNode) ?? "")"
                    guard let text = scalarText(subValue) else {
                        log.error(line(subValue), "setting '\(name)' must be a single value; found \(kind(subValue))")
                        continue
                    }
                    settings[name] = text
                    lines[name] = line(subValue)
                }
                continue
            }
            guard let text = scalarText(value) else {
                log.error(line(value), "setting '\(key)' must be a single value or a group of them; found \(kind(value))")
                continue
            }
            settings[key] = text
            lines[key] = line(value)
        }
        return (settings, lines)
    }

    /// The logo options among the settings (`logo`, `logo-corner`, `logo-size`, `logo-margin`,
    /// `logo-opacity`); a bad value is an error on its line.
    private static func readLogoSettings(_ node: Node, log: inout DiagnosticLog) -> LogoStyle {
        var style = LogoStyle()
        guard case .mapping(let mapping) = node else { return style }
        for (keyNode, value) in mapping {
            let key = scalarText(keyNode) ?? ""
            guard let option = LogoStyle.Option(attribute: key), let text = scalarText(value) else { continue }
            if let problem = style.set(option, text: text, name: "setting '\(key)'") { log.error(line(value), problem) }
        }
        return style
    }

    static let logoKeys = ["src", "show", "corner", "size", "margin", "opacity"]

    /// `logo: path-or-URL`, `logo: off`, or `logo: {src: ..., corner: ..., size: ..., margin: ..., opacity: ..., show: ...}`.
    private static func readLogo(_ node: Node, into channel: inout ChannelDraft, log: inout DiagnosticLog) {
        if case .mapping(let mapping) = node {
            for (keyNode, value) in mapping {
                let key = scalarText(keyNode) ?? ""
                if isNull(value) { continue }
                let at = line(value)
                if key == "src" {
                    if let src = string(value, key: "logo.src", log: &log), !src.isEmpty {
                        channel.logo = Located(value: src, line: at)
                    }
                    continue
                }
                guard let option = LogoStyle.Option(rawValue: key) else {
                    log.error(line(keyNode), "unknown logo key '\(key)'\(suggestion(for: key, among: logoKeys))")
                    continue
                }
                guard let text = scalarText(value) else {
                    log.error(at, "`logo.\(key)` must be a single value; found \(kind(value))")
                    continue
                }
                if let problem = channel.logoStyle.set(option, text: text, name: "`logo.\(key)`") { log.error(at, problem) }
            }
            return
        }
        guard let text = string(node, key: "logo", log: &log), !text.isEmpty else { return }
        if let shown = LogoStyle.onOff(text) {
            channel.logoStyle.isShown = shown
        } else {
            channel.logo = Located(value: text, line: line(node))
        }
    }

    private static func readChannel(_ node: Node, log: inout DiagnosticLog) -> ChannelDraft? {
        guard case .mapping(let mapping) = node else {
            log.error(line(node), "each channel must be a mapping (name:, source:, ...); found \(kind(node))")
            return nil
        }
        var channel = ChannelDraft(line: line(node))
        var hasName = false
        let logStart = log.entries.count

        for (keyNode, value) in mapping {
            let key = scalarText(keyNode) ?? ""
            let at = line(value)
            if isNull(value), key != "name", key != "source", key != "sources" { continue }
            switch key {
            case "number":
                guard let text = scalarText(value) else {
                    log.error(at, "`number` must be a number such as 7 or \"9.1\"; found \(kind(value))")
                    continue
                }
                if let number = ChannelNumber(text) {
                    channel.number = Located(value: number, line: at)
                } else {
                    log.error(at, "`number` \"\(text)\" is not a channel number (write e.g. 7 or \"9.1\")")
                }
            case "name":
                hasName = true  // Any problem with it is reported here.
                if let name = string(value, key: key, log: &log), !name.isEmpty {
                    channel.name = name
                } else if isNull(value) || scalarText(value) != nil {
                    log.error(at, "`name` is empty")
                }
            case "id":
                if let id = string(value, key: key, log: &log), !id.isEmpty {
                    channel.id = id
                    channel.idOrigin = .explicit
                }
            case "source":
                if let url = string(value, key: key, log: &log) {
                    channel.sources.append(Located(value: url, line: at))
                }
            case "sources":
                guard case .sequence(let list) = value else {
                    log.error(at, "`sources` must be a list of URLs (primary first, then backups); found \(kind(value))")
                    continue
                }
                for item in list {
                    if let url = string(item, key: "sources", log: &log) {
                        channel.sources.append(Located(value: url, line: line(item)))
                    }
                }
            case "logo": readLogo(value, into: &channel, log: &log)
            case "group": channel.group = nonEmpty(string(value, key: key, log: &log))
            case "rating": channel.contentRating = nonEmpty(string(value, key: key, log: &log))
            case "guide": channel.guideID = nonEmpty(string(value, key: key, log: &log))
            case "interstitial": channel.interstitial = nonEmpty(string(value, key: key, log: &log))
            case "language": channel.language = nonEmpty(string(value, key: key, log: &log))
            case "country": channel.country = nonEmpty(string(value, key: key, log: &log))
            case "favourite", "favorite": channel.isFavourite = bool(value, key: key, log: &log)
            case "hidden": channel.isHidden = bool(value, key: key, log: &log)
            case "radio": channel.isRadio = bool(value, key: key, log: &log)
            case "options": channel.options = readOptions(value, log: &log)
            case "linear-breaks": channel.attributes[key] = bool(value, key: key, log: &log) ? "true" : "false"; continue
            case "breaks": readBreaks(value, into: &channel, log: &log); continue
            case "catchup": channel.attributes[key] = nonEmpty(string(value, key: key, log: &log)).map { String($0.prefix(32)) }; continue
            case "catchup-days":
                // How many days back the source keeps (kept as M3U's `catchup-days` is, for catch-up).
                if let text = scalarText(value), let days = Int(text), (1...3650).contains(days) {
                    channel.attributes[key] = String(days)
                } else {
                    log.error(at, "`catchup-days` must be a whole number of days from 1 to 3650")
                }
                continue
            case "multicast":
                guard let text = string(value, key: key, log: &log) else { continue }
                do {
                    channel.attributes[key] = try MulticastDestination(parsing: text).description
                } catch {
                    log.error(at, error.message)
                }
                continue
            default:
                log.error(line(keyNode), "unknown channel key '\(key)'\(suggestion(for: key, among: channelKeys))")
                continue
            }
            if let text = scalarText(value) { channel.attributes[key] = text }
        }

        if mapping["source"] != nil, mapping["sources"] != nil {
            log.error(channel.line, "a channel has either `source:` or `sources:`, not both")
        }
        if !hasName {
            log.error(channel.line, "channel has no `name`")
            channel.name = channel.id ?? "Channel"
        }
        if channel.sources.isEmpty, mapping["source"] == nil, mapping["sources"] == nil {
            log.error(channel.line, "channel '\(channel.name)' has no `source` (or `sources` list)")
        } else if channel.sources.isEmpty, !log.entries[logStart...].contains(where: { $0.severity == .error }) {
            log.error(channel.line, "channel '\(channel.name)' has an empty source")
        }
        return channel
    }

    /// `breaks`: one rule or a list of rules (see `BreakSchedule`); kept as `;`-joined text.
    private static func readBreaks(_ node: Node, into channel: inout ChannelDraft, log: inout DiagnosticLog) {
        var rules: [String] = []
        if case .sequence(let list) = node {
            for item in list { if let text = string(item, key: "breaks", log: &log) { rules.append(text) } }
        } else if let text = string(node, key: "breaks", log: &log) {
            rules.append(text)
        }
        let text = rules.joined(separator: "; ")
        do {
            _ = try BreakSchedule(parsing: text)
            channel.attributes["breaks"] = text
        } catch {
            log.error(line(node), error.message)
        }
    }

    private static func readOptions(_ node: Node, log: inout DiagnosticLog) -> [ChannelOption] {
        guard case .mapping(let mapping) = node else {
            log.error(line(node), "`options` must be a mapping of option names to values; found \(kind(node))")
            return []
        }
        var options: [ChannelOption] = []
        for (keyNode, value) in mapping {
            let key = scalarText(keyNode) ?? ""
            guard let text = scalarText(value) else {
                log.error(line(value), "option '\(key)' must be a single value; found \(kind(value))")
                continue
            }
            options.append(ChannelOption(kind: .native, key: key, value: text))
        }
        return options
    }

    /// A text or a list of texts, each with its line.
    private static func readLocatedStrings(_ node: Node, key: String, log: inout DiagnosticLog) -> [Located<String>] {
        if isNull(node) { return [] }
        let items: [Node]
        if case .sequence(let list) = node { items = Array(list) } else { items = [node] }
        return items.compactMap { item in
            string(item, key: key, log: &log).flatMap { $0.isEmpty ? nil : Located(value: $0, line: line(item)) }
        }
    }

    // MARK: Scalars

    private static func string(_ node: Node, key: String, log: inout DiagnosticLog) -> String? {
        if isNull(node) { return nil }
        guard let text = scalarText(node) else {
            log.error(line(node), "`\(key)` must be text; found \(kind(node))")
            return nil
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    private static func bool(_ node: Node, key: String, log: inout DiagnosticLog) -> Bool {
        let quoted = scalarText(node).flatMap { text -> Bool? in
            switch text.lowercased() {
            case "true", "yes", "on": true
            case "false", "no", "off": false
            default: nil
            }
        }
        guard let value = node.bool ?? quoted else {
            let found = scalarText(node).map { "\"\($0)\"" } ?? kind(node)
            log.error(line(node), "`\(key)` must be true or false; found \(found)")
            return false
        }
        return value
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    private static func scalarText(_ node: Node) -> String? {
        if case .scalar(let scalar) = node { return scalar.string }
        return nil
    }

    private static func isNull(_ node: Node) -> Bool {
        if case .scalar(let scalar) = node { return scalar.style == .plain && NSNull.construct(from: scalar) != nil }
        return false
    }

    private static func line(_ node: Node) -> Int { node.mark?.line ?? 0 }

    private static func kind(_ node: Node) -> String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let scalar): "\"\(scalar.string)\""
        case .alias: "an alias"
        }
    }

    // MARK: Messages

    /// `; did you mean 'favourite'?` when a known key is one or two edits away.
    static func suggestion(for key: String, among known: [String]) -> String {
        let best = known
            .map { ($0, editDistance(key.lowercased(), $0)) }
            .min { $0.1 < $1.1 }
        if let best, best.1 <= 2, best.1 < key.count {
            return "; did you mean '\(best.0)'?"
        }
        return " (known keys: \(known.joined(separator: ", ")))"
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The line and a one-line message for a Yams error.
    private static func describe(_ error: YamlError, in text: String) -> (Int, String) {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let contextText = context.map { "\($0.text) (line \($0.mark.line)), " } ?? ""
            return (mark.line, "\(contextText)\(problem)")
        case .reader(let problem, let offset, _, _):
            guard let offset else { return (1, problem) }
            let utf8 = Array(text.utf8)
            let end = min(max(offset, 0), utf8.count)
            return (1 + utf8[..<end].filter { $0 == 0x0A }.count, problem)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return (context.mark.line, "a key appears twice in the same mapping: \(keys)")
        default:
            return (1, "\(error)")
        }
    }
}
