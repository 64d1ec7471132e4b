import Foundation
import Headend
import Lineup

/// What the clip endpoints drive: cutting clips from timeshift buffers (`ClipLibrary` in the
/// box; tests may bring their own). Errors are `ClipFailure`.
public protocol ClipControl: Sendable {
    /// Starts a clip of `channel` and returns its job at once (progress follows as `clip` events).
    /// `exact`: cut at the asked times, re-encoding the partial GOPs at the ends.
    func startClip(channel: ChannelNumber, from: ClipTime, to: ClipTime, format: ClipContainer, exact: Bool) async throws(ClipFailure) -> ClipJob
    /// Every clip, newest first.
    func clips() async -> [ClipJob]
    func clip(id: String) async -> ClipJob?
    /// The file of a finished clip; nil while it is written, after it failed, or for an unknown id.
    func clipFile(id: String) async -> URL?
    /// Removes a clip and its file (stopping it if it is being written); false for an unknown id.
    func deleteClip(id: String) async -> Bool
}

extension ClipLibrary: ClipControl {
    public func startClip(channel: ChannelNumber, from: ClipTime, to: ClipTime, format: ClipContainer, exact: Bool) async throws(ClipFailure) -> ClipJob {
        try await start(channel: channel, from: from, to: to, format: format, exact: exact)
    }
    public func clips() async -> [ClipJob] { list() }
    public func clip(id: String) async -> ClipJob? { job(id) }
    public func clipFile(id: String) async -> URL? { file(of: id) }
    public func deleteClip(id: String) async -> Bool { await delete(id) }
}
