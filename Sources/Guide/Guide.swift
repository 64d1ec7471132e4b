import Foundation
import Lineup
import Logging

/// The programme guide of a lineup: where it comes from, the store that holds it, which guide
/// channel each lineup channel takes, and the questions the box asks it ("what is on now and
/// next", "what is on between these times").
///
/// Thread-safe (`Sendable`): queries come from any thread and are answered from SQLite (two
/// index lookups for now/next); one refresh runs at a time, on a thread of its own, while
/// queries keep answering from the old guide until the new one is committed.
public final class Guide: Sendable {
    public let store: GuideStore
    /// The viewer's reminders, kept beside the guide (`reminders.sqlite`).
    public let reminders: ReminderStore
    /// Guide files and URLs, as the lineup names them (files as absolute paths).
    public let sources: [String]
    /// The lineup whose channels the guide matches (`take` gives it a later reading).
    public var lineup: Lineup { state.withLock { $0.lineup } }
    /// How often ``keepFresh()`` refreshes; nil: only on request.
    public let refreshInterval: Duration?
    /// How long the download of one guide URL may take in all (however slowly it trickles).
    public let downloadDeadline: Duration
    private let stateDirectory: String
    private let logger: Logger
    private let state = LockedState()

    /// The store's file name in the state directory.
    public static let fileName = "guide.sqlite"

    /// Opens the guide of `lineup` stored in `stateDirectory` (created if needed). Does not
    /// download or import anything: the stored guide answers at once; call ``refresh()`` or
    /// ``keepFresh()`` to bring it up to date. `downloadDeadline`: see ``downloadDeadline``
    /// (default 10 minutes).
    public init(
        stateDirectory: String, lineup: Lineup, downloadDeadline: Duration = GuideDownload.defaultDeadline,
        logger: Logger = Logger(label: "flipbox.guide")
    ) throws(GuideError) {
        self.stateDirectory = stateDirectory
        state.withLock { $0.lineup = lineup }
        self.sources = lineup.guideURLs
        self.refreshInterval = lineup.guideRefresh
        self.downloadDeadline = downloadDeadline
        self.logger = logger
        store = try GuideStore(path: (stateDirectory as NSString).appendingPathComponent(Self.fileName))
        reminders = try ReminderStore(directory: stateDirectory)
        rematch()
    }

    // MARK: Queries

    /// The programme on now (nil in a gap or without a guide) and the next one on a lineup
    /// channel, by the lineup channel's id. Never throws: a store that cannot be read answers
    /// nothing (and logs why).
    public func nowNext(channelID: String, at instant: Date = Date()) -> (now: Programme?, next: Programme?) {
        guard let guideChannel = match.guideChannel(for: channelID) else { return (nil, nil) }
        do {
            return try store.nowNext(guideChannel: guideChannel, at: instant)
        } catch {
            logger.warning("guide lookup failed: \(error)")
            return (nil, nil)
        }
    }

    /// Programmes on at some moment in `from..<to` on lineup channels (by id), in time order.
    /// Channels without a guide match have empty lists.
    public func programmes(channelIDs: [String], from: Date, to: Date) throws(GuideError) -> [String: [Programme]] {
        let match = self.match
        let guideChannels = channelIDs.compactMap(match.guideChannel(for:))
        let byGuideChannel = try store.programmes(guideChannels: guideChannels, from: from, to: to)
        var result: [String: [Programme]] = [:]
        for id in channelIDs {
            result[id] = match.guideChannel(for: id).flatMap { byGuideChannel[$0] } ?? []
        }
        return result
    }

