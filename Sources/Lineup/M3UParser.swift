import Foundation

/// Reads extended M3U as IPTV playlists write it into a `LineupDraft`.
///
/// Understands `#EXTM3U` header attributes, `#EXTINF`, `#EXTVLCOPT`, `#KODIPROP`
/// and `#EXTGRP`; ignores other `#` lines. Tolerates blank lines, bare URL
/// entries and a missing header. Never fails: problems go to the log.
enum M3UParser {
    /// Header attributes that name XMLTV guides (comma-separated lists allowed).
    static let guideAttributes: Set<String> = ["url-tvg", "x-tvg-url"]

    static func parse(_ text: String, log: inout DiagnosticLog) -> LineupDraft {
        var draft = LineupDraft()
        var pending: ChannelDraft?
        var pendingOptions: [Located<ChannelOption>] = []
        var pendingGroup: String?

        for (index, raw) in LineupText.lines(text).enumerated() {
            let lineNumber = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\u{FEFF}")))
            if line.isEmpty { continue }

            guard line.hasPrefix("#") else {
                var channel = pending ?? ChannelDraft(line: lineNumber)
                channel.sources = [Located(value: line, line: lineNumber)]
                channel.options += pendingOptions.map(\.value)
                if channel.group == nil { channel.group = pendingGroup }
                if channel.name.isEmpty { channel.name = fallbackName(for: channel, url: line) }
                draft.channels.append(channel)
                pending = nil
                pendingOptions = []
                pendingGroup = nil
                continue
            }

            let (directive, rest) = split(line)
            switch directive {
            case "#EXTM3U":
                readHeader(rest, line: lineNumber, into: &draft, log: &log)
            case "#EXTINF":
                if let unfinished = pending {
                    log.error(unfinished.line, "#EXTINF has no URL: line \(lineNumber) starts another #EXTINF")
                }
                pending = readEXTINF(rest, line: lineNumber, log: &log)
            case "#EXTVLCOPT", "#KODIPROP":
                let kind: ChannelOption.Kind = directive == "#EXTVLCOPT" ? .vlc : .kodi
                if let option = readOption(rest, kind: kind) {
                    pendingOptions.append(Located(value: option, line: lineNumber))
                } else {
                    log.warning(lineNumber, "empty \(directive) line ignored")
                }
            case "#EXTGRP":
                let group = rest.trimmingCharacters(in: .whitespaces)
                if !group.isEmpty { pendingGroup = group }
            default:
                continue  // Comments and directives we do not use (#EXT-X-*, #PLAYLIST, ...).
            }
        }

        if let unfinished = pending {
            log.error(unfinished.line, "#EXTINF has no URL after it (the file ends first)")
        } else if let stray = pendingOptions.first {
            log.warning(stray.line, "option '\(stray.value.key)' is not followed by a channel and is ignored")
        }
        return draft
    }

    /// `#EXTINF:-1 a="b",Name` -> (`#EXTINF`, `-1 a="b",Name`); directive upper-cased.
    private static func split(_ line: String) -> (String, Substring) {
        let end = line.firstIndex { $0 == ":" || $0.isWhitespace } ?? line.endIndex
        let directive = line[..<end].uppercased()
        var rest = line[end...]
        if rest.first == ":" { rest = rest.dropFirst() }
        return (directive, rest)
    }

