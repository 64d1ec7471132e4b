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
public actor LogoCache {
    /// Where downloaded logos are kept.
    public nonisolated let directory: String
    /// Limit for one download, connection included.
    public nonisolated let timeout: TimeInterval
    /// Larger responses are refused.
    public static let maximumLogoSize = 10 * 1024 * 1024

    private var downloads: [URL: Task<String, any Error>] = [:]

    /// - Parameters:
    ///   - directory: cache directory, created on first download; default `defaultDirectory()`.
    ///   - timeout: seconds allowed for one download.
    public init(directory: String = LogoCache.defaultDirectory(), timeout: TimeInterval = 10) {
        self.directory = directory
        self.timeout = timeout
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

    /// A local path for `logo`: the file itself, or the cached copy of a remote
    /// logo, downloaded on first use only.
    ///
    /// Throws when a local file is missing, or when a download fails or takes
    /// longer than `timeout`; the error names the logo.
    public func localPath(for logo: LogoReference) async throws(LogoCacheError) -> String {
        switch logo {
        case .file(let path):
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
                throw LogoCacheError(logo: path, reason: "file not found")
            }
            // A FIFO or a device would block the decoder for good.
            guard attributes[.type] as? FileAttributeType == .typeRegular else {
                throw LogoCacheError(logo: path, reason: "not a regular file")
            }
            return path
        case .remote(let url):
            let path = cachePath(for: url)
            if FileManager.default.fileExists(atPath: path) { return path }
            let task: Task<String, any Error>
            if let running = downloads[url] {
                task = running
            } else {
                let (directory, timeout) = (directory, timeout)
                task = Task { try await Self.download(url, to: path, directory: directory, timeout: timeout) }
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
                throw LogoCacheError(logo: url.absoluteString, reason: error.localizedDescription)
            }
        }
    }

    private static func download(
        _ url: URL, to path: String, directory: String, timeout: TimeInterval
    ) async throws(LogoCacheError) -> String {
        func fail(_ reason: String) -> LogoCacheError { LogoCacheError(logo: url.absoluteString, reason: reason) }

        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        let data: Data
        let response: URLResponse
        do {
            // The whole download within `timeout`, however slowly the server trickles bytes.
            (data, response) = try await HTTPTransfer.data(for: request, deadline: timeout)
        } catch let error as URLError where error.code == .timedOut {
            throw fail("timed out after \(Int(timeout)) s")
        } catch {
            throw fail(error.localizedDescription)
        }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw fail("the server answered HTTP \(http.statusCode)")
        }
        guard !data.isEmpty else { throw fail("the server sent an empty file") }
        guard data.count <= maximumLogoSize else { throw fail("the logo is larger than \(maximumLogoSize / 1024 / 1024) MiB") }

        let temporary = (directory as NSString).appendingPathComponent(".download-\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail("cannot write to the cache directory \(directory): \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail("cannot move the download into place at \(path): \(reason)")
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

/// A logo that could not be made available locally.
public struct LogoCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The logo's URL or path.
    public var logo: String
    public var reason: String

    public init(logo: String, reason: String) {
        self.logo = logo
        self.reason = reason
    }

    /// `logo URL: reason`, e.g. `logo http://x/a.png: the server answered HTTP 404`.
    public var description: String { "logo \(logo): \(reason)" }
}
