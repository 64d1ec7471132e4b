import Foundation
import Recordings

/// The box's recordings as the serving endpoints see them: read only. `flipbox serve` reads
/// the store in the state directory (`StoredRecordings`); `flipbox play --serve` the running
/// recording service's store. Thread-safe (`Sendable`); calls may block briefly (SQLite).
public protocol RecordingLibrary: Sendable {
    /// Every stored recording, in any state.
    func recordings() throws -> [Recording]
    /// The recording with `id`; nil when there is none.
    func recording(_ id: RecordingID) throws -> Recording?
    /// The absolute path of `recording`'s file; nil when it has none yet.
    func file(of recording: Recording) -> String?
}

/// A `RecordingLibrary` over a `RecordingStore`, the files under `directory` (the box's
/// recordings directory: a stored file path is relative to it).
public struct StoredRecordings: RecordingLibrary {
    public let store: RecordingStore
    public let directory: URL

    public init(store: RecordingStore, directory: URL) {
        self.store = store
        self.directory = directory
    }

    /// The recordings kept in `stateDirectory` (`recordings.sqlite`), their files under
    /// `directory`; nil when the box has never kept any (no store there: none is made).
    public static func open(stateDirectory: String, directory: URL) throws(RecordingError) -> StoredRecordings? {
        let path = (stateDirectory as NSString).appendingPathComponent(RecordingStore.fileName)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return StoredRecordings(store: try RecordingStore(directory: stateDirectory), directory: directory)
    }

    public func recordings() throws -> [Recording] { try store.recordings() }

    public func recording(_ id: RecordingID) throws -> Recording? { try store.recording(id) }

    public func file(of recording: Recording) -> String? {
        guard let path = recording.filePath, !path.isEmpty else { return nil }
        return path.hasPrefix("/") ? path : directory.appendingPathComponent(path).path
    }
}
