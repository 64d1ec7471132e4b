import FlipboxCore
import Headend
import Recordings
import Lineup

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

extension PlayerEvent {
    /// The event a switcher's flip event is published as.
    public init(_ event: FlipEvent) {
        switch event {
        case .flipStarted(let id, let request, let target): self = .flipStarted(requestID: id, request: request, target: target)
        case .flipRetargeted(let id, let target): self = .flipRetargeted(requestID: id, target: target)
        case .cardShown(let id, let channel, let kind): self = .cardShown(requestID: id, channel: channel, kind: kind)
        case .cardHidden(let id, let channel): self = .cardHidden(requestID: id, channel: channel)
        case .lockShown(let channel, let reason): self = .lockShown(channel: channel, reason: reason)
        case .lockHidden(let channel): self = .lockHidden(channel: channel)
        }
    }
}
