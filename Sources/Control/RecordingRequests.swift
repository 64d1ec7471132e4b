import Foundation
import Guide
import Lineup
import Recordings

/// Why a recording or rule request cannot be used: a 400 (or 404 for an unknown channel) whose
/// message names the field.
enum RecordingRequestCode: FailureCode {
    case badField
    case unknownChannel
    var kind: FailureKind { self == .unknownChannel ? .notFound : .badRequest }
}
typealias RecordingRequestError = Failure<RecordingRequestCode>

/// `POST /api/v1/recordings`: one of
/// - `{"channel": "5", "programme": "2026-11-22T20:00:00Z"}`: the programme starting then;
/// - `{"programmeId": "5@1795000000"}`: a programme by its guide id;
/// - `{"channel": "5", "start": "…", "end": "…", "title": "Match"}`: a time range, exactly.
/// Optional: `priority` (-1000…1000), `padding: {"before": "1m", "after": "3m"}` (or seconds).
struct RecordingRequest: Decodable {
    var channel: String?
    var programme: String?
    var programmeId: String?
    var start: String?
    var end: String?
    var title: String?
    var priority: Int?
    var padding: PaddingRequest?

    /// The longest title or id a request may carry.
    static let textLimit = 200

    func oneOff(lineup: Lineup, id: RecordingID) throws(RecordingRequestError) -> OneOffRequest {
        let padding = try self.padding?.value() ?? .standard
        let priority = self.priority ?? 0
        if let programmeId {
            guard channel == nil, programme == nil, start == nil, end == nil else {
                throw RecordingRequestError(.badField, "give programmeId alone, or channel with programme, or channel with start and end")
            }
            guard !programmeId.isEmpty, programmeId.count <= Self.textLimit else {
                throw RecordingRequestError(.badField, "programmeId must be 1 to \(Self.textLimit) characters")
            }
            return OneOffRequest(id: id, target: .programme(id: programmeId), priority: priority, padding: padding)
        }
        guard let text = channel else {
            throw RecordingRequestError(.badField, #"the body must name a channel: {"channel": "5", "programme": "2026-11-22T20:00:00Z"}, or {"channel": "5", "start": "…", "end": "…"} for a time range"#)
        }
        guard let number = ChannelNumber(text), lineup.channel(number: number) != nil else {
            throw RecordingRequestError(.unknownChannel, "there is no channel \(text)")
        }
        if let programme {
            guard start == nil, end == nil else {
                throw RecordingRequestError(.badField, "give programme (its start) or start and end for a time range, not both")
            }
            let at = try Self.time(programme, "programme")
            return OneOffRequest(id: id, target: .programmeAt(channel: number, start: at), priority: priority, padding: padding)
        }
        guard let start, let end else {
            throw RecordingRequestError(.badField, "a recording on channel \(text) needs programme (the programme's start), or start and end (a time range)")
        }
        let from = try Self.time(start, "start"), to = try Self.time(end, "end")
        guard to > from else { throw RecordingRequestError(.badField, "end \(end) is not after start \(start)") }
        guard to.timeIntervalSince(from) <= 24 * 3600 else {
            throw RecordingRequestError(.badField, "a time range may be 24 hours at most; \(start) to \(end) is longer")
        }
        if let title, title.count > Self.textLimit {
            throw RecordingRequestError(.badField, "title must be at most \(Self.textLimit) characters")
        }
        guard self.padding == nil else {
            throw RecordingRequestError(.badField, "a time range is recorded exactly as asked: leave out padding, or widen start and end")
        }
        return OneOffRequest(id: id, target: .timeRange(channel: number, start: from, end: to, title: title), priority: priority, padding: .none)
    }

    static func time(_ text: String, _ field: String) throws(RecordingRequestError) -> Date {
        guard text.count <= 40, let date = GuideTime.parse(text) else {
            throw RecordingRequestError(.badField, "\(field) '\(text.prefix(40))' is not a time in ISO 8601, such as 2026-11-22T20:00:00Z")
        }
        return date
    }
}

/// `{"before": "1m", "after": "3m"}` or seconds; both optional (default 1 and 3 minutes).
struct PaddingRequest: Decodable {
    var before: DurationValue?
    var after: DurationValue?

