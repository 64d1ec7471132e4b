import Foundation
import Guide
import Lineup
import Parental

/// The parental locks on what leaves the box through the head-end: the same rules as the screen
/// (`parental:`, `locked:`; judged by `ParentalRules.lockReason`, the one judgement of a lock),
/// applied to `/stream`, `/auto`, `/tuner`, HLS and multicast. The rule for served clients: a
/// locked channel or programme is refused to everyone but a client that sends the serve token,
/// who is trusted like the box's owner. A PIN unlock on the screen unlocks the screen only.
public struct ServeLocks: Sendable {
    public var rules: ParentalRules
    public var lockedChannels: Set<ChannelNumber>

    public init(rules: ParentalRules = ParentalRules(), lockedChannels: Set<ChannelNumber> = []) {
        self.rules = rules
        self.lockedChannels = lockedChannels
    }

    /// Whether anything can be locked.
    public var isActive: Bool { rules.isActive || !lockedChannels.isEmpty }
}

/// Judges served channels by `ServeLocks` and the guide's programme on now. An answer is kept
/// until the programme ends (or the next begins), at most `recheck` seconds, so a stream of
/// thousands of chunks asks the guide a few times a minute. Thread-safe.
public final class ServeLockJudge: @unchecked Sendable {
    /// Answers are looked at again at least this often (a refreshed guide may change them).
    static let recheck: TimeInterval = 10

    let locks: ServeLocks
    private let guide: Guide?
    private let lock = NSLock()
    private var answers: [String: (reason: String?, until: Date)] = [:]

    public init(locks: ServeLocks, guide: Guide?) {
        self.locks = locks
        self.guide = guide
    }

    /// Why `channel` is locked at `instant`, or nil when it may be served.
    public func reason(for channel: Channel, at instant: Date = Date()) -> String? {
        guard locks.isActive else { return nil }
        if let answer = lock.withLock({ answers[channel.id] }), answer.until > instant, answer.until.timeIntervalSince(instant) <= Self.recheck {
            return answer.reason
        }
        var until = instant.addingTimeInterval(Self.recheck)
        var ratings: [ContentRating] = []
        if locks.rules.isActive, let guide {
            let on = guide.nowNext(channelID: channel.id, at: instant)
            if let now = on.now {
                ratings = now.ratings.map { ContentRating(system: $0.system, value: $0.value) }
                if now.stop > instant { until = min(until, now.stop) }
            } else if let next = on.next, next.start > instant {
                until = min(until, next.start)
            }
        }
        let reason = locks.rules.lockReason(channelLocked: locks.lockedChannels.contains(channel.number), programme: ratings,
                                            channel: channel.contentRating.map { ContentRating(system: nil, value: $0) })
        lock.withLock { answers[channel.id] = (reason, until) }
        return reason
    }

    /// Throws `locked` when `channel` is locked now and the request did not send the serve token.
    func check(_ channel: Channel, context: ServeRequestContext) throws(ServeError) {
        guard !context.authenticated, let reason = reason(for: channel) else { return }
        throw ServeError.locked(channel, reason: reason)
    }
}

extension ServeError {
    /// A locked channel or programme, refused to a client without the serve token.
    static func locked(_ channel: Channel, reason: String) -> ServeError {
        var error = ServeError(.locked, """
            channel \(channel.number) \(channel.name) is locked (\(reason)): the head-end serves locked content only to \
            clients that send the serve token (Authorization: Bearer, or ?token= in the URL)
            """)
        error.channel = channel.number.description
        error.reason = reason
        return error
    }
}
