import Foundation

/// Plain-text rendering of a lineup for `flipbox lineup check`.
public enum LineupTable {
    /// Longer source URLs are shortened with `…` in the table.
    public static let maximumSourceWidth = 60

    /// One row per channel in number order, columns No, Name, Group, Source, Logo, ID,
    /// aligned by character count; ends with a newline.
    public static func render(_ lineup: Lineup) -> String {
        let header = ["No", "Name", "Group", "Source", "Logo", "ID"]
        let rows = lineup.channels.map { channel in
            [
                channel.number.description,
                channel.name,
                channel.group ?? "",
                source(channel),
                channel.logoStyle.isShown == false ? "off" : logo(channel.logo),
                channel.id,
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : pair.0 + String(repeating: " ", count: pair.1 - pair.0.count)
            }
            .joined(separator: "  ")
        }
        var lines = [line(header), line(widths.map { String(repeating: "-", count: $0) })]
        lines += rows.map(line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `N channels, M groups, guide: URL, URL` (or `guide: none`).
    public static func summary(_ lineup: Lineup) -> String {
        let count = lineup.channels.count
        let groups = Set(lineup.channels.compactMap(\.group)).count
        let guide = lineup.guideURLs.isEmpty ? "none" : lineup.guideURLs.joined(separator: ", ")
        var lines = ["\(count) channel\(count == 1 ? "" : "s"), \(groups) group\(groups == 1 ? "" : "s"), guide: \(guide)"]
        for pool in lineup.pools {
            let limit = pool.streams.map { "\($0) stream\($0 == 1 ? "" : "s")" + (pool.toldBySource ? " (told by the source)" : "") } ?? "limit learned"
            lines.append("pool \(pool.name): \(limit), sources starting \(pool.match)")
        }
        return lines.joined(separator: "\n")
    }

    private static func source(_ channel: Channel) -> String {
        guard let primary = channel.sources.first.map(SourceText.shown) else { return "" }
        let shown = primary.count > maximumSourceWidth ? String(primary.prefix(maximumSourceWidth - 1)) + "…" : primary
        let backups = channel.sources.count - 1
        switch backups {
        case 0: return shown
        case 1: return shown + " (+1 backup)"
        default: return shown + " (+\(backups) backups)"
        }
    }

    private static func logo(_ logo: LogoReference?) -> String {
        switch logo {
        case .none: "no"
        case .file: "yes"
        case .remote: "remote"
        }
    }
}
