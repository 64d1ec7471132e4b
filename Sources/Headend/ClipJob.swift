import Foundation
import Lineup

/// A clip being written or written: what was asked, where it stands, and its file once done.
public struct ClipJob: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Codable { case writing, done, failed }

    public var id: String
    public var channel: ChannelNumber
    public var format: ClipContainer
    /// Cut at the asked times (the partial GOPs at the ends re-encoded), not at keyframes.
    public var exact = false
    /// The range asked for (wall clock).
    public var from: Date
    public var to: Date
    public var state: State
    /// 0...1.
    public var progress: Double
    /// The clip's length (from the keyframe it starts at, or from the asked start when exact),
    /// once done.
    public var duration: Double?
    public var bytes: Int?
    /// Why it failed.
    public var error: String?
    public var created: Date
    /// Seconds from the request to the file complete.
    public var writeSeconds: Double?

    /// The file name the download suggests: `channel-7-20261122T201500Z.mp4`.
    public var fileName: String {
        "channel-\(channel)-\(Self.stamp.format(from)).\(format.rawValue)"
    }

    private static let stamp = Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted)

    enum CodingKeys: String, CodingKey { case id, channel, format, exact, from, to, state, progress, duration, bytes, error, created, writeSeconds, fileName }

    public init(id: String, channel: ChannelNumber, format: ClipContainer, from: Date, to: Date, created: Date) {
        self.id = id
        self.channel = channel
        self.format = format
        self.from = from
        self.to = to
        state = .writing
        progress = 0
        self.created = created
    }

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys) throws -> Date { try Self.time.parse(try c.decode(String.self, forKey: key)) }
        self.init(id: try c.decode(String.self, forKey: .id), channel: try c.decode(ChannelNumber.self, forKey: .channel),
                  format: try c.decode(ClipContainer.self, forKey: .format), from: try date(.from), to: try date(.to), created: try date(.created))
        exact = try c.decodeIfPresent(Bool.self, forKey: .exact) ?? false
        state = try c.decode(State.self, forKey: .state)
        progress = try c.decode(Double.self, forKey: .progress)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        bytes = try c.decodeIfPresent(Int.self, forKey: .bytes)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        writeSeconds = try c.decodeIfPresent(Double.self, forKey: .writeSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(channel, forKey: .channel)
        try c.encode(format, forKey: .format)
        try c.encode(exact, forKey: .exact)
        try c.encode(Self.time.format(from), forKey: .from)
        try c.encode(Self.time.format(to), forKey: .to)
        try c.encode(state, forKey: .state)
        try c.encode((progress * 1000).rounded() / 1000, forKey: .progress)
        try c.encodeIfPresent(duration.map { ($0 * 1000).rounded() / 1000 }, forKey: .duration)
        try c.encodeIfPresent(bytes, forKey: .bytes)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encode(Self.time.format(created), forKey: .created)
        try c.encodeIfPresent(writeSeconds.map { ($0 * 1000).rounded() / 1000 }, forKey: .writeSeconds)
        try c.encode(fileName, forKey: .fileName)
    }
}

/// Why a clip cannot be made.
public typealias ClipFailure = Failure<ClipFailureCode>

public enum ClipFailureCode: String, FailureCode {
    /// A malformed request or a range outside the buffer (HTTP 400).
    case badRange
    /// The channel has no timeshift buffer (HTTP 409).
    case notBuffered
    /// No such channel or clip (HTTP 404).
    case unknown
    /// A codec the muxers cannot take (HTTP 409).
    case unsupported
    /// The muxer or the disk failed (HTTP 500).
    case writing
    /// The channel or a programme in the range is locked by the parental rules (HTTP 403).
    case locked

    public var kind: FailureKind {
        switch self {
        case .badRange: .badRequest
        case .unknown: .notFound
        case .notBuffered, .unsupported: .conflict
        case .writing: .internalFailure
        case .locked: .forbidden
        }
    }
}
