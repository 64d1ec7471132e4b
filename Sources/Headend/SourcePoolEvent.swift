import Foundation
import Synchronization

/// What a channel's ingest tells its pool: a stream opening, the server refusing one, the
/// server ending one that delivered, data flowing on a new one. The head-end counts and learns
/// from them (`PoolLearning`); the ingest itself only reports.
public enum SourcePoolEvent: Sendable, Hashable {
    case opening(url: String)
    /// `retryAfter`: how long the server asked to be left alone (its `Retry-After`), bounded.
    case refused(url: String, reason: String, retryAfter: Duration? = nil)
    case ended(url: String)
    case delivering(url: String)
    /// The box closed its stream (the server may take a moment to free the slot).
    case closed(url: String)
}

/// Where a channel's source sends its pool events: set once by whoever owns the pools (the
/// head-end), called on the media thread. Any thread.
final class SourcePoolEvents: Sendable {
    private let handler = Mutex<(@Sendable (SourcePoolEvent) -> Void)?>(nil)

    func set(_ body: @escaping @Sendable (SourcePoolEvent) -> Void) { handler.withLock { $0 = body } }

    func send(_ event: SourcePoolEvent) { handler.withLock { $0 }?(event) }
}

/// Whether a channel's reconnect in the background (the channel is not on screen) may connect
/// now: its ingest asks when the reconnect falls due, and the head-end answers for the pool
/// (`PoolAttempts`). Nil: go (the attempt is counted); else when to ask again. Media thread.
final class SourceAttemptGate: Sendable {
    typealias Answer = @Sendable (_ url: String, _ now: ContinuousClock.Instant) -> ContinuousClock.Instant?
    private let handler = Mutex<Answer?>(nil)

    func set(_ body: @escaping Answer) { handler.withLock { $0 = body } }

    func ask(url: String, at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        handler.withLock { $0 }?(url, now)
    }
}

/// Whether a source's error is the server refusing a stream because all of its streams are in
/// use: HTTP 503 (an HDHomeRun with every tuner busy, `X-HDHomeRun-Error: 805`), 429, 453 or 509
/// (bandwidth or connection limits of IPTV panels), RTSP 453 (not enough bandwidth). Read from
/// the response `souphttpsrc` reports before its error (status and headers), else from
/// GStreamer's message: `souphttpsrc` puts `Service Unavailable (503), URL: …` in its debug text.
/// An HDHomeRun's 503 with another error (`806 Tune Failed`, `807 No Video Data`) is the
/// channel's failure, not its pool's.
enum SourceRefusal {
    static let statuses: Set<Int> = [429, 453, 503, 509]
    /// The HDHomeRun error that means every tuner is in use.
    static let allTunersInUse = 805
    /// The longest `Retry-After` taken from a server (beyond it, the box's own backoff rules).
    static let maxRetryAfter: Duration = .seconds(3600)

    /// An HTTP source's response, as the ingest saw it before the error.
    struct Response: Sendable, Hashable {
        var status: Int
        var headers: [String: String]

        /// The HDHomeRun error code and text (`805 All Tuners In Use`), when the server sent one.
        var deviceError: (code: Int, text: String)? {
            guard let value = headers["x-hdhomerun-error"]?.trimmingCharacters(in: .whitespaces) else { return nil }
            let digits = value.prefix { $0.isASCII && $0.isNumber }
            guard (1...4).contains(digits.count), let code = Int(digits) else { return nil }
            return (code, value)
        }

        /// Whether the response refuses for want of a free stream.
        var isRefusal: Bool {
            guard SourceRefusal.statuses.contains(status) else { return false }
            guard let device = deviceError else { return true }
            return device.code == SourceRefusal.allTunersInUse
        }

        /// How long the server asked to be left alone, bounded; nil without a readable `Retry-After`.
        func retryAfter(now: Date = Date()) -> Duration? {
            headers["retry-after"].flatMap { SourceRefusal.retryAfter($0, now: now) }
        }
    }

    /// The refusing status in an error's text or debug text; nil for any other error.
    static func status(text: String, debug: String?) -> Int? {
        for candidate in [debug ?? "", text] {
            if let status = httpStatus(in: candidate), statuses.contains(status) { return status }
        }
        if text.localizedCaseInsensitiveContains("not enough bandwidth") { return 453 }
        return nil
    }

    /// `… (503), URL: …` -> 503.
    static func httpStatus(in text: String) -> Int? {
        guard let marker = text.range(of: "), URL:") else { return nil }
        let before = text[..<marker.lowerBound]
        guard let open = before.lastIndex(of: "(") else { return nil }
        let digits = before[before.index(after: open)...]
        guard digits.count == 3, digits.allSatisfy(\.isASCII), let n = Int(digits) else { return nil }
        return n
    }

    /// `Retry-After` (RFC 9110): whole seconds, or an HTTP date; bounded to `maxRetryAfter`, and
    /// a date in the past is no wait. Nil for anything else.
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            // Up to 12 digits always fit; anything past an hour is an hour.
            let seconds = Int(text) ?? Int.max
            return .seconds(min(seconds, Int(maxRetryAfter.components.seconds)))
        }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard text.count <= 40, let date = format.date(from: text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds.isFinite else { return nil }
        return .seconds(min(max(0, seconds), Double(maxRetryAfter.components.seconds)))
    }

    /// What a person reads: `127.0.0.1:5004 refused the stream (503 Service Unavailable): all its streams are in use`,
    /// with the device's own words when it gave them (`805 All Tuners In Use`).
    static func reason(url: String, status: Int, text: String, deviceError: String? = nil) -> String {
        let said = deviceError.map { "\(status) \(text), \($0)" } ?? "\(status) \(text)"
        return "\(host(of: url)) refused the stream (\(said)): all its streams are in use"
    }

    /// `HOST:PORT` of `url`, for messages.
    static func host(of url: String) -> String {
        URLComponents(string: url).flatMap { c in c.host.map { h in c.port.map { "\(h):\($0)" } ?? h } } ?? url
    }
}
