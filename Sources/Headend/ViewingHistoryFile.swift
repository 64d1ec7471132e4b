import FlipboxCore
import Foundation

/// The viewing history (`ViewingHistory`), kept in the state directory as
/// `viewing-history.json`, written atomically (a new file renamed over the old). Any thread.
public struct ViewingHistoryFile: Sendable {
    public let path: String
    public static let fileName = "viewing-history.json"

    public init(directory: String) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
    }

    /// What was kept; empty when there is no file or it cannot be read (the history starts again).
    public func load() -> ViewingHistory {
        guard let data = FileManager.default.contents(atPath: path), data.count <= Self.maxBytes else { return ViewingHistory() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(ViewingHistory.self, from: data)) ?? ViewingHistory()
    }

    public func save(_ history: ViewingHistory) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(history)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// A file larger than this is not a history this box wrote (4096 channels of 168 hours).
    static let maxBytes = 32 << 20
}
