import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Lineup

/// A lineup at an http(s) URL (an IPTV provider's `get.php?…&type=m3u_plus`, another head-end's
/// `/lineup.m3u`): downloaded with a size limit and kept in the state directory with its
/// validators (`ETag`, `Last-Modified`), so the next read asks `If-None-Match` /
/// `If-Modified-Since` and the box starts from the kept copy when the provider is down.
///
/// A download is refused, and the kept copy used, when it is no lineup: an HTML page (a login
/// or error page answered 200), a body past the limit, or a playlist that lost every channel
/// the kept copy has.
public struct PlaylistDownload: Sendable {
    public var url: URL
    /// Where the copy and its validators are kept (nil: nothing kept).
    public var keptPath: String?
    public var limit = LineupLoader.maximumFileSize
    public var deadline: TimeInterval = 30
    /// The deadline when a kept copy can play instead: a provider that does not answer holds the
    /// box's start up no longer than this.
    public var deadlineWithKeptCopy: TimeInterval = 8

    public init(url: URL, stateDirectory: String?) {
        self.url = url
        keptPath = stateDirectory.map { (SourcedLineup.keptDirectory($0) as NSString).appendingPathComponent(Self.keptName(url)) }
    }

    /// A file name for `url`'s copy: its host and a hash of the whole URL (which may carry a
    /// password, so it is not written out).
    static func keptName(_ url: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.absoluteString.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let host = (url.host ?? "url").filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }.prefix(64)
        return "playlist-\(host)-\(String(hash, radix: 16)).m3u"
    }

    /// The URL as it may be shown: without its query and password (a provider's URL often
    /// carries the account's username and password).
    public static func shown(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "the lineup URL" }
        components.password = nil
        components.user = nil
        let hadQuery = components.query != nil
        components.query = nil
        return (components.string ?? "the lineup URL") + (hadQuery ? "?…" : "")
    }

    /// What a read gave: the lineup's text, and where it came from.
    public struct Result: Sendable {
        public enum Origin: Sendable, Equatable {
            /// Downloaded now.
            case downloaded
            /// The server said it has not changed (304): the kept copy.
            case unchanged
            /// The download failed or was refused (the reason): the kept copy.
            case kept(reason: String)
        }
        public var data: Data
        public var origin: Origin
    }

    /// Downloads the lineup, or falls back on the kept copy; throws a message naming the URL
    /// (without its secrets) when neither is there.
    public func read() async throws -> Result {
        let kept = keptPath.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
        let validators = keptPath.flatMap { Validators.load(beside: $0) }
        var request = URLRequest(url: url)
        if kept != nil, let validators {
            if let tag = validators.etag { request.setValue(tag, forHTTPHeaderField: "If-None-Match") }
            if let modified = validators.lastModified { request.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
        }
        let failure: String
        let deadline = kept == nil ? deadline : min(deadline, deadlineWithKeptCopy)
        do {
            let (data, response) = try await HTTPTransfer.data(for: request, deadline: deadline, limit: limit)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if status == 304, let kept { return Result(data: kept, origin: .unchanged) }
            if status == 200 {
                if let problem = Self.notALineup(data, instead: kept) {
                    failure = problem
                } else {
                    if let keptPath { keep(data, response: response as? HTTPURLResponse, at: keptPath) }
                    return Result(data: data, origin: .downloaded)
                }
            } else {
                failure = "the server answered HTTP \(status)"
            }
        } catch let error as URLError where error.code == .timedOut {
            failure = "no answer within \(Int(deadline)) s"
        } catch {
            failure = Self.describe(error)
        }
        guard let kept else { throw SourceFailure.said(.unreachable, "\(Self.shown(url)): cannot download the lineup: \(failure)") }
        return Result(data: kept, origin: .kept(reason: failure))
    }

    /// What went wrong, without the URL (Foundation's errors quote it whole, password and all).
    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            let text = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String
            return text.map { $0.prefix(1).lowercased() + $0.dropFirst() } ?? "network error \(error.code.rawValue)"
        }
        // The box's own errors say what happened in words; Foundation's say it in their message.
        if !(type(of: error) is NSError.Type) { return String(describing: error) }
        return (error as NSError).localizedDescription
    }

    /// Why `data` is refused as a lineup; nil when it may be one.
    static func notALineup(_ data: Data, instead kept: Data?) -> String? {
        let head = String(decoding: data.prefix(512), as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }.lowercased()
        if head.hasPrefix("<!doctype html") || head.hasPrefix("<html") || head.hasPrefix("<?xml") && head.contains("<html") {
            return "the server answered an HTML page, not a playlist (a login or error page: is the URL, or the account, right?)"
        }
        if data.isEmpty { return "the server answered an empty body" }
        // A playlist that lost every channel its last copy had is more likely a provider's fault
        // than a wish: the kept one stays.
        if let kept, Self.entries(kept) > 0, Self.entries(data) == 0 {
            return "the new playlist has no channels where the kept one has \(Self.entries(kept)); the kept one stays"
        }
        return nil
    }

    /// `#EXTINF` lines (M3U) or `- number`/`source` entries (YAML), roughly: enough to tell none from some.
    static func entries(_ data: Data) -> Int {
        let text = String(decoding: data, as: UTF8.self)
        let m3u = text.components(separatedBy: "#EXTINF").count - 1
        return m3u > 0 ? m3u : text.components(separatedBy: "source").count - 1
    }

    private func keep(_ data: Data, response: HTTPURLResponse?, at path: String) {
        do {
            try KeptFile.write(data, to: path)
            let validators = Validators(etag: response?.value(forHTTPHeaderField: "ETag").map { String($0.prefix(256)) },
                                        lastModified: response?.value(forHTTPHeaderField: "Last-Modified").map { String($0.prefix(64)) })
            try validators.save(beside: path)
        } catch {
            // Not kept: the next start needs the network; the lineup plays now all the same.
        }
    }

    /// The validators of a kept copy (`NAME.validators.json` beside it).
    struct Validators: Codable, Sendable {
        var etag: String?
        var lastModified: String?

        static func path(beside kept: String) -> String { kept + ".validators.json" }

        static func load(beside kept: String) -> Validators? {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path(beside: kept))), data.count <= 4096 else { return nil }
            return try? JSONDecoder().decode(Validators.self, from: data)
        }

        func save(beside kept: String) throws {
            try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: Self.path(beside: kept)), options: .atomic)
        }
    }
}

