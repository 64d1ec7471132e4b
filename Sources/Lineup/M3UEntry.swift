import Foundation

/// One channel of an extended M3U playlist as written, read by the lineup's own M3U reader but
/// not yet numbered or checked as a whole: what a source that answers a playlist (a Tvheadend
/// server) makes a lineup of its own from.
public struct M3UEntry: Sendable, Hashable {
    public var name: String
    /// The stream URL as written.
    public var url: String
    /// `tvg-chno` (or `channel-number`) when it is a channel number.
    public var number: ChannelNumber?
    /// `tvg-id`.
    public var guideID: String?
    /// `tvg-logo`, else a `logo` that is neither on nor off.
    public var logo: String?
    /// `group-title`, else `#EXTGRP`.
    public var group: String?
    /// The line of its `#EXTINF` (or of its URL, without one).
    public var line: Int

    /// The entries of `text`, and the problems the reader found in it (each with its line).
    public static func read(_ text: String, file: String) -> (entries: [M3UEntry], problems: [LineupDiagnostic]) {
        var log = DiagnosticLog(file: file)
        let draft = M3UParser.parse(text, log: &log)
        let entries = draft.channels.compactMap { channel -> M3UEntry? in
            guard let url = channel.sources.first?.value else { return nil }
            return M3UEntry(name: channel.name, url: url, number: channel.number?.value, guideID: channel.guideID,
                            logo: channel.logo?.value, group: channel.group, line: channel.line)
        }
        return (entries, log.sorted)
    }
}
