import FlipboxCore
import Headend
import Recordings
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

/// How the target was reached: already decoding, from its GOP cache, or by connecting.
public typealias FlipPath = Headend.Path

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

/// A channel with its live state, as `GET /api/v1/channels` lists it.
public struct ChannelStatus: Sendable, Hashable {
    public var channel: Channel
    public var state: ChannelState
    /// What the channel carries (video format, audio tracks); nil when not known.
    public var media: ChannelMedia?
    /// What is on it now and next, from the guide; nil without a guide.
    public var programmes: NowNext?
    /// Why its content is locked now (parental rules, a locked channel); nil when it is not.
    public var lock: String?
    public init(channel: Channel, state: ChannelState, media: ChannelMedia? = nil, programmes: NowNext? = nil, lock: String? = nil) {
        self.channel = channel
        self.state = state
        self.media = media
        self.programmes = programmes
        self.lock = lock
    }
}

/// The output format that never changes while playing.
public struct OutputFormat: Sendable, Hashable, Codable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// `kms`, `window` or `headless`.
    public var sink: String
    public init(width: Int, height: Int, fps: Int, sink: String) {
        self.width = width
        self.height = height
        self.fps = fps
        self.sink = sink
    }
}

/// A snapshot of the player for `GET /api/v1/status`.
public struct PlayerStatus: Sendable, Hashable {
    public var channel: Channel?
    public var output: OutputFormat
    public var uptime: Duration
    public var lastFlip: FlipResult?
    /// What the process holds (pipelines, open files, memory); nil when not measured.
    public var resources: ProcessResources?
    /// What is on the channel on screen now and next; nil without a channel.
    public var programmes: NowNext?
    /// What the channel on screen carries (video format, audio tracks, the one playing).
    public var media: ChannelMedia?
    /// Why the channel on screen is locked, while its lock card is up; nil otherwise.
    public var lock: String?
    /// The pools of rationed streams: limits, where they came from, who holds each stream.
    public var pools: [PoolStatus]
    public init(channel: Channel?, output: OutputFormat, uptime: Duration, lastFlip: FlipResult?,
                resources: ProcessResources? = nil, programmes: NowNext? = nil, media: ChannelMedia? = nil, lock: String? = nil,
                pools: [PoolStatus] = []) {
        self.pools = pools
        self.programmes = programmes
        self.media = media
        self.lock = lock
        self.channel = channel
        self.output = output
        self.uptime = uptime
        self.lastFlip = lastFlip
        self.resources = resources
    }
}

/// Everything that happens, for the event stream and the log.
public enum PlayerEvent: Sendable, Hashable {
    case flipStarted(requestID: RequestID, request: FlipRequest, target: ChannelSummary?)
    case flipRetargeted(requestID: RequestID, target: ChannelSummary)
    case flipCompleted(FlipResult)
    case channelState(channel: ChannelSummary, state: ChannelState)
    /// An interstitial card went on screen for a request: `kind` is `tuning`, `no-signal` or `locked`.
    case cardShown(requestID: RequestID, channel: ChannelSummary, kind: String)
    /// The card gave way to the channel's picture (or to the channel flipped back to).
    case cardHidden(requestID: RequestID, channel: ChannelSummary)
    /// The channel on screen moved in time: paused, resumed, sought or back to live.
    case timeshift(TimeshiftStatus)
    /// Locked content: the lock card holds the screen on `channel` (PIN entry applies).
    case lockShown(channel: ChannelSummary, reason: String)
    /// The lock card on `channel` gave way (an unlock, or a flip elsewhere).
    case lockHidden(channel: ChannelSummary)
    /// The programme on the channel on screen changed (a boundary in the guide, not a flip).
    case programmeChanged(channel: ChannelSummary, now: ProgrammeSummary?, next: ProgrammeSummary?)
    /// A reminded programme starts on `channel`: "TITLE starts now on N — OK to watch" is up.
    case proposalShown(channel: ChannelSummary, title: String)
    /// The proposal went (accepted, dismissed, timed out).
    case proposalHidden(channel: ChannelSummary)
    /// A clip was asked for, moved on, was written or failed (see `ClipLibrary`).
    case clip(ClipJob)
    /// A recording started, stopped, failed or was deleted, or the schedule has a conflict.
    case recording(RecordingNotice)
}
