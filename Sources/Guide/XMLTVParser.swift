import Foundation

/// A programme as the XMLTV file gives it, before the store settles its stop time.
struct XMLTVProgramme: Sendable {
    var channel: String
    var start: Int64
    /// nil when the file gives none (or an unreadable one): the next programme's start is used.
    var stop: Int64?
    var title = ""
    var subTitle: String?
    var description: String?
    var categories: [String] = []
    var episodeXMLTVNS: String?
    var episodeOnScreen: String?
    var icon: String?
    var ratings: [Rating] = []
    var starRating: String?
    /// Where it starts in the (decompressed) file.
    var line: Int
}

/// Reads an XMLTV document node by node and hands over each `<channel>` and `<programme>` as
/// soon as it ends, so memory holds one programme at a time.
///
/// Broken XML ends the reading with an error naming the line. A programme that is well-formed
/// XML but unusable (no channel, a start that is not a time) is skipped and counted, with the
/// first few reasons kept for the person running the box.
struct XMLTVParser {
    struct Outcome: Sendable {
        var channels = 0
        var programmes = 0
        var skipped = 0
        /// `LINE: reason` for the first skipped programmes.
        var skipReasons: [String] = []
    }

    /// The most of any one text (title, description…) kept, in UTF-8 bytes; longer ones are cut
    /// and end in "…", so one enormous description costs neither memory nor space in the store.
    static let textLimit = 8192

    let name: String
    let onChannel: (GuideChannel) throws(GuideError) -> Void
    let onProgramme: (XMLTVProgramme) throws(GuideError) -> Void

    func parse(_ input: any ByteSource) throws(GuideError) -> Outcome {
        let reader = try XMLStreamReader(input: input, name: name, textLimit: Self.textLimit)
        var outcome = Outcome()
        var path: [String] = []
        var text = ""
        var textCut = false
        var attributesStack: [[String: String]] = []
        var programme: XMLTVProgramme?
        var channel: GuideChannel?
        var sawRoot = false
        var pendingRating: Rating?

        func skip(_ line: Int, _ reason: String) {
            outcome.skipped += 1
            if outcome.skipReasons.count < 5 { outcome.skipReasons.append("line \(line): \(reason)") }
        }

        func end(_ element: String) throws(GuideError) {
            let depth = path.count
            let attributes = attributesStack.last ?? [:]
            let trimmed = Self.trimmed(text)
            let value = textCut && !trimmed.isEmpty ? trimmed + "…" : trimmed
            defer {
                path.removeLast()
                attributesStack.removeLast()
                text = ""
                textCut = false
            }
            switch (depth, element) {
            case (2, "programme"):
                if let finished = programme {
                    try onProgramme(finished)
                    outcome.programmes += 1
                }
                programme = nil
            case (2, "channel"):
                if let finished = channel {
                    try onChannel(finished)
                    outcome.channels += 1
                }
                channel = nil
            case (3, "display-name") where path[1] == "channel":
                if !value.isEmpty { channel?.displayNames.append(value) }
            case (3, "title") where path[1] == "programme":
                if programme?.title.isEmpty == true { programme?.title = value }
            case (3, "sub-title") where path[1] == "programme":
                if programme?.subTitle == nil, !value.isEmpty { programme?.subTitle = value }
            case (3, "desc") where path[1] == "programme":
                if programme?.description == nil, !value.isEmpty { programme?.description = value }
            case (3, "category") where path[1] == "programme":
                if !value.isEmpty, programme?.categories.contains(value) == false { programme?.categories.append(value) }
            case (3, "episode-num") where path[1] == "programme":
                guard !value.isEmpty else { break }
                switch attributes["system"] ?? "onscreen" {
                case "xmltv_ns": programme?.episodeXMLTVNS = value
                case "onscreen": programme?.episodeOnScreen = value
                default: break
                }
            case (4, "value") where path[1] == "programme" && path[2] == "rating":
                if !value.isEmpty { pendingRating?.value = value }
            case (3, "rating") where path[1] == "programme":
                if let rating = pendingRating, !rating.value.isEmpty { programme?.ratings.append(rating) }
                pendingRating = nil
            case (4, "value") where path[1] == "programme" && path[2] == "star-rating":
                if programme?.starRating == nil, !value.isEmpty { programme?.starRating = value }
            default:
                break
            }
        }

        while let node = try reader.next() {
            switch node {
            case .start(let element, let attributes, let line):
                if path.isEmpty {
                    guard element == "tv" else {
                        throw GuideError(.badXML, "not an XMLTV guide: the document starts with <\(element)>, not <tv>",
                                         source: name, line: line)
                    }
                    sawRoot = true
                }
                text = ""
                textCut = false
                path.append(element)
                attributesStack.append(attributes)
                if path.count == 2, element == "programme" {
                    programme = startProgramme(attributes, line: line, skip: skip)
                } else if path.count == 2, element == "channel" {
                    channel = attributes["id"].flatMap { $0.isEmpty ? nil : GuideChannel(id: $0, displayNames: []) }
                    if channel == nil { skip(line, "a <channel> without an id") }
                } else if path.count == 3, element == "rating" {
                    pendingRating = Rating(system: attributes["system"].flatMap { $0.isEmpty ? nil : $0 }, value: "")
                } else if path.count == 3, element == "icon", let src = attributes["src"], !src.isEmpty {
                    if path[1] == "programme" { programme?.icon = src } else if path[1] == "channel" { channel?.icon = src }
                }
            case .text(let part, let cut):
                // One run of text comes whole (cut by the reader); runs split by comments join.
                let room = Self.textLimit - text.utf8.count
                if part.utf8.count <= room {
                    text += part
                    textCut = textCut || cut
                } else {
                    var kept = max(0, room)
                    while kept > 0, String(part.utf8.prefix(kept)) == nil { kept -= 1 }
                    text += String(part.utf8.prefix(kept)) ?? ""
                    textCut = true
                }
            case .end(let element):
                try end(element)
            }
        }
        guard sawRoot else {
            throw GuideError(.badXML, "not an XMLTV guide: the file has no <tv> element", source: name)
        }
        return outcome
    }

    /// `text` without the white space (Unicode's) at its ends; itself when there is none (no
    /// copy, no bridging: every element's text passes here).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    private func startProgramme(_ attributes: [String: String], line: Int, skip: (Int, String) -> Void) -> XMLTVProgramme? {
        guard let channel = attributes["channel"], !channel.isEmpty else {
            skip(line, "a <programme> without a channel")
            return nil
        }
        guard let startText = attributes["start"] else {
            skip(line, "a <programme> without a start time")
            return nil
        }
        guard let start = XMLTVTime.parse(startText) else {
            skip(line, "start \"\(startText)\" is not an XMLTV time (YYYYMMDDhhmmss +hhmm)")
            return nil
        }
        // A stop that cannot be read is treated as missing: the next programme's start ends it.
        let stop = attributes["stop"].flatMap(XMLTVTime.parse)
        return XMLTVProgramme(channel: channel, start: start, stop: stop, line: line)
    }
}
