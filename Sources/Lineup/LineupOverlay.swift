import Foundation

/// Where a lineup's channels come from when a YAML lineup names a source instead of listing them.
public enum LineupSourceReference: Sendable, Hashable {
    /// `lineup: URL`: a playlist URL, `hdhomerun://…`, `xtream://USER@HOST` (read as the command
    /// line's lineup argument is).
    case argument(String)
    /// `xtream: {server, username, password-file}`; `passwordFile` absolute.
    case xtream(server: String, username: String, passwordFile: String)
    /// `tvheadend: {server, username, password-file, profile, streams}` (no user: the server's
    /// anonymous one); `passwordFile` absolute.
    case tvheadend(server: String, username: String?, passwordFile: String?, profile: String?, streams: Int?)
}

/// A YAML lineup that names its source (`lineup:`, `xtream:` or `tvheadend:`) and adds what is the box's own:
/// its settings, more guides, its pools (over the source's: a user may give a box fewer of an
/// account's connections than the account has), and the groups it keeps.
///
/// ```yaml
/// lineup: xtream://viewer@panel.example:8080
/// groups: [News, Sports]
/// guide: https://epg.example/guide.xml.gz
/// pools:
///   - {name: My IPTV, match: "http://panel.example:8080/", streams: 1}
/// settings:
///   start: 101
/// ```
public struct LineupOverlay: Sendable {
    public var source: LineupSourceReference
    /// The overlay file's absolute path.
    public var file: String
    /// Its path as given, for messages.
    public var name: String
    /// The overlay's own problems; with an error among them it cannot be used.
    public var diagnostics: [LineupDiagnostic]
    var draft: LineupDraft

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

extension LineupLoader {
    /// The lineup file at `path` when it names its source instead of listing channels; nil when
    /// it is an ordinary lineup (M3U, or YAML with `channels:`), or cannot be read (`check(path:)`
    /// says why).
    public static func overlay(path: String) -> LineupOverlay? {
        guard case .success(let (data, absolute)) = read(path: path),
              case .success(let text) = LineupText.decode(data) else { return nil }
        let format = LineupFormat(path: path) ?? LineupFormat(sniffing: text)
        // Only YAML with a top-level `lineup:`, `xtream:` or `tvheadend:` is parsed here;
        // everything else is an ordinary lineup, read by `check(path:)`.
        guard format == .yaml, text.range(of: #"(?m)^(lineup|xtream|tvheadend)[ \t]*:"#, options: .regularExpression) != nil else { return nil }
        var log = DiagnosticLog(file: path)
        let draft = YAMLLineupParser.parse(text, log: &log)
        guard let source = draft.source?.value else { return nil }
        // The overlay's own setting names: those a provider's playlist carries are not warned about.
        for key in draft.settings.keys.sorted() where !LineupSettings.isKnown(key) {
            log.warning(draft.settingLines[key] ?? 0, "unknown setting '\(key)', ignored\(YAMLLineupParser.suggestion(for: key, among: LineupSettings.names))")
        }
        // Files the overlay names are its directory's.
        let directory = (absolute as NSString).deletingLastPathComponent
        var resolved = source
        switch source {
        case .xtream(let server, let username, let passwordFile):
            resolved = .xtream(server: server, username: username,
                               passwordFile: LogoResolution.absolutePath(passwordFile, baseDirectory: directory))
        case .tvheadend(let server, let username, let passwordFile, let profile, let streams):
            resolved = .tvheadend(server: server, username: username,
                                  passwordFile: passwordFile.map { LogoResolution.absolutePath($0, baseDirectory: directory) },
                                  profile: profile, streams: streams)
        case .argument(let named) where named.lowercased().hasPrefix("file://"):
            resolved = .argument(LogoResolution.absolutePath(String(named.dropFirst("file://".count)), baseDirectory: directory))
        case .argument(let named) where !named.contains("://"):
            resolved = .argument(LogoResolution.absolutePath(named, baseDirectory: directory))
        case .argument:
            break
        }
        return LineupOverlay(source: resolved, file: absolute, name: path, diagnostics: log.sorted, draft: draft)
    }

    /// Checks `text`, the lineup `overlay`'s source gave (`file` names the source in messages),
    /// with the overlay over it: its settings over the source's, its guides after the source's,
    /// its pools instead of the source's of the same `match`, only its groups kept.
    /// `sourceTellsLimits`: the source's pools are its word (tuners, connections), not the lineup's.
    public static func check(text: String, file: String, format: LineupFormat?, overlay: LineupOverlay,
                             sourceTellsLimits: Bool) -> LineupReport {
        var log = DiagnosticLog(file: file)
        var overlayLog = DiagnosticLog(file: overlay.name)
        let chosen = format ?? LineupFormat(sniffing: text)
        var draft: LineupDraft = switch chosen {
        case .m3u: M3UParser.parse(text, log: &log)
        case .yaml: YAMLLineupParser.parse(text, log: &log)
        }
        let mine = overlay.draft
        if sourceTellsLimits {
            for index in draft.pools.indices where draft.pools[index].streams != nil { draft.pools[index].toldBySource = true }
        }
        draft.pools = mine.pools + draft.pools.filter { theirs in !mine.pools.contains { $0.match == theirs.match } }

        if !mine.groups.isEmpty {
            let kept = Set(mine.groups.map { $0.value.lowercased() })
            let present = Set(draft.channels.compactMap { $0.group?.lowercased() })
            for group in mine.groups where !present.contains(group.value.lowercased()) {
                let named = draft.channels.compactMap(\.group).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                let some = named.prefix(8).joined(separator: ", ") + (named.count > 8 ? ", …" : "")
                overlayLog.warning(group.line, "the source has no group '\(group.value)'\(named.isEmpty ? " (its channels have no groups)" : "; it has \(some)")")
            }
            // Numbered as the whole source numbers them: keeping some groups renumbers nothing.
            // (Numbering problems are the source's, said when the kept channels are numbered.)
            var quiet = DiagnosticLog(file: file)
            for (index, number) in ChannelNumbering.assign(draft.channels, log: &quiet).enumerated() where draft.channels[index].number == nil {
                draft.channels[index].number = Located(value: number, line: draft.channels[index].line)
            }
            let before = draft.channels.count
            draft.channels.removeAll { !kept.contains(($0.group ?? "").lowercased()) }
            if draft.channels.isEmpty, before > 0 {
                overlayLog.error(mine.groups[0].line, "`groups` keeps none of the source's \(before) channels")
            }
        }

        // The source's settings (an M3U header's) under the overlay's; their lines are the
        // source's, so they are said without one.
        var lines = mine.settingLines
        for key in draft.settings.keys where mine.settings[key] == nil { lines[key] = 0 }
        draft.settings = draft.settings.merging(mine.settings) { _, own in own }
        draft.settingLines = lines
        draft.namesSettings = false  // the overlay's names are checked in `overlay(path:)`
        draft.logoDefaults = draft.logoDefaults.overridden(by: mine.logoDefaults)
        // The source's relative paths (a lineup file's logos) are its own directory's; the
        // overlay's guide files are the overlay's.
        let own = (overlay.file as NSString).deletingLastPathComponent
        let directory = file.hasPrefix("/") ? (file as NSString).deletingLastPathComponent : own
        let mineGuides = mine.guideURLs.map { written in
            written.value.contains("://") ? written : Located(value: LogoResolution.absolutePath(written.value, baseDirectory: own), line: written.line)
        }
        draft.guideURLs = draft.guideURLs.map { Located(value: $0.value, line: 0) } + mineGuides
        draft.settingsFile = overlay.name

        var lineup = LineupAssembler.assemble(draft, file: file, baseDirectory: directory, log: &log)
        log.append(overlayLog)
        if log.hasErrors { lineup = nil }
        lineup?.file = overlay.file
        // The overlay's own lines first, in order, then the source's.
        let all = (overlay.diagnostics + log.sorted).enumerated().sorted {
            ($0.element.file == overlay.name ? 0 : 1, $0.element.file == overlay.name ? $0.element.line : 0, $0.offset)
                < ($1.element.file == overlay.name ? 0 : 1, $1.element.file == overlay.name ? $1.element.line : 0, $1.offset)
        }
        return LineupReport(lineup: lineup, diagnostics: all.map(\.element))
    }
}

extension LineupLoader {
    /// `data` (a playlist read from a URL or a file) as lineup text: UTF-8, its BOM dropped; a
    /// message naming `file` and the line of the first bad byte otherwise.
    public static func text(_ data: Data, file: String) throws(LineupError) -> String {
        switch LineupText.decode(data) {
        case .success(let text): return text
        case .failure(let problem): throw LineupError(file: file, line: problem.line, problem.message)
        }
    }

    /// The text of the lineup file at `path` (read with `check(path:)`'s limits), and its absolute path.
    public static func text(path: String) throws(LineupError) -> (text: String, absolute: String) {
        switch read(path: path) {
        case .failure(let failure): throw LineupError(diagnostics: failure.report.diagnostics)
        case .success(let (data, absolute)): return (try text(data, file: path), absolute)
        }
    }
}
