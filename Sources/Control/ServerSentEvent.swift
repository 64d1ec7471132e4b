import Switcher

/// One message of a `text/event-stream`, framed as the HTML standard describes.
struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field; nil for a comment-only message.
    var name: String?
    /// The `data:` field; a value with newlines becomes several `data:` lines.
    var data: String?
    /// A `: comment` line, which clients ignore (used for keepalives).
    var comment: String?

    static let keepalive = ServerSentEvent(name: nil, data: nil, comment: "keepalive")

    init(name: String?, data: String?, comment: String? = nil) {
        self.name = name
        self.data = data
        self.comment = comment
    }

    /// The event for a player event: its name and its JSON on one `data:` line.
    init(_ event: PlayerEvent) {
        let json = PlayerEventJSON(event: event)
        self.init(name: json.name, data: JSONResponse.line(json))
    }

    /// The wire form, ending with the blank line that dispatches it.
    var encoded: String {
        var text = ""
        if let comment { text += ": \(comment)\n" }
        if let name { text += "event: \(name)\n" }
        if let data {
            for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
                text += "data: \(line)\n"
            }
        }
        return text + "\n"
    }
}
