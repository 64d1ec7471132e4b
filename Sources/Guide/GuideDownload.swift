import Foundation
import Lineup
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches an http(s) guide into a file, so the import streams it from disk like a local one.
public enum GuideDownload {
    /// How long a whole guide download may take, by default (a large guide on a slow line).
    public static let defaultDeadline: Duration = .seconds(600)
    /// How long the server may stay silent (connecting, or between two reads).
    static let idleTimeout: TimeInterval = 60
    /// The largest guide downloaded (a whole country's week of XMLTV is a few hundred MB
    /// uncompressed); a download is stopped as soon as it passes it, never stored whole first.
    public static let defaultMaximumSize: Int64 = 2 << 30

    /// Downloads `url` to `path` (replacing it), streamed to disk, the whole transfer within
    /// `deadline` however slowly the server sends. Throws ``GuideError`` `.unreadable` naming the
    /// URL for a network error, the deadline, or a status other than 2xx; `path` is then untouched
    /// and nothing is left behind. Safe to cancel (``HTTPTransfer``: no cancel from inside the
    /// runtime's cancellation handler).
    /// At most `maximumSize` bytes are stored: a larger guide is refused.
    static func fetch(_ url: URL, to path: String, deadline: Duration = defaultDeadline,
                      maximumSize: Int64 = defaultMaximumSize) async throws(GuideError) {
        let seconds = deadline.seconds
        // Silence ends it after idleTimeout (HTTPTransfer keeps that clear of the deadline).
        // A guide's user-info (a Tvheadend server's `/xmltv/channels`) is sent as Basic credentials.
        var request = HTTPTransfer.authorizingFromUserInfo(URLRequest(url: url, timeoutInterval: min(idleTimeout, seconds)))
        request.setValue("flipbox", forHTTPHeaderField: "User-Agent")
        let source = SourceText.shown(url.absoluteString)
        let download: (path: String, response: URLResponse)
        do {
            download = try await HTTPTransfer.download(
                for: request, deadline: seconds, into: (path as NSString).deletingLastPathComponent,
                limit: Int(clamping: maximumSize))
        } catch let error as HTTPTransfer.BodyTooLarge {
            throw GuideError(.unreadable, "refused: \(error)", source: source)
        } catch let error as URLError where error.code == .timedOut {
            throw GuideError(.unreadable, "no complete answer within \(Self.describe(seconds)) (the server is stalled or too slow); the download was given up", source: source)
        } catch is CancellationError {
            throw GuideError(.unreadable, "the download was cancelled", source: source)
        } catch {
            throw GuideError(.unreadable, "download failed: \(error.localizedDescription)", source: source)
        }
        if let http = download.response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            try? FileManager.default.removeItem(atPath: download.path)
            throw GuideError(.unreadable, "the server answered HTTP \(http.statusCode)", source: source)
        }
        do {
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: download.path, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: download.path)
            throw GuideError(.unreadable, "cannot keep the download in \(path): \(error.localizedDescription)", source: source)
        }
    }

    /// `90 s`, `10 min`, `2.5 s`.
    static func describe(_ seconds: TimeInterval) -> String {
        if seconds >= 120, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return String(format: "%.1f s", seconds)
    }
}
