import FlipboxCore
import Foundation
import Lineup

// Recordings in the pools (docs/recordings.md, "Recorder (media)"): a recording is a pinned
// ingest tap that names its title. It outranks flips (a flip into a pool whose streams all
// record fails at once, saying which recordings) and served clients (a recording in a full
// pool ends a client's stream before it gives up), and ranks below nothing but other recordings
// and what is on screen.
extension Headend {
    /// A pinned tap on `channel` for the recording of `title` (see `Recorder`).
    func recordingTap(_ channel: Channel, title: String) async throws -> IngestTap {
        try await openTap(channel, maxQueuedBytes: IngestTap.defaultMaxQueuedBytes, pins: true,
                          holder: Self.recordingHolder(title), recording: title)
    }

    /// How a recording is named where the pools say who holds a stream.
    static func recordingHolder(_ title: String) -> String { "a recording of \(title)" }

    /// The refusal of a flip or a client when every stream `holders` names is a recording's:
    /// `all 1 stream of pool host:port is recording: Title`. Nil when something else holds one.
    func recordingRefusal(holders: [Int], limit: Int, pool: StreamPoolID) -> String? {
        let recordings = tapHolders().filter { $0.recording != nil }
        let titles = holders.map { i in recordings.first { $0.index == i }?.recording }
        guard !titles.isEmpty, titles.allSatisfy({ $0 != nil }) else { return nil }
        let unique = titles.compactMap { $0 }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return "all \(limit) stream\(limit == 1 ? " of pool \(pool) is" : "s of pool \(pool) are") recording: \(unique.joined(separator: ", "))"
    }

    /// Ends the served clients' taps on the channels of `holders` that nothing else holds (no
    /// feed, no recording), and stops those channels, for the recording of `title`. True when
    /// a stream was let go (after `slotRelease`, so the server has freed its slot).
    func endClients(in holders: [Int], for title: String) async -> Bool {
        let kept = Set(tapHolders().filter { $0.recording != nil }.map(\.index)
            + decoders.values.compactMap { index(of: $0.source) })
        let clients = clientTaps().filter { holders.contains($0.index) && !kept.contains($0.index) }
        guard !clients.isEmpty else { return false }
        let reason = Self.recordingHolder(title)
        for client in clients {
            logger.notice("channel \(lineup.channels[client.index].number): a served client's stream ends for \(reason)")
            preemptTap(client.id, by: reason)
        }
        var release = PoolLearning.firstSlotRelease
        for i in Set(clients.map(\.index)).sorted() {
            if let pool = await stopSource(sources[i], reason: nil) { release = max(release, slotRelease(of: pool)) }
        }
        try? await Task.sleep(for: release)
        return true
    }

    /// The timeshift buffer of `channel` when it holds wall-clock time `time` (a recording that
    /// starts before the GOP cache's keyframe starts from it).
    func timeshiftBuffer(of channel: Channel, holding time: Date) -> TimeshiftBuffer? {
        guard let i = sources.firstIndex(where: { $0.channel.id == channel.id }),
              let buffer = timeshiftBuffers[i]?.buffer, let range = buffer.range, range.contains(time) else { return nil }
        return buffer
    }
}