    private static func readHeader(_ rest: Substring, line: Int, into draft: inout LineupDraft, log: inout DiagnosticLog) {
        let header = M3UAttributeLine(rest, isHeader: true)
        for problem in header.errors { log.error(line, "malformed #EXTM3U header: \(problem)") }
        for problem in header.warnings { log.warning(line, "#EXTM3U header: \(problem)") }
        for attribute in header.attributes {
            let value = attribute.value.trimmingCharacters(in: .whitespaces)
            if value.isEmpty { continue }
            if guideAttributes.contains(attribute.key) {
                for url in value.split(separator: ",") {
                    let url = url.trimmingCharacters(in: .whitespaces)
                    if !url.isEmpty, !draft.guideURLs.contains(where: { $0.value == url }) {
                        draft.guideURLs.append(Located(value: url, line: line))
                    }
                }
            } else if draft.settings[attribute.key] == nil {
                draft.settings[attribute.key] = value
                draft.settingLines[attribute.key] = line
                if let option = LogoStyle.Option(attribute: attribute.key) {
                    if option == .show, LogoStyle.onOff(value) == nil {
                        // Some playlists name the playlist's own picture so; it is not ours to show.
                        log.warning(line, "#EXTM3U logo=\"\(value)\" ignored: logo= takes on or off")
                    } else if let problem = draft.logoDefaults.set(option, text: value, name: "#EXTM3U \(attribute.key)") {
                        log.error(line, problem)
                    }
                }
            }
        }
    }

    private static func readEXTINF(_ rest: Substring, line: Int, log: inout DiagnosticLog) -> ChannelDraft {
        let info = M3UAttributeLine(rest, isHeader: false)
        for problem in info.errors { log.error(line, "malformed #EXTINF: \(problem)") }
        for problem in info.warnings { log.warning(line, "#EXTINF: \(problem)") }

        var channel = ChannelDraft(line: line)
        channel.attributes = info.nonEmptyAttributes
        channel.name = info.name ?? ""
        if let tvgID = info.value("tvg-id") {
            channel.id = tvgID
            channel.idOrigin = .guide
            channel.guideID = tvgID
        }
        if let logo = info.value("tvg-logo") { channel.logo = Located(value: logo, line: line) }
        readLogoOptions(info, into: &channel, line: line, log: &log)
        if let text = info.value("tvg-chno") ?? info.value("channel-number") {
            if let number = ChannelNumber(text) {
                channel.number = Located(value: number, line: line)
            } else {
                log.error(line, "tvg-chno \"\(text)\" is not a channel number (write e.g. 7 or 9.1)")
            }
        }
        channel.group = info.value("group-title")
        channel.language = info.value("tvg-language")
        channel.country = info.value("tvg-country")
        if let multicast = info.value("multicast") {
            do { _ = try MulticastDestination(parsing: multicast) } catch { log.error(line, error.message) }
        }
        if let radio = info.value("radio") {
            channel.isRadio = ["true", "1", "yes"].contains(radio.lowercased())
        }
        return channel
    }

    /// `logo="off"` (or `on`), `logo-corner`, `logo-size`, `logo-margin`, `logo-opacity`. A `logo`
    /// that is neither on nor off is taken as the image when there is no `tvg-logo`.
    private static func readLogoOptions(_ info: M3UAttributeLine, into channel: inout ChannelDraft, line: Int, log: inout DiagnosticLog) {
        for option in LogoStyle.Option.allCases {
            guard let text = info.value(option.attribute) else { continue }
            if option == .show, LogoStyle.onOff(text) == nil {
                if channel.logo == nil {
                    channel.logo = Located(value: text, line: line)
                } else {
                    log.warning(line, "logo=\"\(text)\" ignored: the image is tvg-logo; logo= takes on or off")
                }
                continue
            }
            if let problem = channel.logoStyle.set(option, text: text, name: option.attribute) { log.error(line, problem) }
        }
    }

    /// `key=value` (value may be empty); nil for an empty line.
    private static func readOption(_ rest: Substring, kind: ChannelOption.Kind) -> ChannelOption? {
        let text = rest.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        guard let equals = text.firstIndex(of: "=") else {
            return ChannelOption(kind: kind, key: text, value: "")
        }
        return ChannelOption(
            kind: kind,
            key: text[..<equals].trimmingCharacters(in: .whitespaces),
            value: text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces))
    }

    /// The name of an entry whose `#EXTINF` gave none: `tvg-name`, else the URL's host, else the URL.
    private static func fallbackName(for channel: ChannelDraft, url: String) -> String {
        if let tvgName = channel.attributes["tvg-name"] { return tvgName }
        if let host = URLComponents(string: url)?.host, !host.isEmpty { return host }
        return url
    }
}
