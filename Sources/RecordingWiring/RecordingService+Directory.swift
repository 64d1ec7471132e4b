import Foundation
import Recordings

extension RecordingService {
    /// Makes the recordings directory when missing and writes a probe file into it; the error
    /// (`.storage`, the path as its source) says how to fix it.
    static func checkWritable(_ directory: URL) throws(RecordingError) {
        let path = directory.path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw RecordingError(.storage, """
                the recordings directory \(path) cannot be made (\(error.localizedDescription)); \
                make it and give the box's user write access, or choose another with --recordings-dir
                """, source: path)
        }
        let probe = directory.appendingPathComponent(".flipbox-write-check-\(getpid())")
        guard FileManager.default.createFile(atPath: probe.path, contents: Data("ok".utf8)) else {
            throw RecordingError(.storage, """
                the recordings directory \(path) is not writable; give the box's user write access \
                (chown or chmod it), or choose another with --recordings-dir
                """, source: path)
        }
        try? FileManager.default.removeItem(at: probe)
    }
}
