import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Transfers with a byte limit: the body is taken as it arrives and the transfer is stopped as
/// soon as it would pass the limit (a declared `Content-Length` past it stops it at once), so a
/// server never makes the box hold or store more than the limit. Redirects are never followed by
/// the session: the caller's `route` sees every hop (a logo's address rules), at most
/// ``maxRedirects`` of them. The deadline covers the whole transfer, redirects included.
extension HTTPTransfer {
    /// The most redirects one bounded transfer follows.
    public static let maxRedirects = 5

    /// A body that passed the limit; the transfer was stopped there.
    public struct BodyTooLarge: Error, Sendable, CustomStringConvertible {
        /// The limit, in bytes.
        public var limit: Int
        /// The server's `Content-Length`, when it declared one past the limit.
        public var declared: Int64?

        public var description: String {
            if let declared { return "the server announced \(ByteCount.text(declared)), more than the limit of \(ByteCount.text(Int64(limit)))" }
            return "the server sent more than the limit of \(ByteCount.text(Int64(limit))); the transfer was stopped there"
        }
    }

    /// A redirect that cannot be followed: no `Location`, or more than ``maxRedirects``.
    public struct RedirectRefused: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Prepares one hop's request before it is sent (checks the address, may pin it); throws to
    /// refuse the hop.
    public typealias Route = @Sendable (URLRequest) async throws -> URLRequest

    /// The body of `request` in memory, at most `limit` bytes, within `deadline` seconds; every
    /// hop (the first request and each redirect) goes through `route` first.
    public static func data(
        for request: URLRequest, deadline: TimeInterval, limit: Int, route: Route = { $0 }
    ) async throws -> (Data, URLResponse) {
        try await following(request, deadline: deadline, route: route) { hop, remaining in
            let result: (BoundedBody.Stored, URLResponse) = try await bounded(hop, deadline: remaining, limit: limit, into: nil)
            guard case .memory(let data) = result.0 else { throw URLError(.unknown) }
            return (data, result.1)
        } discard: { _ in }
    }

    /// Downloads `request`'s body into a new file in `directory`, at most `limit` bytes, within
    /// `deadline` seconds; the caller owns the returned file. A transfer that fails or passes
    /// the limit leaves nothing behind.
    ///
    /// The session writes the body to disk as it reads it (a download task): a data task's
    /// pieces are queued for the delegate without limit, and a fast server outran a busy box by
    /// hundreds of megabytes held in memory. The limit is checked as the session reports what
    /// it wrote.
    public static func download(
        for request: URLRequest, deadline: TimeInterval, into directory: String, limit: Int, route: Route = { $0 }
    ) async throws -> (path: String, response: URLResponse) {
        let (path, response) = try await following(request, deadline: deadline, route: route) { hop, remaining in
            let (stored, response) = try await bounded(hop, deadline: remaining, limit: limit, into: directory)
            guard case .file(let path) = stored else { throw URLError(.unknown) }
            return (path, response)
        } discard: { path in
            try? FileManager.default.removeItem(atPath: path)
        }
        return (path, response)
    }

    /// Sends `request` through `route`, and each redirect after it, until an answer that is no
    /// redirect; `discard` drops the body of a redirect.
    private static func following<Body: Sendable>(
        _ request: URLRequest, deadline: TimeInterval, route: Route,
        hop: (URLRequest, TimeInterval) async throws -> (Body, URLResponse),
        discard: (Body) -> Void
    ) async throws -> (Body, URLResponse) {
        let end = Date().addingTimeInterval(deadline)
        var next = request
        for _ in 0...maxRedirects {
            let routed = try await route(next)
            let remaining = end.timeIntervalSinceNow
            guard remaining > 0 else { throw URLError(.timedOut) }
            let (body, response) = try await hop(routed, remaining)
            guard let http = response as? HTTPURLResponse, [301, 302, 303, 307, 308].contains(http.statusCode) else {
                return (body, response)
            }
            discard(body)
            guard let location = http.value(forHTTPHeaderField: "Location"),
                  let base = next.url, let target = URL(string: location, relativeTo: base)?.absoluteURL,
                  ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
                throw RedirectRefused(description: "the server answered HTTP \(http.statusCode) without a usable http(s) Location")
            }
            // Credentials given for one server are not handed to another it sends the box to.
            if !sameOrigin(base, target) { next.setValue(nil, forHTTPHeaderField: "Authorization") }
            next.url = target
            next.setValue(nil, forHTTPHeaderField: "Host")
            if http.statusCode == 303 { next.httpMethod = "GET" }
        }
        throw RedirectRefused(description: "more than \(maxRedirects) redirects")
    }

    /// One request on ``boundedSession``, its body kept in memory (`directory` nil) or
    /// downloaded into a new file in `directory`.
    private static func bounded(
        _ request: URLRequest, deadline: TimeInterval, limit: Int, into directory: String?
    ) async throws -> (BoundedBody.Stored, URLResponse) {
        let request = clearOfDeadline(request, deadline)
        return try await transfer(deadline: deadline) { reply in
            let body = BoundedBody(reply: reply, limit: limit, directory: directory)
            if directory == nil {
                let task = boundedSession.dataTask(with: request)
                boundedDelegate.register(body, for: task.taskIdentifier)
                return task
            }
            let task = downloadSession.downloadTask(with: request)
            downloadDelegate.register(body, for: task.taskIdentifier)
            return task
        }
    }

    /// The session of bounded transfers: like ``shared`` (no cache, never invalidated) with a
    /// delegate that takes each body as it arrives and never follows a redirect.
    static let boundedSession = URLSession(configuration: sessionConfiguration(), delegate: boundedDelegate, delegateQueue: nil)

    static let boundedDelegate = BoundedTransferDelegate()

    /// The session of bounded downloads: a session of its own, as its delegate must not be a
    /// data delegate (FoundationNetworking hands a refused redirect's body to a data delegate
    /// as a data task's, and a download task is none: the process crashed).
    static let downloadSession = URLSession(configuration: sessionConfiguration(), delegate: downloadDelegate, delegateQueue: nil)

    static let downloadDelegate = BoundedDownloadDelegate()
}

