import Foundation
import Lineup

/// Remembers the last channel played across restarts, in a small JSON file written atomically
/// (a temporary file renamed over the old one), so a power cut never leaves half a file.
public final class LastChannelStore: Sendable {
    public struct Record: Codable, Sendable, Hashable {
        public var id: String
        public var number: String
        /// The lineup file it belongs to, when known.
        public var lineup: String?
    }

    public let path: String
    private let queue = DispatchQueue(label: "flipbox-state")

    public init(path: String) {
        self.path = path
    }

    /// `$FLIPBOX_STATE_DIR/state.json`, else `$XDG_STATE_HOME/flipbox/state.json`, else
    /// `~/.local/state/flipbox/state.json`.
    public static func defaultPath() -> String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["FLIPBOX_STATE_DIR"], !dir.isEmpty { return (dir as NSString).appendingPathComponent("state.json") }
        let base = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return ((base as NSString).appendingPathComponent("flipbox") as NSString).appendingPathComponent("state.json")
    }

    /// The stored record, or nil when there is none or it cannot be read (a broken file is
    /// treated as no file: the player starts on its default channel).
    public func load() -> Record? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// The index in `lineup` of the stored channel: by id first, then by number.
    public func storedIndex(in lineup: Lineup) -> Int? {
        guard let record = load() else { return nil }
        if let i = lineup.channels.firstIndex(where: { $0.id == record.id }) { return i }
        return ChannelNumber(record.number).flatMap { lineup.index(of: $0) }
    }

    /// Writes `record` in the background (writes are ordered; the newest wins).
    public func save(_ record: Record, onError: @escaping @Sendable (String) -> Void = { _ in }) {
        let path = self.path
        queue.async {
            do {
                try Self.write(record, to: path)
            } catch {
                onError("cannot remember the last channel in \(path): \(error.localizedDescription)")
            }
        }
    }

    /// Waits until every save so far is on disk, without holding the caller's thread.
    public func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }

    static func write(_ record: Record, to path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // `.atomic` writes a temporary file in the same directory and renames it over `path`.
        try encoder.encode(record).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