    /// Calls `observer` after every successful refresh (on the refreshing task; keep it short).
    public func onRefresh(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Which guide channel each lineup channel takes (recomputed after every import).
    public var match: GuideMatch { state.withLock { $0.match } }

    /// What the box knows about its guide: sources, the stored import, the last refresh's error.
    public var status: GuideStatus {
        let info = try? store.info()
        return state.withLock { s in
            GuideStatus(
                sources: sources, importedAt: info?.importedAt, programmes: info?.programmes ?? 0,
                channels: info?.channels ?? 0, matchedChannels: s.match.entries.count,
                lastAttempt: s.lastAttempt, lastError: s.lastError?.description, refreshing: s.refreshing)
        }
    }

    /// Whether the stored guide is missing, from other sources, or older than the interval.
    public func needsRefresh(now: Date = Date()) -> Bool {
        guard !sources.isEmpty else { return false }
        guard let info = try? store.info(), info.sources == sources else { return true }
        guard let interval = refreshInterval else { return false }
        return now.timeIntervalSince(info.importedAt) >= interval.seconds
    }

    // MARK: Refresh

    /// Downloads (URLs) and imports every source into a fresh table set, then swaps it in.
    /// On any failure the old guide stays and the error says which source and line.
    /// Throws `.busy` when a refresh is already running, `.noSource` when the lineup names no guide.
    @discardableResult
    public func refresh() async throws(GuideError) -> GuideImportSummary {
        guard !sources.isEmpty else { throw GuideError(.noSource, "the lineup names no guide (url-tvg in M3U, guide: in YAML)") }
        let claimed = state.withLock { s -> Bool in
            if s.refreshing { return false }
            s.refreshing = true
            s.lastAttempt = Date()
            return true
        }
        guard claimed else { throw GuideError(.busy, "a guide refresh is already running") }
        do {
            let summary = try await importSources()
            rematch()
            let observers = state.withLock { s in
                s.lastError = nil
                s.refreshing = false
                return s.observers
            }
            for observer in observers { observer() }
            logger.notice("guide imported", metadata: [
                "programmes": "\(summary.programmes)", "channels": "\(summary.channels)",
                "matched": "\(match.entries.count)/\(lineup.channels.count)",
                "seconds": "\(String(format: "%.1f", summary.seconds))",
            ])
            if summary.skipped > 0 {
                logger.warning("guide: skipped \(summary.skipped) unusable programme(s): \(summary.skipReasons.joined(separator: "; "))")
            }
            return summary
        } catch {
            state.withLock { $0.lastError = error; $0.refreshing = false }
            logger.error("guide refresh failed, keeping the old guide: \(error)")
            throw error
        }
    }

    /// Refreshes now if the stored guide is stale, then every ``refreshInterval``, until the task
    /// is cancelled. A failed refresh is logged and tried again after a minute (then doubling up
    /// to the interval); the old guide stays meanwhile.
    public func keepFresh() async {
        guard !sources.isEmpty else { return }
        var retry: Double = 60
        while !Task.isCancelled {
            var wait = refreshInterval?.seconds ?? .infinity
            if needsRefresh() {
                do {
                    try await refresh()
                    retry = 60
                } catch where error.code != .busy {
                    wait = min(retry, wait)
                    retry = min(retry * 2, refreshInterval?.seconds ?? 3600)
                } catch {}
            } else if let info = try? store.info(), let interval = refreshInterval?.seconds {
                wait = max(1, interval - Date().timeIntervalSince(info.importedAt))
            }
            guard wait.isFinite else { return }
            do { try await Task.sleep(for: .seconds(wait)) } catch { return }
        }
    }

    private func importSources() async throws(GuideError) -> GuideImportSummary {
        var inputs: [GuideStore.Input] = []
        var downloads: [String] = []
        defer { for file in downloads { try? FileManager.default.removeItem(atPath: file) } }
        for (index, source) in sources.enumerated() {
            if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
                let file = (stateDirectory as NSString).appendingPathComponent("guide-download-\(index).tmp")
                downloads.append(file)
                try await GuideDownload.fetch(url, to: file, deadline: downloadDeadline)
                inputs.append(GuideStore.Input(name: source) { () throws(GuideError) in try GuideFile.open(path: file) })
            } else {
                let path = source.hasPrefix("file://") ? (URL(string: source)?.path ?? source) : source
                inputs.append(GuideStore.Input(name: source) { () throws(GuideError) in try GuideFile.open(path: path) })
            }
        }
        let store = self.store
        let sources = self.sources
        let box = UncheckedInputs(inputs: inputs)
        // The import blocks for seconds: give it a thread of its own, not the cooperative pool.
        let result: Result<GuideImportSummary, GuideError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do throws(GuideError) {
                    continuation.resume(returning: .success(try store.replace(with: box.inputs, sources: sources)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// The lineup read again (`Lineup.taking`): its channels, new ones among them, are matched
    /// to the guide's channels now, from the stored guide (no download).
    public func take(_ lineup: Lineup) {
        state.withLock { $0.lineup = lineup }
        rematch()
    }

    private func rematch() {
        let channels: [GuideChannel]
        do { channels = try store.channels() } catch {
            logger.warning("guide channels unreadable: \(error)")
            channels = []
        }
        let match = GuideMatch(lineup: lineup, guideChannels: channels)
        state.withLock { $0.match = match }
    }
}

/// The inputs of one import, handed to the import thread and used only there.
private struct UncheckedInputs: @unchecked Sendable {
    let inputs: [GuideStore.Input]
}

/// The guide's mutable state behind a lock.
private final class LockedState: @unchecked Sendable {
    struct Values {
        var match = GuideMatch()
        var lineup = Lineup(channels: [])
        var refreshing = false
        var lastAttempt: Date?
        var lastError: GuideError?
        var observers: [@Sendable () -> Void] = []
    }

    private let lock = NSLock()
    private var values = Values()

    func withLock<T>(_ body: (inout Values) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&values)
    }
}

/// The guide's state for `/status`-like reports and the API.
public struct GuideStatus: Sendable, Hashable, Codable {
    public var sources: [String]
    public var importedAt: Date?
    public var programmes: Int
    public var channels: Int
    public var matchedChannels: Int
    public var lastAttempt: Date?
    /// Why the last refresh failed; nil after a good one.
    public var lastError: String?
    public var refreshing: Bool
}
