import FlipboxCore
import Foundation
import Lineup
import Switcher

// The JSON bodies of the control API. Field names are camelCase; absent values are `null`, never omitted.

/// `{"number","name","id"}`.
struct ChannelJSON: Encodable, Sendable {
    var number: String
    var name: String
    var id: String

    init(_ summary: ChannelSummary) {
        number = summary.number
        name = summary.name
        id = summary.id
    }

    init(_ channel: Channel) { self.init(ChannelSummary(channel)) }
}

/// One flip result: the body of every flip endpoint, `lastFlip` in the status, and the `flip-completed` event.
struct FlipResultJSON: Encodable, Sendable {
    var result: FlipResult

    enum CodingKeys: String, CodingKey {
        case ok, requestId, outcome, channel, latencyMs, path, error, failure, supersededBy, interstitialShown
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(result.ok, forKey: .ok)
        try c.encode(result.requestID, forKey: .requestId)
        try c.encode(result.outcome, forKey: .outcome)
        try c.encode(result.channel.map(ChannelJSON.init), forKey: .channel)
        try c.encode(result.latencyMilliseconds.map { ($0 * 10).rounded() / 10 }, forKey: .latencyMs)
        try c.encode(result.path, forKey: .path)
        try c.encode(result.error, forKey: .error)
        try c.encode(result.failure?.rawValue, forKey: .failure)
        try c.encode(result.supersededBy, forKey: .supersededBy)
        try c.encode(result.interstitialShown, forKey: .interstitialShown)
    }
}

/// `GET /api/v1/status`.
struct StatusJSON: Encodable, Sendable {
    var status: PlayerStatus

    enum CodingKeys: String, CodingKey { case channel, output, uptimeSeconds, lastFlip, resources, now, next, locked, pools }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status.channel.map(ChannelJSON.init), forKey: .channel)
        try c.encode(status.output, forKey: .output)
        try c.encode(status.uptime.components.seconds, forKey: .uptimeSeconds)
        try c.encode(status.lastFlip.map(FlipResultJSON.init), forKey: .lastFlip)
        try c.encodeIfPresent(status.resources, forKey: .resources)
        try c.encode(status.programmes?.now.map(ProgrammeJSON.init), forKey: .now)
        try c.encode(status.programmes?.next.map(ProgrammeJSON.init), forKey: .next)
        try MediaKeys.encode(status.media, into: encoder)
        try c.encode(status.lock, forKey: .locked)
        try c.encode(status.pools, forKey: .pools)
    }
}

/// One entry of `GET /api/v1/channels`.
struct ChannelStatusJSON: Encodable, Sendable {
    var status: ChannelStatus

    enum CodingKeys: String, CodingKey { case number, name, id, group, logo, state, detail, reason, sources, thumbnail, favourite, hidden, now, next, locked }

    func encode(to encoder: any Encoder) throws {
        let channel = status.channel
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channel.number.description, forKey: .number)
        try c.encode(channel.name, forKey: .name)
        try c.encode(channel.id, forKey: .id)
        try c.encode(channel.group, forKey: .group)
        try c.encode(channel.logo?.description, forKey: .logo)
        try c.encode(status.state.tier.rawValue, forKey: .state)
        try c.encode(status.state.description, forKey: .detail)
        try c.encode(status.state.reason, forKey: .reason)
        try c.encode(channel.sources.count, forKey: .sources)
        // Only warm and playing channels have a recent keyframe to show; radio has none.
        let picture = status.state.tier.hasPicture && status.media?.radio != true
        let path = channel.number.description.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? channel.number.description
        try c.encode(picture ? "/api/v1/channels/\(path)/thumbnail.jpg" : nil, forKey: .thumbnail)
        try c.encode(channel.isFavourite, forKey: .favourite)
        try c.encode(channel.isHidden, forKey: .hidden)
        try c.encode(status.programmes?.now.map(ProgrammeJSON.init), forKey: .now)
        try c.encode(status.programmes?.next.map(ProgrammeJSON.init), forKey: .next)
        try c.encode(status.lock, forKey: .locked)
        try MediaKeys.encode(status.media, into: encoder)
    }
}

/// `GET /api/v1/channels`.
struct ChannelListJSON: Encodable, Sendable {
    var channels: [ChannelStatusJSON]
}

/// `{"error": "message"}`, the body of every error response.
struct ErrorJSON: Encodable, Sendable {
    var error: String
}

/// The `data:` of one server-sent event, and its `event:` name.
struct PlayerEventJSON: Encodable, Sendable {
    var event: PlayerEvent

