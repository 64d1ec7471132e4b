import Foundation

/// Keeps channels at one loudness, so a flip does not jump in volume: a value that measures
/// the sound of each feed and gives the gain to play it with.
///
/// The measure is the mean square of the samples (on a full scale of 1) over about the last
/// `window`, ignoring blocks quieter than `silence` (a pause must not be boosted). A feed's first
/// `learning` of loud-enough sound sets its level as it comes: the mean of all of it so far,
/// the gain following at once, so the gain is right from the first sound after a flip (a warm
/// flip starts with cached sound) and one odd first block (a sound that starts inside it) does
/// not decide it. After that the gain follows the level by at most `slew` per second, so speech
/// and music are not pumped. The gain stays within ±`range`. No clock: each block says how
/// long it lasts.
public struct LoudnessLeveller: Sendable {
    /// The loudness every channel is brought to, in dB of full scale (RMS; a full-scale sine is
    /// -3 dBFS). Broadcast programmes at -23 LUFS measure about -20 to -26 dBFS this way.
    public static let target = -23.0
    public static let range = 15.0
    public static let silence = -55.0
    public static let slew = 3.0
    public static let window = 3.0
    public static let learning = 1.0

    private struct Level: Sendable {
        var meanSquare: Double
        var gainDB: Double
        /// Seconds of loud-enough sound measured.
        var heard: Double
    }

    private var levels: [UInt: Level] = [:]
    private var order: [UInt] = []

    public init() {}

    /// The linear gain for a block of `feed`'s sound: `energy` (sum of squares, full scale 1)
    /// over `samples` samples lasting `seconds`.
    public mutating func gain(feed: UInt, energy: Double, samples: Int, seconds: Double) -> Double {
        guard samples > 0 else { return Self.linear(levels[feed]?.gainDB ?? 0) }
        let meanSquare = energy / Double(samples)
        let loudEnough = Self.decibels(meanSquare) > Self.silence
        guard var level = levels[feed] else {
            guard loudEnough else { return 1 }
            remember(feed, Level(meanSquare: meanSquare, gainDB: Self.wanted(meanSquare), heard: seconds))
            return Self.linear(levels[feed]!.gainDB)
        }
        if loudEnough {
            if level.heard < Self.learning {
                // Still learning the feed: the mean of everything heard, the gain at once.
                let heard = level.heard + seconds
                level.meanSquare += (meanSquare - level.meanSquare) * (heard > 0 ? seconds / heard : 1)
                level.gainDB = Self.wanted(level.meanSquare)
                level.heard = heard
            } else {
                let alpha = min(1, seconds / Self.window)
                level.meanSquare += alpha * (meanSquare - level.meanSquare)
                let step = Self.slew * seconds
                level.gainDB += max(-step, min(step, Self.wanted(level.meanSquare) - level.gainDB))
            }
            levels[feed] = level
        }
        return Self.linear(level.gainDB)
    }

    /// The gain that brings `meanSquare` to the target, within the range.
    static func wanted(_ meanSquare: Double) -> Double {
        max(-range, min(range, target - decibels(meanSquare)))
    }

    static func decibels(_ meanSquare: Double) -> Double { 10 * log10(max(meanSquare, 1e-12)) }
    static func linear(_ db: Double) -> Double { pow(10, db / 20) }

    /// Keeps the levels of the last 16 feeds (a flip makes a new feed).
    private mutating func remember(_ feed: UInt, _ level: Level) {
        levels[feed] = level
        order.append(feed)
        if order.count > 16 { levels.removeValue(forKey: order.removeFirst()) }
    }
}
