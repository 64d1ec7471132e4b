import Foundation
import Synchronization

/// The files FoundationNetworking writes a download task's body into: `<UUID>.tmp` in TMPDIR,
/// made at the first piece of the body. It removes none of them: not the file of a download
/// stopped at the limit, given up at the deadline or failed, nor one the delegate did not move.
/// A guide server that sends more than the limit on every refresh left a file of the limit's
/// size each time.
///
/// So each bounded download finds its own: the one file of that form that is new since the
/// download began and that no other download has taken; at its end, the one of those whose size
/// is its body's. While downloads that began together cannot tell theirs apart, none takes one:
/// a file taken wrongly would be another transfer's, removed under it (and FoundationNetworking
/// traps when a file it writes to is gone). Such a file is left, as before.
enum SessionFiles {
    /// The session files in TMPDIR now, by name.
    static func names() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
        return Set(names.filter(isSessionFile))
    }

    /// Whether `name` is the form FoundationNetworking gives a download's file.
    static func isSessionFile(_ name: String) -> Bool {
        name.hasSuffix(".tmp") && UUID(uuidString: String(name.dropLast(4)))?.uuidString == String(name.dropLast(4))
    }

    /// The path of the one session file new since `before` that no other download took (of
    /// `size` bytes, when given: a finished download's file is exactly its body), now taken; nil
    /// while there is none or more than one.
    static func take(newSince before: Set<String>, size: Int64? = nil) -> String? {
        let directory = NSTemporaryDirectory()
        var new = names().subtracting(before)
        if let size {
            new = new.filter { name in
                let path = (directory as NSString).appendingPathComponent(name)
                return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value == size
            }
        }
        return taken.withLock { taken in
            let free = new.subtracting(taken)
            guard free.count == 1, let name = free.first else { return nil }
            taken.insert(name)
            return (directory as NSString).appendingPathComponent(name)
        }
    }

    /// `path` taken (the session handed it over): no other download takes it.
    static func take(_ path: String) {
        taken.withLock { _ = $0.insert((path as NSString).lastPathComponent) }
    }

    /// Lets go of `path`, removing the file when `remove` (its transfer ended without it).
    static func release(_ path: String, remove: Bool) {
        if remove { try? FileManager.default.removeItem(atPath: path) }
        taken.withLock { _ = $0.remove((path as NSString).lastPathComponent) }
    }

    private static let taken = Mutex<Set<String>>([])
}
