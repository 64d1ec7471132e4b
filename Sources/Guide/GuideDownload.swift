import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches an http(s) guide into a file, so the import streams it from disk like a local one.
enum GuideDownload {
    /// Downloads `url` to `path` (replacing it). Throws ``GuideError`` `.unreadable` naming the URL
    /// for a network error, a timeout or a status other than 2xx.
    static func fetch(_ url: URL, to path: String, timeout: TimeInterval = 120) async throws(GuideError) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("flipbox", forHTTPHeaderField: "User-Agent")
        let source = url.absoluteString
        let result: Result<Void, GuideError> = await withCheckedContinuation { continuation in
            let session = URLSession(configuration: .ephemeral)
            let task = session.downloadTask(with: request) { file, response, error in
                defer { session.finishTasksAndInvalidate() }
                if let error {
                    continuation.resume(returning: .failure(GuideError(.unreadable, "download failed: \(error.localizedDescription)", source: source)))
                    return
                }
                if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                    continuation.resume(returning: .failure(GuideError(.unreadable, "the server answered HTTP \(http.statusCode)", source: source)))
                    return
                }
                guard let file else {
                    continuation.resume(returning: .failure(GuideError(.unreadable, "download failed: no data", source: source)))
                    return
                }
                do {
                    try? FileManager.default.removeItem(atPath: path)
                    try FileManager.default.moveItem(atPath: file.path, toPath: path)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(GuideError(.unreadable, "cannot keep the download in \(path): \(error.localizedDescription)", source: source)))
                }
            }
            task.resume()
        }
        try result.get()
    }
}
