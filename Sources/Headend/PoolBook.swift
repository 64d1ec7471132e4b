import FlipboxCore
import Foundation
import Lineup
import Synchronization

/// What the box was told of its pools and where it keeps what it learns: the `StreamPoolMap`
/// (command line and lineup) and the file of learned limits in the state directory (nil: learned
/// limits last until the process ends).
extension StreamPoolMap {
    /// The lineup's `pools:` (each limit the lineup author's, or the source's own word) and its
    /// `max-streams`.
    public init(lineup: Lineup) {
        self.init(declared: lineup.pools.map {
            Declared(name: $0.name, match: $0.match, streams: $0.streams, bandwidth: $0.bandwidth?.bitsPerSecond,
                     origin: $0.toldBySource ? .source : .lineup)
        }, lineupLimit: lineup.settings.maxStreams)
    }
}

public struct PoolSettings: Sendable {
    public var map: StreamPoolMap
    public var learnedFile: LearnedPoolLimits?
    /// Where what the box is watched on, hour by hour, is kept (nil: only while the process runs).
    public var historyFile: ViewingHistoryFile?

    public init(map: StreamPoolMap = StreamPoolMap(), learnedFile: LearnedPoolLimits? = nil, historyFile: ViewingHistoryFile? = nil) {
        self.map = map
        self.learnedFile = learnedFile
        self.historyFile = historyFile
    }
}

/// The learned limits of pools, kept in the state directory as JSON
/// (`{"192.168.1.20:5004": {"streams": 4, "evidence": "refusal"}}`), written atomically
/// (a new file renamed over the old) each time one changes. Any thread.
public struct LearnedPoolLimits: Sendable {
    public let path: String
    public static let fileName = "learned-limits.json"

    public init(directory: String) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
    }

    /// What was learned before; empty when there is no file, and when it cannot be read (then
    /// the limits are learned again, which costs one refusal or one ended stream per pool).
    public func load() -> [String: PoolLearning.Learned] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        let decoded = (try? JSONDecoder().decode([String: PoolLearning.Learned].self, from: data)) ?? [:]
        return decoded.filter { (1...PoolLimit.maxStreams).contains($0.value.streams) }
    }

    public func save(_ limits: [String: PoolLearning.Learned]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(limits)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// One pool as `GET /api/v1/status`, `/metrics` and `flipbox doctor` show it.
public struct PoolStatus: Sendable, Hashable, Codable {
    public var name: String
    /// The limit in force, nil: none known (the pool is not rationed as far as the box knows).
    public var limit: Int?
    /// Where it came from: `command line`, `lineup`, `told by the source`, `learned`.
    public var limitOrigin: String?
    /// Streams open now, and to which channel and for whom (`5 (the screen)`, `7 (warm)`).
    public var open: Int
    public var holders: [String]
    /// Connection attempts, refusals and streams the server ended since the start.
    public var attempts: Int
    public var refusals: Int
    public var endedByServer: Int
    /// Connections of warm channels held back by the pool's allowance (`PoolAttempts`) or the
    /// source's `Retry-After`.
    public var heldBack: Int
    /// Flips whose channel in this pool was warm, and all flips to this pool's channels.
    public var warmFlips: Int
    public var flips: Int
}

/// What the head-end keeps per pool: learning and counters. Media thread.
struct PoolBook {
    var settings: PoolSettings
    var learning: [StreamPoolID: PoolLearning] = [:]
    var counts: [StreamPoolID: Counts] = [:]
    /// Background connections per pool (`PoolAttempts`), and when holding them back was last said.
    var attempts: [StreamPoolID: PoolAttempts] = [:]
    var heldBackSaid: [StreamPoolID: ContinuousClock.Instant] = [:]

    struct Counts {
        /// Background connections held back by the pool's allowance or the server's `Retry-After`.
        var heldBack = 0
        var attempts = 0
        var refusals = 0
        var endedByServer = 0
        var warmFlips = 0
        var flips = 0
    }

    init(settings: PoolSettings) {
        self.settings = settings
        let now = ContinuousClock.now
        for (name, learned) in settings.learnedFile?.load() ?? [:] {
            learning[StreamPoolID(name)] = PoolLearning(learned: learned, at: now)
        }
    }

    /// The limit in force for `pool`: given (command line, lineup) over learned.
    func limit(of pool: StreamPoolID) -> PoolLimit? {
        if let given = settings.map.givenLimit(of: pool) { return given }
        return learning[pool]?.learned.map { PoolLimit(streams: $0.streams, origin: .learned) }
    }

    /// Writes the learned limits (a failure is the caller's to log).
    func saveLearned() throws {
        guard let file = settings.learnedFile else { return }
        var all: [String: PoolLearning.Learned] = [:]
        for (pool, learning) in learning { if let learned = learning.learned { all[pool.name] = learned } }
        try file.save(all)
    }
}

/// The pools' status as last refreshed by the head-end, readable from any thread (the player's
/// status is made without waiting for the media thread).
final class PoolView: Sendable {
    private let value = Mutex<[PoolStatus]>([])
    var pools: [PoolStatus] { value.withLock { $0 } }
    func set(_ pools: [PoolStatus]) { value.withLock { $0 = pools } }
}
