import Lineup

/// The lineup as an extended M3U playlist for other players and for another Flipbox: one entry
/// per visible channel with `tvg-id`, `tvg-name`, `tvg-chno`, `tvg-logo` (served by this head-end
/// at `/logos/...`), `group-title` and `radio`, pointing at `/stream/{number}.ts`, and the
/// guide's URL in the header when there is a guide. Pure.
enum LineupExport {
    static func m3u(_ lineup: Lineup, baseURL: String, hasGuide: Bool) -> String {
        var text = hasGuide ? "#EXTM3U url-tvg=\"\(baseURL)/guide.xml\"\n" : "#EXTM3U\n"
        for channel in lineup.listedChannels where !channel.isHidden {
            var attributes = [
                ("tvg-id", channel.id), ("tvg-name", channel.name), ("tvg-chno", channel.number.description),
            ]
            if let path = logoPath(channel) { attributes.append(("tvg-logo", "\(baseURL)\(path)")) }
            if let group = channel.group { attributes.append(("group-title", group)) }
            if channel.isRadio { attributes.append(("radio", "true")) }
            let fields = attributes.map { "\($0.0)=\"\(attributeValue($0.1))\"" }.joined(separator: " ")
            text += "#EXTINF:-1 \(fields),\(singleLine(channel.name))\n\(baseURL)/stream/\(channel.number).ts\n"
        }
        return text
    }

    /// Where this head-end serves `channel`'s logo (`/logos/{id}.{ext}`), nil without one.
    static func logoPath(_ channel: Channel) -> String? {
        guard let logo = channel.logo else { return nil }
        let name: String
        switch logo {
        case .file(let path): name = path
        case .remote(let url): name = url.path
        }
        let ext = name.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        let known = ["png", "jpg", "jpeg", "svg", "gif", "webp"]
        return "/logos/\(pathSafe(channel.id)).\(known.contains(ext) ? ext : "png")"
    }

    /// The channel id as one URL path segment.
    static func pathSafe(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#", "%"])) ?? id
    }

    /// M3U attribute values have no escapes: a double quote would end the value.
    static func attributeValue(_ text: String) -> String {
        singleLine(text).replacingOccurrences(of: "\"", with: "'")
    }

    static func singleLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }
}
