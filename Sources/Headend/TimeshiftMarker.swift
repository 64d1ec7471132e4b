import Foundation
import Lineup

/// A point a viewer can jump to in a channel's timeshift buffer: a programme boundary from the
/// guide, a marker set over the API, or a recording's break.
public struct TimeshiftMarker: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The start of a programme in the guide.
        case programme
        /// A chapter of a file channel (once per loop of the file).
        case chapter
        /// Set over the API (`POST /api/v1/timeshift/markers`); these have an `id`.
        case set
        /// The start or end of an ad break inside a recording played back.
        case adBreak = "break"
    }

    /// Set for markers set over the API (what `DELETE` names); nil for programme boundaries.
    public var id: Int?
    public var time: Date
    public var name: String
    public var kind: Kind

    public init(id: Int? = nil, time: Date, name: String, kind: Kind) {
        self.id = id
        self.time = time
        self.name = name
        self.kind = kind
    }

    enum CodingKeys: String, CodingKey { case id, time, name, kind }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decodeIfPresent(Int.self, forKey: .id), time: try TimeshiftTime.decode(c, .time),
                  name: try c.decode(String.self, forKey: .name), kind: try c.decode(Kind.self, forKey: .kind))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(TimeshiftTime.format(time), forKey: .time)
        try c.encode(name, forKey: .name)
        try c.encode(kind, forKey: .kind)
    }
}

/// An interstitial time range (an ad break): from an SCTE-35 splice cue in the stream or from
/// the lineup's `breaks`. On a channel with `linear-breaks: true`, a forward seek does not skip
/// one the viewer has not watched.
public struct TimeshiftBreak: Sendable, Hashable, Codable {
    public typealias Origin = BreakOrigin

    public var start: Date
    public var end: Date
    /// The viewer played it through (live or from the buffer).
    public var watched: Bool
    public var origin: Origin

    public init(start: Date, end: Date, watched: Bool = false, origin: Origin) {
        self.start = start
        self.end = end
        self.watched = watched
        self.origin = origin
    }

    enum CodingKeys: String, CodingKey { case start, end, watched, origin }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(start: try TimeshiftTime.decode(c, .start), end: try TimeshiftTime.decode(c, .end),
                  watched: try c.decode(Bool.self, forKey: .watched), origin: try c.decode(Origin.self, forKey: .origin))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(TimeshiftTime.format(start), forKey: .start)
        try c.encode(TimeshiftTime.format(end), forKey: .end)
        try c.encode(watched, forKey: .watched)
        try c.encode(origin, forKey: .origin)
    }
}

/// Why a seek landed somewhere else than asked.
public struct TimeshiftAdjustment: Sendable, Hashable, Codable {
    public enum Reason: String, Sendable, Hashable, Codable {
        /// Before the oldest moment held: moved to it.
        case beforeBuffer
        /// Past the live edge: live.
        case pastLive
        /// It would have skipped a break not yet watched (`linear-breaks`): moved to its start.
        case unwatchedBreak
    }

    /// The moment asked for.
    public var requested: Date
    public var reason: Reason
    /// For the person: what happened and the range that holds.
    public var message: String

    public init(requested: Date, reason: Reason, message: String) {
        self.requested = requested
        self.reason = reason
        self.message = message
    }

    enum CodingKeys: String, CodingKey { case requested, reason, message }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(requested: try TimeshiftTime.decode(c, .requested), reason: try c.decode(Reason.self, forKey: .reason),
                  message: try c.decode(String.self, forKey: .message))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(TimeshiftTime.format(requested), forKey: .requested)
        try c.encode(reason, forKey: .reason)
        try c.encode(message, forKey: .message)
    }
}

/// Timeshift times in JSON: ISO 8601 with milliseconds, whatever the coder's date strategy.
enum TimeshiftTime {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func format(_ date: Date) -> String { style.format(date) }

    static func decode<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Date {
        try style.parse(try c.decode(String.self, forKey: key))
    }
}
