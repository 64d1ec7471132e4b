import Foundation
import Lineup
import Recordings

/// The recordings with a file as an extended M3U playlist and as JSON: per recording its name
/// (`Title - S01E02 - Subtitle (2026-11-27 20:00)`, the time in the box's zone), the
/// programme's icon as `tvg-logo` (when it is a web address), its channel as `group-title`, and
/// its URL on this head-end (`/recordings/{id}`, the id percent-encoded), newest first. Pure.
enum RecordingExport {
    /// One recording that can be served: its file and the bytes in it now.
    struct Entry {
        var recording: Recording
        /// The channel's name in the lineup (`Channel 7` when the lineup has no such channel).
        var channelName: String
        var bytes: Int64
    }

    static func m3u(_ entries: [Entry], baseURL: String, query: String, timeZone: TimeZone) -> String {
        var text = "#EXTM3U\n"
        for entry in entries {
            var attributes = [("tvg-name", name(entry.recording.programme, timeZone: timeZone))]
            if let icon = webAddress(entry.recording.programme.icon) { attributes.append(("tvg-logo", icon)) }
            attributes.append(("group-title", entry.channelName))
            let fields = attributes.map { "\($0.0)=\"\(LineupExport.attributeValue($0.1))\"" }.joined(separator: " ")
            text += "#EXTINF:\(duration(entry.recording)) \(fields),\(LineupExport.singleLine(attributes[0].1))\n"
            text += "\(baseURL)\(path(entry.recording.id))\(query)\n"
        }
        return text
    }

    /// An entry of `/recordings.json`.
    struct Item: Encodable {
        var id: String
        var name: String
        var title: String
        var subTitle: String?
        var episode: String?
        var description: String?
        var icon: String?
        var channel: String
        var channelName: String
        /// ISO 8601, with the padding.
        var start: String
        var stop: String
        var state: String
        var bytes: Int64
        var url: String
    }

    static func items(_ entries: [Entry], baseURL: String, query: String, timeZone: TimeZone) -> [Item] {
        entries.map { entry in
            let r = entry.recording, p = r.programme
            return Item(id: r.id.rawValue, name: name(p, timeZone: timeZone), title: p.title, subTitle: p.subTitle,
                        episode: p.episode?.label, description: p.description, icon: webAddress(p.icon),
                        channel: r.channel.description, channelName: entry.channelName,
                        start: r.paddedStart.formatted(.iso8601), stop: r.paddedEnd.formatted(.iso8601),
                        state: r.state.rawValue, bytes: entry.bytes, url: "\(baseURL)\(path(r.id))\(query)")
        }
    }

    /// `Title - S01E02 - Subtitle (2026-11-27 20:00)`, leaving out what is unknown.
    static func name(_ programme: ProgrammeData, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: programme.start)
        func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return "\(programme.label) (\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)))"
    }

    /// `/recordings/{id}`, the id with everything but unreserved characters percent-encoded
    /// (ids hold `:` and `@`, which some players read as a user name in a URL).
    static func path(_ id: RecordingID) -> String {
        "/recordings/\(id.rawValue.addingPercentEncoding(withAllowedCharacters: unreserved) ?? id.rawValue)"
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Seconds written (the parts' spans), or -1 while the recording is being written.
    static func duration(_ recording: Recording) -> Int {
        guard recording.state != .recording else { return -1 }
        let seconds = recording.parts.reduce(0.0) { $0 + max(0, ($1.end ?? $1.lastWrite).timeIntervalSince($1.start)) }
        return seconds.isFinite && seconds > 0 && seconds < 1e9 ? Int(seconds.rounded()) : -1
    }

    /// The guide's icon when another screen can fetch it (an http or https URL).
    static func webAddress(_ icon: String?) -> String? {
        guard let icon, let scheme = URL(string: icon)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return icon
    }
}