    /// `flip-started`, `flip-retargeted`, `flip-completed`, `channel-state`, `card-shown`, `card-hidden`,
    /// `lock-shown`, `lock-hidden`, `programme-changed`, `proposal-shown`, `proposal-hidden`, `timeshift`, `clip`,
    /// or `recording-started`, `-stopped`, `-failed`, `-deleted`, `-conflict`.
    var name: String {
        switch event {
        case .flipStarted: "flip-started"
        case .flipRetargeted: "flip-retargeted"
        case .flipCompleted: "flip-completed"
        case .channelState: "channel-state"
        case .cardShown: "card-shown"
        case .cardHidden: "card-hidden"
        case .timeshift: "timeshift"
        case .lockShown: "lock-shown"
        case .lockHidden: "lock-hidden"
        case .programmeChanged: "programme-changed"
        case .proposalShown: "proposal-shown"
        case .proposalHidden: "proposal-hidden"
        case .clip: "clip"
        case .recording(let notice): RecordingNoticeJSON(notice: notice).name
        }
    }

    enum CodingKeys: String, CodingKey {
        case requestId, request, target, channel, state, detail, reason, kind, now, next, title
    }

    func encode(to encoder: any Encoder) throws {
        switch event {
        case .flipStarted(let requestID, let request, let target):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(requestID, forKey: .requestId)
            try c.encode(request.description, forKey: .request)
            try c.encode(target.map(ChannelJSON.init), forKey: .target)
        case .flipRetargeted(let requestID, let target):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(requestID, forKey: .requestId)
            try c.encode(ChannelJSON(target), forKey: .target)
        case .flipCompleted(let result):
            try FlipResultJSON(result: result).encode(to: encoder)
        case .channelState(let channel, let state):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ChannelJSON(channel), forKey: .channel)
            try c.encode(state.tier.rawValue, forKey: .state)
            try c.encode(state.description, forKey: .detail)
            try c.encode(state.reason, forKey: .reason)
        case .cardShown(let requestID, let channel, let kind):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(requestID, forKey: .requestId)
            try c.encode(ChannelJSON(channel), forKey: .channel)
            try c.encode(kind, forKey: .kind)
        case .cardHidden(let requestID, let channel):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(requestID, forKey: .requestId)
            try c.encode(ChannelJSON(channel), forKey: .channel)
        case .timeshift(let status):
            try status.encode(to: encoder)
        case .clip(let job):
            try job.encode(to: encoder)
        case .recording(let notice):
            try RecordingNoticeJSON(notice: notice).encode(to: encoder)
        case .lockShown(let channel, let reason):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ChannelJSON(channel), forKey: .channel)
            try c.encode(reason, forKey: .reason)
        case .lockHidden(let channel), .proposalHidden(let channel):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ChannelJSON(channel), forKey: .channel)
        case .programmeChanged(let channel, let now, let next):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ChannelJSON(channel), forKey: .channel)
            try c.encode(now.map(ProgrammeJSON.init), forKey: .now)
            try c.encode(next.map(ProgrammeJSON.init), forKey: .next)
        case .proposalShown(let channel, let title):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ChannelJSON(channel), forKey: .channel)
            try c.encode(title, forKey: .title)
        }
    }
}

/// A programme in `/api/v1/status` (`now`, `next`): times in ISO 8601.
struct ProgrammeJSON: Encodable, Sendable {
    var title: String
    var start: String
    var end: String
    var description: String?
    var rating: String?

    init(_ p: ProgrammeSummary) {
        let iso = ISO8601DateFormatter()
        title = p.title
        start = iso.string(from: p.start)
        end = iso.string(from: p.end)
        description = p.description
        rating = p.rating
    }
}

/// `GET /api/v1/output`: what the display showed since the start. Times are ISO 8601 with
/// milliseconds; lengths in milliseconds (gaps) and seconds (still pictures).
struct OutputReportJSON: Encodable, Sendable {
    var framesShown: Int
    var framesRepeated: Int
    var longestGapMs: Double
    var gapsOver100Ms: Int
    var gaps: [GapJSON]
    var longestStillSeconds: Double
    var stills: [StillJSON]

    struct GapJSON: Encodable, Sendable {
        var at: String
        var ms: Double
        var channel: String?
        enum CodingKeys: CodingKey { case at, ms, channel }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(at, forKey: .at)
            try c.encode(ms, forKey: .ms)
            try c.encode(channel, forKey: .channel)
        }
    }

    struct StillJSON: Encodable, Sendable {
        var channel: String?
        var from: String
        var seconds: Double
        var ongoing: Bool
        enum CodingKeys: CodingKey { case channel, from, seconds, ongoing }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(channel, forKey: .channel)
            try c.encode(from, forKey: .from)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(ongoing, forKey: .ongoing)
        }
    }

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    init(_ report: OutputReport) {
        framesShown = report.framesShown
        framesRepeated = report.framesRepeated
        longestGapMs = (report.longestGap.milliseconds * 10).rounded() / 10
        gapsOver100Ms = report.gapCount
        gaps = report.gaps.map { GapJSON(at: Self.time.format($0.at), ms: ($0.length.milliseconds * 10).rounded() / 10, channel: $0.channel?.description) }
        longestStillSeconds = (report.longestStill.seconds * 1000).rounded() / 1000
        stills = report.stills.map {
            StillJSON(channel: $0.channel?.description, from: Self.time.format($0.from), seconds: ($0.length.seconds * 1000).rounded() / 1000, ongoing: $0.ongoing)
        }
    }
}
