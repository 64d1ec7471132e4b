import Foundation
import Recordings

extension RecordingService {
    /// Deletes an ended recording: its file, its sidecar, then its entry (a file that is gone
    /// already is no error). Told as `.deleted`.
    func delete(_ r: Recording, reason: String) throws(RecordingError) {
        if let path = r.filePath {
            for file in [path, RecordingFileName.sidecarPath(for: path)] {
                let url = directory.appendingPathComponent(file)
                do {
                    try FileManager.default.removeItem(at: url)
                } catch CocoaError.fileNoSuchFile {
                    continue
                } catch {
                    throw RecordingError(.storage, "\(url.path) could not be deleted: \(error.localizedDescription)", source: r.id.rawValue)
                }
            }
            removeEmptyFolder(of: path)
        }
        _ = try store.remove(r.id)
        logger.info("recordings: \(r.id) (\(r.programme.title)) deleted: \(reason)")
        notice.yield(.deleted(r, reason: reason))
    }

    /// Applies the retention policy (quota, age, each rule's keep-latest), oldest first; never
    /// to a recording in progress or marked keep.
    func applyRetention(running: Set<RecordingID>) {
        var policy = retention
        do {
            for rule in try store.rules() { if let n = rule.keepLatest { policy.keepLatest[rule.id] = n } }
            let removals = Retention.removals(try store.recordings(), policy: policy, now: Date())
            for removal in removals where !running.contains(removal.recording) {
                guard let r = try store.recording(removal.recording) else { continue }
                try delete(r, reason: Self.explain(removal.reason))
            }
        } catch {
            logger.error("recordings: retention could not be applied: \(error)")
        }
    }

    static func explain(_ reason: Retention.Reason) -> String {
        switch reason {
        case .olderThan(let days): "it ended more than \(days) days ago (recordings-keep-days)"
        case .beyondKeepLatest(let rule, let count): "rule \(rule) keeps its newest \(count)"
        case .overQuota(let bytes): "the recordings took more than the quota of \(ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file))"
        }
    }

    /// Removes the title folder a deleted recording leaves empty (never the recordings directory).
    private func removeEmptyFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty, folder != "." else { return }
        let url = directory.appendingPathComponent(folder)
        if (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty == true {
            try? FileManager.default.removeItem(at: url)
        }
    }
}
