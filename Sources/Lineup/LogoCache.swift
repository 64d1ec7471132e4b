import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Local files for channel logos: remote logos are downloaded once and kept on disk.
///
/// Files are named by a stable hash of the URL plus its extension, and written
/// atomically (temporary file, then rename), so a crash never leaves half an
/// image under the final name. Concurrent requests for one URL share a single
/// download. Safe to use from any task.
///
/// Every logo handed out is a picture (``LogoImage``: judged by its first bytes, at most
/// ``LogoImage/maxSide`` on a side), at most ``maximumLogoSize`` bytes (a download is stopped as
/// soon as it passes that), never a file under `/proc`, `/sys` or `/dev`, and never fetched from
/// an address ``LogoSourcePolicy`` refuses.
public actor LogoCache {
    /// Where downloaded logos are kept.
    public nonisolated let directory: String
    /// Limit for one download, connection included.
    public nonisolated let timeout: TimeInterval
    /// Where logos may come from: the box's own configuration (`--allow-logo-host`).
    public nonisolated let policy: LogoSourcePolicy
    /// Larger logos are refused (a download is stopped there).
    public static let maximumLogoSize = 10 * 1024 * 1024

    private var downloads: [URL: Task<String, any Error>] = [:]

    /// - Parameters:
    ///   - directory: cache directory, created on first download; default `defaultDirectory()`.
    ///   - timeout: seconds allowed for one download.
    ///   - policy: the addresses logos may be fetched from; by default none of this machine's.
    public init(directory: String = LogoCache.defaultDirectory(), timeout: TimeInterval = 10,
                policy: LogoSourcePolicy = LogoSourcePolicy()) {
        self.directory = directory
        self.timeout = timeout
        self.policy = policy
    }

    /// `$XDG_CACHE_HOME/flipbox/logos`, else `~/.cache/flipbox/logos`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return (xdg as NSString).appendingPathComponent("flipbox/logos")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".cache/flipbox/logos")
    }

    /// The file a remote logo is (or will be) cached in: `directory/<hash>.<ext>`.
    public nonisolated func cachePath(for url: URL) -> String {
        let ext = url.pathExtension.lowercased()
        let suffix = (1...5).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? ext : "img"
        return (directory as NSString).appendingPathComponent("\(Self.stableHash(url.absoluteString)).\(suffix)")
    }

    /// A local path for `logo`: the file itself (links resolved), or the cached copy of a remote
    /// logo, downloaded on first use only; always a picture within the limits.
    ///
    /// Throws when a local file is missing or refused, or when a download is refused, fails or
    /// takes longer than `timeout`; the error names the logo and why.
    public func localPath(for logo: LogoReference) async throws(LogoCacheError) -> String {
        switch logo {
        case .file(let path):
            return try Self.checkedFile(path).get().path
        case .remote(let url):
            let path = cachePath(for: url)
            if FileManager.default.fileExists(atPath: path) {
                return try Self.checkedFile(path, logo: url.absoluteString).get().path
            }
            let task: Task<String, any Error>
            if let running = downloads[url] {
                task = running
            } else {
                let (directory, timeout, policy) = (directory, timeout, policy)
                task = Task { try await Self.download(url, to: path, directory: directory, timeout: timeout, policy: policy) }
                downloads[url] = task
            }
            do {
                let result = try await task.value
                downloads[url] = nil
                return result
            } catch let error as LogoCacheError {
                downloads[url] = nil
                throw error
            } catch {
                downloads[url] = nil
                throw LogoCacheError.logo(url.absoluteString, .downloadFailed, error.localizedDescription)
            }
        }
    }

    /// The bytes of `logo` as checked, and what picture they are: what the head-end serves. The
    /// file is read once, at most ``maximumLogoSize`` bytes, and judged on those very bytes.
    public func contents(for logo: LogoReference) async throws(LogoCacheError) -> (data: Data, image: LogoImage) {
        let path = try await localPath(for: logo)
        let name = logo.description
        let data = try Self.read(path, limit: Self.maximumLogoSize, logo: name)
        switch LogoImage.inspect(data) {
        case .success(let image): return (data, image)
        case .failure(let problem): throw LogoCacheError.logo(name, .refused, "refused: \(problem)")
        }
    }

    /// A local logo file checked: not under `/proc`, `/sys`, `/dev` (links resolved), a regular
    /// file of at most ``maximumLogoSize`` bytes, and a picture by its first bytes. `logo`: how
    /// errors name it (the path by default).
    static func checkedFile(_ path: String, logo: String? = nil) -> Result<(path: String, image: LogoImage), LogoCacheError> {
        let name = logo ?? path
        func fail(_ code: LogoCacheCode, _ reason: String) -> Result<(path: String, image: LogoImage), LogoCacheError> {
            .failure(LogoCacheError.logo(name, code, reason))
        }
        let resolved: String
        switch LogoSourcePolicy.resolveFile(path) {
        case .success(let file): resolved = file
        case .failure(let refusal): return fail(.refused, "refused: \(refusal)")
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved) else {
            return fail(.missing, "file not found")
        }
        // A FIFO or a device would block the decoder for good.
        guard attributes[.type] as? FileAttributeType == .typeRegular else { return fail(.refused, "not a regular file") }
        if let size = (attributes[.size] as? NSNumber)?.int64Value, size > Int64(maximumLogoSize) {
            return fail(.refused, "refused: the file has \(ByteCount.text(size)), more than the limit of \(ByteCount.text(Int64(maximumLogoSize))) for a logo")
        }
        let head: Data
        do { head = try read(resolved, limit: LogoImage.headLength, whole: false, logo: name) } catch { return .failure(error) }
        switch LogoImage.inspect(head) {
        case .success(let image): return .success((resolved, image))
        case .failure(let problem): return fail(.refused, "refused: \(problem)")
        }
    }

    /// At most `limit` bytes of the file at `path`, read in pieces. `whole`: more than `limit`
    /// bytes is an error (else the rest is left unread). `logo`: how errors name it.
    static func read(_ path: String, limit: Int, whole: Bool = true, logo: String) throws(LogoCacheError) -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .logo(logo, .unreadable, "the file cannot be read") }
        defer { try? handle.close() }
        var data = Data()
        do {
            while data.count <= limit {
                guard let piece = try handle.read(upToCount: min(64 * 1024, limit + 1 - data.count)), !piece.isEmpty else { break }
                data.append(piece)
            }
        } catch {
            throw .logo(logo, .unreadable, "\(error)")
        }
        if data.count > limit {
            guard !whole else { throw .logo(logo, .refused, "refused: the file is larger than the limit of \(ByteCount.text(Int64(limit))) for a logo") }
            data = data.prefix(limit)
        }
        return data
    }

    private static func download(
        _ url: URL, to path: String, directory: String, timeout: TimeInterval, policy: LogoSourcePolicy
    ) async throws(LogoCacheError) -> String {
        func fail(_ code: LogoCacheCode, _ reason: String) -> LogoCacheError { .logo(url.absoluteString, code, reason) }

        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        let data: Data
        let response: URLResponse
        do {
            // The whole download within `timeout`, however slowly the server trickles bytes; no
            // more than the limit is ever held; every hop's address checked.
            (data, response) = try await HTTPTransfer.data(for: request, deadline: timeout, limit: maximumLogoSize,
                                                           route: { try await policy.route($0) })
        } catch let error as URLError where error.code == .timedOut {
            throw fail(.timedOut, "timed out after \(Int(timeout)) s")
        } catch let refusal as LogoRefusal {
            throw fail(.refused, "refused: \(refusal)")
        } catch let error as HTTPTransfer.BodyTooLarge {
            throw fail(.refused, "refused: \(error)")
        } catch let error as HTTPTransfer.RedirectRefused {
            throw fail(.downloadFailed, "\(error)")
        } catch {
            throw fail(.downloadFailed, error.localizedDescription)
        }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw fail(.downloadFailed, "the server answered HTTP \(http.statusCode)")
        }
        guard !data.isEmpty else { throw fail(.downloadFailed, "the server sent an empty file") }
        if case .failure(let problem) = LogoImage.inspect(data) { throw fail(.refused, "refused: \(problem)") }

        let temporary = (directory as NSString).appendingPathComponent(".download-\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail(.storage, "cannot write to the cache directory \(directory): \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail(.storage, "cannot move the download into place at \(path): \(reason)")
        }
        return path
    }

    /// 64-bit FNV-1a of the UTF-8 bytes, as 16 hex digits: the same on every run and machine.
    static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Why a logo could not be made available locally. The message names the logo and says why:
/// `logo http://x/a.png: the server answered HTTP 404`.
public typealias LogoCacheError = Failure<LogoCacheCode>

public enum LogoCacheCode: String, FailureCode {
    /// The logo's file is not there.
    case missing
    /// The logo is not taken: an address or a file the box does not fetch logos from, a file
    /// that is not a regular file, more than the size limit, or not a picture.
    case refused
    /// The logo's file is there but cannot be read.
    case unreadable
    /// The download failed: no answer, an HTTP error, an empty file, a redirect that cannot be followed.
    case downloadFailed
    /// The download took longer than the cache allows.
    case timedOut
    /// The download cannot be kept: the cache directory cannot be written.
    case storage

    public var kind: FailureKind {
        switch self {
        case .missing: .notFound
        case .refused: .forbidden
        case .unreadable, .storage: .internalFailure
        case .downloadFailed: .upstream
        case .timedOut: .timedOut
        }
    }
}

extension Failure where Code == LogoCacheCode {
    /// `logo LOGO: reason`, where `logo` is the logo's URL or path.
    static func logo(_ logo: String, _ code: LogoCacheCode, _ reason: String) -> LogoCacheError {
        LogoCacheError(code, "logo \(logo): \(reason)")
    }
}