    func value() throws(RecordingRequestError) -> Padding {
        let padding = Padding(before: try before?.seconds("padding.before") ?? Padding.standard.before,
                              after: try after?.seconds("padding.after") ?? Padding.standard.after)
        do { try padding.validate(source: "padding") } catch { throw RecordingRequestError(.badField, error.message) }
        return padding
    }
}

/// A duration written `90s`, `1m`, `1h30m`, or a number of seconds.
enum DurationValue: Decodable {
    case text(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Double.self) { self = .number(n) } else { self = .text(try c.decode(String.self)) }
    }

    func seconds(_ field: String) throws(RecordingRequestError) -> TimeInterval {
        switch self {
        case .number(let n):
            guard n.isFinite, n >= 0, n <= Padding.maximum else {
                throw RecordingRequestError(.badField, "\(field) must be 0 to \(Int(Padding.maximum)) seconds")
            }
            return n
        case .text(let text):
            guard let d = Duration(compact: text) else {
                throw RecordingRequestError(.badField, "\(field) '\(text.prefix(40))' is not a duration such as 90s, 1m or 1h30m")
            }
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
    }
}

/// `POST /api/v1/recording-rules`:
/// `{"title": "News", "match": "exact"|"pattern", "channel": "5", "days": ["mon", "fri"],
/// "window": {"from": "19:00", "to": "23:00"}, "newOnly": true, "keep": 5, "priority": 0,
/// "padding": {"before": "1m", "after": "3m"}, "id": "news"}`; only `title` is needed.
struct RecordingRuleRequest: Decodable {
    struct Window: Decodable { var from: String, to: String }

    var id: String?
    var title: String?
    var match: String?
    var channel: String?
    var days: [String]?
    var window: Window?
    var newOnly: Bool?
    var keep: Int?
    var priority: Int?
    var padding: PaddingRequest?

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    func rule(lineup: Lineup, id generated: RuleID) throws(RecordingRequestError) -> RecordingRule {
        guard let title, !title.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RecordingRequestError(.badField, #"the body must give the title to look for: {"title": "News"} (add "match": "pattern" for a regular expression)"#)
        }
        guard title.count <= RecordingRequest.textLimit else {
            throw RecordingRequestError(.badField, "title must be at most \(RecordingRequest.textLimit) characters")
        }
        let matching: TitleMatch
        switch match ?? "exact" {
        case "exact": matching = .exact(title)
        case "pattern": matching = .pattern(title)
        case let other: throw RecordingRequestError(.badField, "match must be exact or pattern, not '\(other.prefix(40))'")
        }
        var number: ChannelNumber?
        if let channel {
            guard let n = ChannelNumber(channel), lineup.channel(number: n) != nil else {
                throw RecordingRequestError(.unknownChannel, "there is no channel \(channel)")
            }
            number = n
        }
        var weekdays = Set<Weekday>()
        for day in days ?? [] {
            guard let i = Self.dayNames.firstIndex(of: String(day.lowercased().prefix(3))), day.count <= 9,
                  let weekday = Weekday(rawValue: i + 1) else {
                throw RecordingRequestError(.badField, "day '\(day.prefix(20))' is not one of mon, tue, wed, thu, fri, sat, sun")
            }
            weekdays.insert(weekday)
        }
        let window = try self.window.map { w throws(RecordingRequestError) in
            TimeWindow(startMinute: try Self.minute(w.from, "window.from"), endMinute: try Self.minute(w.to, "window.to"))
        }
        let ruleID: RuleID
        if let id {
            guard (1...64).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                throw RecordingRequestError(.badField, "id '\(id.prefix(70))' must be 1 to 64 letters, digits, '-', '_' or '.'")
            }
            ruleID = RuleID(id)
        } else {
            ruleID = generated
        }
        return RecordingRule(id: ruleID, title: matching, channel: number, days: weekdays, window: window,
                             newEpisodesOnly: newOnly ?? false, keepLatest: keep, priority: priority ?? 0,
                             padding: try padding?.value() ?? .standard)
    }

    /// `19:00` → 1140.
    static func minute(_ text: String, _ field: String) throws(RecordingRequestError) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
              let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m) else {
            throw RecordingRequestError(.badField, "\(field) '\(text.prefix(20))' is not a time of day such as 19:00")
        }
        return h * 60 + m
    }
}