/// One bounded transfer's body as it arrives, and the answer to its caller. Called on the
/// session's delegate queue only (one at a time).
final class BoundedBody: @unchecked Sendable {
    enum Stored: Sendable {
        case memory(Data)
        /// The path of the downloaded body, which the caller owns.
        case file(String)
    }

    let reply: HTTPTransfer.Reply<(Stored, URLResponse)>
    let limit: Int
    /// Where a download's file goes; nil for a body kept in memory.
    let directory: String?
    private var data = Data()
    private var count = 0
    private var stopped = false
    /// The downloaded body, once the session handed it over.
    private var kept: String?
    private var keepError: (any Error)?
    /// The session files there were when the download began, and the one the session writes
    /// its body into, once told apart (`SessionFiles`): removed when the transfer ends without it.
    private let sessionFilesBefore: Set<String>
    private var sessionFile: String?
    private var wroteAny = false
    /// The 401 of a login the session was not let answer (``BoundedTransferDelegate``): the
    /// transfer's answer, once the session has cancelled it.
    var refusedLogin: URLResponse?

    init(reply: HTTPTransfer.Reply<(Stored, URLResponse)>, limit: Int, directory: String?) {
        self.reply = reply
        self.limit = limit
        self.directory = directory
        sessionFilesBefore = directory == nil ? [] : SessionFiles.names()
    }

    /// A piece of a body kept in memory.
    func receive(_ chunk: Data, response: URLResponse?) {
        guard !stopped else { return }
        if count == 0, let declared = response?.expectedContentLength, declared > Int64(limit) {
            stop(HTTPTransfer.BodyTooLarge(limit: limit, declared: declared))
            return
        }
        let (sum, overflow) = count.addingReportingOverflow(chunk.count)
        guard !overflow, sum <= limit else {
            stop(HTTPTransfer.BodyTooLarge(limit: limit, declared: nil))
            return
        }
        count = sum
        data.append(chunk)
    }

    /// A download's progress: `written` bytes on disk so far, of `declared` (-1 unknown).
    func wrote(_ written: Int64, declared: Int64) {
        // The first piece made the session's file: taken now if no other download's came
        // meanwhile, else at the end, by its size (not looked for at every piece).
        if !wroteAny { sessionFile = SessionFiles.take(newSince: sessionFilesBefore) }
        wroteAny = true
        guard !stopped else { return }
        if declared > Int64(limit) {
            stop(HTTPTransfer.BodyTooLarge(limit: limit, declared: declared))
        } else if written > Int64(limit) {
            stop(HTTPTransfer.BodyTooLarge(limit: limit, declared: nil))
        }
    }

