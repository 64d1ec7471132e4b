import Lineup

/// What a viewer asked for.
public enum FlipRequest: Sendable, Hashable, CustomStringConvertible {
    case next
    case previous
    case tune(ChannelNumber)
    case tuneID(String)
    /// Back to the channel shown before the current one.
    case recall

    public var description: String {
        switch self {
        case .next: "next"
        case .previous: "previous"
        case .tune(let n): "tune \(n)"
        case .tuneID(let id): "tune id \(id)"
        case .recall: "recall"
        }
    }
}

/// How a flip reached its target: already decoding, from its GOP cache, or by connecting.
public enum FlipPath: String, Sendable, Hashable, Codable { case hot, warm, cold }

/// The identity of a channel as the API shows it.
public struct ChannelSummary: Sendable, Hashable, Codable {
    public var number: String
    public var name: String
    public var id: String
    public init(number: String, name: String, id: String) {
        self.number = number
        self.name = name
        self.id = id
    }
    public init(_ channel: Channel) {
        self.init(number: channel.number.description, name: channel.name, id: channel.id)
    }
}

/// Why a flip failed, for programs (the HTTP status) rather than people (`FlipResult.error`).
public enum FlipFailure: String, FailureCode, Codable {
    /// No channel with that number or id.
    case unknownChannel
    /// The target showed no picture within the tune timeout.
    case timedOut
    /// The target's source or decoder could not start.
    case sourceFailed
    /// Recall with no channel to go back to, next/previous with no channel left to visit, or a
    /// lineup without channels.
    case nothingToFlipTo
    /// The channel is locked (parental lock).
    case locked
    /// The caller stopped waiting for the result (its task was cancelled).
    case cancelled

    public var kind: FailureKind {
        switch self {
        case .unknownChannel: .notFound
        case .timedOut: .timedOut
        case .nothingToFlipTo: .conflict
        case .sourceFailed: .upstream
        case .locked: .forbidden
        case .cancelled: .abandoned
        }
    }
}

/// The single result of one flip request. Delivered exactly once per request.
public struct FlipResult: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The first output frame of `channel` reached the sink.
        case completed
        /// The flip did not happen; `error` says why.
        case failed
        /// A newer request retargeted this one before it completed.
        case superseded
    }

    public var requestID: RequestID
    public var outcome: Outcome
    /// The channel the flip ended on (or was aimed at, when it failed).
    public var channel: ChannelSummary?
    /// From the request to the first output frame of `channel` on the sink.
    public var latency: Duration?
    public var path: FlipPath?
    public var error: String?
    /// The kind of failure when `outcome` is `failed`.
    public var failure: FlipFailure?
    /// The id of the request that superseded this one.
    public var supersededBy: RequestID?
    /// Whether the interstitial card was on screen during this flip.
    public var interstitialShown: Bool

    public var ok: Bool { outcome == .completed }

    public init(
        requestID: RequestID, outcome: Outcome, channel: ChannelSummary?, latency: Duration? = nil,
        path: FlipPath? = nil, error: String? = nil, failure: FlipFailure? = nil,
        interstitialShown: Bool = false, supersededBy: RequestID? = nil
    ) {
        self.requestID = requestID
        self.outcome = outcome
        self.channel = channel
        self.latency = latency
        self.path = path
        self.error = error
        self.failure = failure ?? (outcome == .failed ? .sourceFailed : nil)
        self.supersededBy = supersededBy
        self.interstitialShown = interstitialShown
    }

    /// Latency in milliseconds, for JSON and logs.
    public var latencyMilliseconds: Double? {
        latency.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }
    }
}

/// What the switcher tells of a flip as it goes (the player publishes each as a `PlayerEvent`).
public enum FlipEvent: Sendable, Hashable {
    case flipStarted(requestID: RequestID, request: FlipRequest, target: ChannelSummary?)
    case flipRetargeted(requestID: RequestID, target: ChannelSummary)
    /// An interstitial card went on screen for a request: `kind` is `tuning`, `no-signal` or `locked`.
    case cardShown(requestID: RequestID, channel: ChannelSummary, kind: String)
    /// The card gave way to the channel's picture (or to the channel flipped back to).
    case cardHidden(requestID: RequestID, channel: ChannelSummary)
    /// Locked content: the lock card holds the screen on `channel` (PIN entry applies).
    case lockShown(channel: ChannelSummary, reason: String)
    /// The lock card on `channel` gave way (an unlock, or a flip elsewhere).
    case lockHidden(channel: ChannelSummary)
}
