import Foundation

/// Turns a parser's draft into a `Lineup`: validates sources, resolves logos,
/// numbers channels, makes ids unique and warns about duplicate names.
enum LineupAssembler {
    /// The lineup, or nil when `log` holds an error afterwards.
    static func assemble(_ draft: LineupDraft, file: String, baseDirectory: String, log: inout DiagnosticLog) -> Lineup? {
        if let source = draft.source {
            // Read only through a command that reads sources (`LineupLoader.overlay(path:)`).
            log.error(source.line, "this lineup takes its channels from a source, which only play, serve, doctor and `lineup check` read")
            return nil
        }
        if draft.channels.isEmpty {
            if !log.hasErrors { log.error(0, "the lineup has no channels") }
            return nil
        }

        let numbers = ChannelNumbering.assign(draft.channels, log: &log)
        let ids = ChannelIdentifiers.assign(draft.channels, numbers: numbers, log: &log)
        var firstLineOfName: [String: Int] = [:]
        var channels: [Channel] = []
        let defaults = draft.logoDefaults
        let catchupDefaults = draft.settings.filter { CatchupSource.attributeNames.contains($0.key) }

        for (index, draft) in draft.channels.enumerated() {
            var sources: [String] = []
            for source in draft.sources {
                switch SourceValidation.check(source.value, baseDirectory: baseDirectory) {
                case .valid(let url, let warning):
                    sources.append(url)
                    if let warning { log.warning(source.line, warning) }
                case .invalid(let message):
                    log.error(source.line, message)
                }
            }

            var logo: LogoReference?
            if let written = draft.logo, !written.value.isEmpty {
                switch LogoResolution.resolve(written.value, baseDirectory: baseDirectory) {
                case .logo(let reference, let warning):
                    logo = reference
                    if let warning { log.warning(written.line, warning) }
                case .ignored(let message):
                    log.warning(written.line, "channel \(String(String.UnicodeScalarView(draft.name.unicodeScalars.filter { !Self.isControl($0) }))): \(message)")
                }
            }

            // Names and groups reach terminals and logs: control characters (a terminal escape
            // such as ESC [2J) are left out, and the lineup is told.
            var draft = draft
            for (field, value) in [("name", draft.name), ("group", draft.group ?? "")] where value.unicodeScalars.contains(where: Self.isControl) {
                let clean = String(String.UnicodeScalarView(value.unicodeScalars.filter { !Self.isControl($0) }))
                log.warning(draft.line, "the channel \(field) '\(clean)' contained control characters (a terminal escape?); they are left out")
                if field == "name" { draft.name = clean } else { draft.group = clean }
            }

            // Catch-up: the `#EXTM3U` header's attributes are every channel's defaults.
            if draft.attributes["catchup"] == nil, draft.attributes["catchup-source"] == nil {
                for key in CatchupSource.attributeNames where draft.attributes[key] == nil {
                    if let value = catchupDefaults[key] { draft.attributes[key] = value }
                }
            }
            if case .failure(let problem)? = CatchupSource.read(draft.attributes) {
                log.warning(draft.line, "channel \(draft.name): \(problem); it has no catch-up")
            }

            if let line = firstLineOfName[draft.name] {
                log.warning(draft.line, "duplicate channel name '\(draft.name)' (also on line \(line))")
            } else {
                firstLineOfName[draft.name] = draft.line
            }

            channels.append(Channel(
                id: ids[index], number: numbers[index], name: draft.name, sources: sources,
                logo: logo, logoStyle: defaults.overridden(by: draft.logoStyle), group: draft.group, guideID: draft.guideID,
                contentRating: draft.contentRating, interstitial: draft.interstitial,
                language: draft.language, country: draft.country, isRadio: draft.isRadio,
                isFavourite: draft.isFavourite, isHidden: draft.isHidden,
                options: draft.options, attributes: draft.attributes,
                location: SourceLocation(file: file, line: draft.line)))
        }

        // The settings and guides of a lineup that names its source are its own file's lines.
        var settingsLog = DiagnosticLog(file: draft.settingsFile ?? file)
        var guides: [String] = []
        for written in draft.guideURLs {
            switch GuideReference.resolve(written.value, baseDirectory: baseDirectory) {
            case .guide(let guide, let warning):
                if !guides.contains(guide) { guides.append(guide) }
                if let warning { settingsLog.warning(written.line, warning) }
            case .invalid(let message):
                settingsLog.error(written.line, message)
            }
        }
        var guideRefresh: Duration? = GuideReference.defaultRefresh
        if let text = draft.settings["guide-refresh"] {
            switch GuideReference.refresh(text) {
            case .success(let interval): guideRefresh = interval
            case .failure(let error): settingsLog.error(draft.settingLines["guide-refresh"] ?? 0, error.message)
            }
        }

        let settings = LineupSettings(written: draft.settings, lines: draft.settingLines, channels: Set(numbers),
                                      log: &settingsLog, warnsUnknown: draft.namesSettings)
        log.append(settingsLog)

        if log.hasErrors { return nil }
        var lineup = Lineup(channels: channels, guideURLs: guides, guideRefresh: guideRefresh, file: file, settings: settings)
        lineup.pools = draft.pools
        return lineup
    }

    /// C0 controls, DEL and C1 controls: what a terminal may act on.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