    /// The session's file of a finished download, moved under a name of our own (or removed at
    /// the end, when it is past the limit: FoundationNetworking leaves it).
    func downloaded(to location: URL) {
        guard let directory else { return }
        if sessionFile != location.path {
            // The file the session names is the one: a file taken before is let go untouched.
            sessionFile.map { SessionFiles.release($0, remove: false) }
            sessionFile = location.path
            SessionFiles.take(location.path)
        }
        let path = (directory as NSString).appendingPathComponent(".download-\(UUID().uuidString).tmp")
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: location.path)[.size] as? NSNumber)?.int64Value ?? 0
            guard size <= Int64(limit) else {
                stop(HTTPTransfer.BodyTooLarge(limit: limit, declared: nil))
                return
            }
            try FileManager.default.moveItem(atPath: location.path, toPath: path)
            kept = path
            sessionFile.map { SessionFiles.release($0, remove: false) }
            sessionFile = nil
        } catch {
            keepError = error
        }
    }

    /// The transfer ended: `received` bytes of its body came (for a download, all in its file).
    func complete(_ error: (any Error)?, response: URLResponse?, received: Int64) {
        // The session writes no more into its file, so one not handed over (stopped, failed)
        // can go: told apart by its size, now final, if not before.
        if sessionFile == nil, wroteAny { sessionFile = SessionFiles.take(newSince: sessionFilesBefore, size: received) }
        sessionFile.map { SessionFiles.release($0, remove: true) }
        sessionFile = nil
        guard !stopped else { return discard() }
        stopped = true
        let answer: Result<(Stored, URLResponse), any Error>
        if let refusedLogin, let error, (error as NSError).domain == NSURLErrorDomain, (error as NSError).code == NSURLErrorCancelled {
            answer = stored().map { ($0, refusedLogin) }
        } else if let error {
            answer = .failure(error)
        } else if let keepError {
            answer = .failure(keepError)
        } else if let response {
            answer = stored().map { ($0, response) }
        } else {
            answer = .failure(URLError(.badServerResponse))
        }
        // An answer that came too late (the deadline, a cancel) leaves no file behind.
        if !reply.finish(answer, transferEnded: true) || (try? answer.get()) == nil { discard() }
    }

    /// The body as the caller takes it: the data, or the download's file (an empty one when the
    /// session wrote none, as for a refused login).
    private func stored() -> Result<Stored, any Error> {
        guard let directory else { return .success(.memory(data)) }
        if let kept { return .success(.file(kept)) }
        let path = (directory as NSString).appendingPathComponent(".download-\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            return .failure(CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]))
        }
        kept = path
        return .success(.file(path))
    }

    private func discard() {
        if let kept { try? FileManager.default.removeItem(atPath: kept) }
        kept = nil
    }

    /// Answers the caller with `error`; the reply stops the transfer from a dispatch of its own.
    private func stop(_ error: any Error) {
        stopped = true
        data = Data()
        discard()
        reply.finish(.failure(error))
    }
}

/// What the delegates of bounded transfers share: each task's ``BoundedBody``, every redirect
/// refused (the task ends with the 3xx answer, which the caller follows after checking it), a
/// login challenge answered with its 401, and the end.
class BoundedTaskDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [Int: BoundedBody] = [:]

    func register(_ body: BoundedBody, for task: Int) {
        lock.withLock { bodies[task] = body }
    }

    func body(_ task: URLSessionTask, removing: Bool = false) -> BoundedBody? {
        lock.withLock { removing ? bodies.removeValue(forKey: task.taskIdentifier) : bodies[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// A login the server asks for (HTTP 401 with `WWW-Authenticate`) is not answered by the
    /// session: a caller sends its credentials itself, and a 401 is the transfer's answer, as on
    /// macOS. FoundationNetworking would wait for ever on a 401 it has no credential for
    /// (swift-corelibs-foundation#5456): the challenge is cancelled and its response delivered.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let login = [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest, NSURLAuthenticationMethodDefault]
        guard login.contains(challenge.protectionSpace.authenticationMethod), let response = challenge.failureResponse,
              let body = body(task) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        body.refusedLogin = response
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        body(task, removing: true)?.complete(error, response: task.response, received: task.countOfBytesReceived)
    }
}

/// The delegate of ``HTTPTransfer/boundedSession``: a data task's pieces as they arrive.
final class BoundedTransferDelegate: BoundedTaskDelegate, URLSessionDataDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body(dataTask)?.receive(data, response: dataTask.response)
    }
}

/// The delegate of ``HTTPTransfer/downloadSession``: a download's progress and its file. Never a
/// data delegate (see `downloadSession`).
final class BoundedDownloadDelegate: BoundedTaskDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        body(downloadTask)?.wrote(totalBytesWritten, declared: downloadTask.response?.expectedContentLength ?? totalBytesExpectedToWrite)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        body(downloadTask)?.downloaded(to: location)
    }
}

/// Byte counts for people: `512 bytes`, `64 KB`, `10 MB` (1024-based, rounded down).
enum ByteCount {
    static func text(_ bytes: Int64) -> String {
        if bytes >= 1 << 30 { return "\(bytes >> 30) GB" }
        if bytes >= 1 << 20 { return "\(bytes >> 20) MB" }
        if bytes >= 1 << 10 { return "\(bytes >> 10) KB" }
        return "\(bytes) bytes"
    }
}
