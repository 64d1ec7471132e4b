import ConnectionGuard
import Foundation
import FlipboxCore
import Hummingbird
import Lineup
import Logging
import Parental
import Recordings

/// `/recordings.m3u`, `/recordings.json` and `/recordings/{id}`: the box's recordings for other
/// screens. Listed: those with a file (done, partial, failed after writing something) and those
/// being written. A file is sent as `video/mp2t` in chunks read off the event loop (Hummingbird's
/// `FileIO`), never whole in memory, with `Accept-Ranges: bytes` and one `Range` answered `206`
/// (several are answered with the whole file); a recording being written is served as far as it
/// is written when the request comes. Without a library every path answers 404 (`this box keeps
/// no recordings`). A recording of a locked channel is left out of the lists and refused (403)
/// unless the request sent the serve token.
struct RecordingRoutes {
    let library: (any RecordingLibrary)?
    /// The lineup now (a reading of its source taken while serving adds and removes channels).
    let lineup: @Sendable () -> Lineup
    let address: HeadendAddress
    let locks: ServeLockJudge
    let timeZone: TimeZone
    let logger: Logger
    let files = FileIO()

    /// Ids longer than this are no id (nothing is looked up).
    static let maxIDLength = 512

    /// Why a request gets no recording: the answer's status and what it says.
    struct Refusal: Error {
        var status: HTTPResponse.Status
        var message: String
        var headers: HTTPFields = [:]
        var response: Response { ServeResponse.error(status, message, headers: headers) }
    }

    func register(on router: Router<ServeRequestContext>) {
        router.get("/recordings.m3u") { request, context in
            do throws(Refusal) {
                let (entries, base, query) = try listing(request, context)
                return ServeResponse.text(RecordingExport.m3u(entries, baseURL: base, query: query, timeZone: timeZone),
                                          contentType: "audio/x-mpegurl; charset=utf-8")
            } catch { return error.response }
        }
        router.get("/recordings.json") { request, context in
            do throws(Refusal) {
                let (entries, base, query) = try listing(request, context)
                return ServeResponse.json(RecordingExport.items(entries, baseURL: base, query: query, timeZone: timeZone))
            } catch { return error.response }
        }
        router.get("/recordings/{id}") { request, context in
            do { return try await file(request, context) } catch let refusal as Refusal { return refusal.response }
        }
    }

    private func listing(_ request: Request, _ context: ServeRequestContext) throws(Refusal) -> ([RecordingExport.Entry], String, String) {
        guard let library else { throw Self.noRecordings }
        let all: [Recording]
        do { all = try library.recordings() } catch { throw Refusal(status: .serviceUnavailable, message: "the recordings cannot be read: \(error)") }
        let entries = all.filter(Self.isListed).compactMap { r -> RecordingExport.Entry? in
            guard lockReason(r, context) == nil, let path = library.file(of: r), let size = Self.size(of: path) else { return nil }
            return RecordingExport.Entry(recording: r, channelName: lineup().channel(number: r.channel)?.name ?? "Channel \(r.channel)",
                                         bytes: size)
        }.sorted { ($0.recording.paddedStart, $0.recording.id) > ($1.recording.paddedStart, $1.recording.id) }
        return (entries, address.baseURL(requestHost: request.head.authority), tokenQuery(request, context))
    }

    private func file(_ request: Request, _ context: ServeRequestContext) async throws -> Response {
        guard let library else { throw Self.noRecordings }
        let raw = context.parameters.get("id") ?? ""
        let text = raw.removingPercentEncoding ?? raw
        let shown = text.count > 80 ? "\(text.prefix(80))…" : text
        let found: Recording?
        do { found = try text.utf8.count <= Self.maxIDLength ? library.recording(RecordingID(text)) : nil } catch {
            throw Refusal(status: .serviceUnavailable, message: "the recordings cannot be read: \(error)")
        }
        guard let recording = found else {
            throw Refusal(status: .notFound, message: "no recording '\(shown)' on this box (/recordings.m3u lists them)")
        }
        guard Self.isListed(recording) else { throw Self.unavailable(recording) }
        if let reason = lockReason(recording, context) {
            throw Refusal(status: .forbidden, message: """
                recording '\(shown)' is of channel \(recording.channel), which is locked (\(reason)): the head-end serves locked \
                content only to clients that send the serve token (Authorization: Bearer, or ?token= in the URL)
                """)
        }
        guard let path = library.file(of: recording), let size = Self.size(of: path) else {
            let missing = library.file(of: recording) ?? "(none named)"
            logger.warning("recording \(recording.id) of \(recording.programme.title) was asked for, but its file \(missing) is not on the disk")
            throw Refusal(status: .notFound, message: "the file of recording '\(shown)' is no longer on this box")
        }
        var headers: HTTPFields = [.contentType: "video/mp2t", .acceptRanges: "bytes", .cacheControl: "no-store"]
        switch ByteRange(header: request.headers[.range], size: size) {
        case .unsatisfiable:
            throw Refusal(status: .rangeNotSatisfiable, message: "the range asked for starts beyond the recording's \(size) bytes",
                          headers: [.contentRange: "bytes */\(size)", .acceptRanges: "bytes"])
        case .whole:
            guard size > 0 else { return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer())) }
            return Response(status: .ok, headers: headers, body: try await files.loadFile(path: path, range: 0...Int(size - 1), context: context))
        case .part(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            let body = try await files.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    /// Has bytes to serve: finished with a file (a failed one only when it wrote something), or being written.
    static func isListed(_ r: Recording) -> Bool {
        guard r.filePath != nil else { return false }
        switch r.state {
        case .recording, .done, .partial: return true
        case .failed: return r.bytes > 0
        case .scheduled, .cancelled: return false
        }
    }

    static let noRecordings = Refusal(status: .notFound, message: "this box keeps no recordings")

    /// A recording that has no file to serve, saying why.
    static func unavailable(_ r: Recording) -> Refusal {
        let message: String
        switch r.state {
        case .scheduled:
            message = "recording '\(r.id)' (\(r.programme.title)) has not started: it begins at \(r.paddedStart.formatted(.iso8601))"
        case .cancelled: message = "recording '\(r.id)' (\(r.programme.title)) was cancelled: nothing was recorded"
        case .failed: message = "recording '\(r.id)' (\(r.programme.title)) failed without writing anything: \(r.error ?? "no reason was kept")"
        case .recording, .done, .partial: message = "recording '\(r.id)' (\(r.programme.title)) has no file yet"
        }
        return Refusal(status: .notFound, message: message)
    }

    /// The file's size now; nil when it is not there (or not a file).
    static func size(of path: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    /// Why `recording` is refused to this request (its channel is locked, and the request did
    /// not send the token); the programme's own rating is not stored with a recording.
    private func lockReason(_ recording: Recording, _ context: ServeRequestContext) -> String? {
        let judged = locks.locks
        guard judged.isActive, !context.authenticated else { return nil }
        let rating = lineup().channel(number: recording.channel)?.contentRating.map { ContentRating(system: nil, value: $0) }
        return judged.rules.lockReason(channelLocked: judged.lockedChannels.contains(recording.channel), programme: [], channel: rating)
    }

    /// `?token=…` when the request brought the serve token in its URL: the URLs listed carry it
    /// the same way, so a player without headers can open them. Empty otherwise.
    private func tokenQuery(_ request: Request, _ context: ServeRequestContext) -> String {
        guard context.authenticated, let token = address.configuration.token, let sent = request.uri.queryParameters.get("token"),
              BearerToken.matches(sent, token) else { return "" }
        return "?token=\(sent.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "+", "=", "#"])) ?? sent)"
    }
}
