import Foundation
import Synchronization

/// What a channel's ingest tells its pool: a stream opening, the server refusing one, the
/// server ending one that delivered, data flowing on a new one. The head-end counts and learns
/// from them (`PoolLearning`); the ingest itself only reports.
public enum SourcePoolEvent: Sendable, Hashable {
    case opening(url: String)
    case refused(url: String, reason: String)
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

/// Whether a source's error is the server refusing a stream because all of its streams are in
/// use: HTTP 503 (an HDHomeRun with every tuner busy, `X-HDHomeRun-Error: 805`), 429, 453 or 509
/// (bandwidth or connection limits of IPTV panels), RTSP 453 (not enough bandwidth). Read from
/// GStreamer's message: `souphttpsrc` puts `Service Unavailable (503), URL: …` in its debug text.
enum SourceRefusal {
    static let statuses: Set<Int> = [429, 453, 503, 509]

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

    /// What a person reads: `127.0.0.1:5004 refused the stream (503 Service Unavailable): all its streams are in use`.
    static func reason(url: String, status: Int, text: String) -> String {
        let host = URLComponents(string: url).flatMap { c in c.host.map { h in c.port.map { "\(h):\($0)" } ?? h } } ?? url
        return "\(host) refused the stream (\(status) \(text)): all its streams are in use"
    }
}
