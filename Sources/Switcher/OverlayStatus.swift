import FlipboxCore
import Lineup

/// Why an overlay request cannot be done, for the person asking.
public typealias OverlayError = Failure<OverlayFailureCode>

public enum OverlayFailureCode: String, FailureCode {
    /// No channel with that number.
    case unknownChannel
    /// A value out of range (grid, size, corner).
    case badValue
    /// The overlay is not open (swap without a PiP, select without a multiview).
    case notOpen
    /// The channel cannot be decoded (the headend's reason).
    case failed
    /// The channel's content is locked (parental rules): it is not shown in a window either.
    case locked

    public var kind: FailureKind {
        switch self {
        case .unknownChannel: .notFound
        case .badValue: .badRequest
        case .notOpen: .conflict
        case .failed: .upstream
        case .locked: .forbidden
        }
    }
}

/// Whether the info banner is up, for which channel, and in which form.
public struct BannerStatus: Sendable, Hashable, Codable {
    public var shown: Bool
    public var channel: ChannelSummary?
    /// `short` or `long` (with the programme's description) while it is up; nil when it is not.
    public var form: Form?

    public enum Form: String, Sendable, Hashable, Codable {
        case short, long
    }

    public init(shown: Bool, channel: ChannelSummary?, form: Form? = nil) {
        self.shown = shown
        self.channel = channel
        self.form = form ?? (shown ? .short : nil)
    }
}

/// The picture-in-picture window: open or not, its channel, corner and size.
public struct PiPStatus: Sendable, Hashable, Codable {
    public var open: Bool
    public var channel: ChannelSummary?
    public var corner: String
    /// Width as a fraction of the output width.
    public var size: Double
    public init(open: Bool, channel: ChannelSummary?, corner: String, size: Double) {
        self.open = open
        self.channel = channel
        self.corner = corner
        self.size = size
    }
}

/// The multiview: open or not, its grid, the channels shown (row by row) and the highlighted one.
public struct MultiviewStatus: Sendable, Hashable, Codable {
    public var open: Bool
    public var grid: Int
    public var channels: [ChannelSummary]
    public var highlight: ChannelSummary?
    public init(open: Bool, grid: Int, channels: [ChannelSummary], highlight: ChannelSummary?) {
        self.open = open
        self.grid = grid
        self.channels = channels
        self.highlight = highlight
    }
}

