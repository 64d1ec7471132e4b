import Foundation

/// What the player's display showed during the soak, gathered from `GET /api/v1/output` (which
/// keeps only its recent records, so the soak reads it every few seconds and keeps them all):
/// gaps between frames at the display, and runs of one unchanging channel picture.
struct SoakOutputWatch {
    struct Gap: Hashable { var at: Date; var ms: Double; var channel: Int? }
    struct Still: Hashable { var channel: Int?; var from: Date; var seconds: Double; var ongoing: Bool }

    /// Frames that reached the display, at the last reading.
    private(set) var framesShown = 0
    private(set) var gaps: [Gap] = []
    private(set) var stills: [Still] = []
    private var seenGaps: Set<Gap> = []
    /// Finished runs by start (an ongoing one is replaced by its later reading).
    private var stillsByStart: [String: Still] = [:]

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Adds one `/api/v1/output` body; records already seen are not counted twice.
    mutating func add(_ body: [String: Any]) {
        framesShown = body["framesShown"] as? Int ?? framesShown
        for g in body["gaps"] as? [[String: Any]] ?? [] {
            guard let at = (g["at"] as? String).flatMap({ try? Self.time.parse($0) }), let ms = g["ms"] as? Double else { continue }
            let gap = Gap(at: at, ms: ms, channel: (g["channel"] as? String).flatMap(Int.init))
            if seenGaps.insert(gap).inserted { gaps.append(gap) }
        }
        for s in body["stills"] as? [[String: Any]] ?? [] {
            guard let from = (s["from"] as? String).flatMap({ try? Self.time.parse($0) }), let seconds = s["seconds"] as? Double else { continue }
            let channel = (s["channel"] as? String).flatMap(Int.init)
            let key = "\(channel ?? 0)@\(from.timeIntervalSince1970)"
            let still = Still(channel: channel, from: from, seconds: seconds, ongoing: s["ongoing"] as? Bool ?? false)
            if let known = stillsByStart[key], !known.ongoing { continue }
            stillsByStart[key] = still
        }
        stills = stillsByStart.values.sorted { $0.from < $1.from }
    }

    /// The verdict over `from...to` (the soak after its warm-up): `flowed(channel index, from,
    /// to)` says whether a channel's source sent its stream all through a run.
    func judge(from: Date, to: Date, gop: Double, flowed: (Int, Date, Date) -> Bool) -> SoakOutputVerdict {
        let windowGaps = gaps.filter { $0.at >= from && $0.at <= to }
        let windowStills = stills.filter { $0.from >= from && $0.from <= to }
        var judged: [Still] = [], excused = 0
        for still in windowStills {
            guard let channel = still.channel else { continue }
            if flowed(channel - 1, still.from, still.from.addingTimeInterval(still.seconds)) { judged.append(still) } else { excused += 1 }
        }
        return SoakOutputVerdict(
            gapsOver100Ms: windowGaps.count, longestGaps: Array(windowGaps.sorted { $0.ms > $1.ms }.prefix(10)),
            longestStill: judged.max { $0.seconds < $1.seconds }, stillsOverGOP: judged.filter { $0.seconds > gop }.count,
            stillsExcused: excused, stillsSeen: windowStills.count, framesShown: framesShown, gop: gop)
    }
}

/// The display figures of a soak: gaps over 100 ms, and the longest unchanging picture on a
/// channel whose source was flowing (runs during a source's outage are excused).
struct SoakOutputVerdict {
    var gapsOver100Ms: Int
    /// The ten longest gaps, the longest first.
    var longestGaps: [SoakOutputWatch.Gap]
    var longestStill: SoakOutputWatch.Still?
    var stillsOverGOP: Int
    var stillsExcused: Int
    /// Runs of at least half a second in the window, judged or excused.
    var stillsSeen: Int
    /// Frames that reached the display since the player started.
    var framesShown: Int
    var gop: Double

    var longestGap: SoakOutputWatch.Gap? { longestGaps.first }
    var longestGapMs: Double { longestGap?.ms ?? 0 }
    var longestStillSeconds: Double { longestStill?.seconds ?? 0 }
    var gapsMet: Bool { longestGapMs <= 100 }
    var stillsMet: Bool { longestStillSeconds <= gop }
}
