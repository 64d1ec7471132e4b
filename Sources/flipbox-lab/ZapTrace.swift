import FlipboxCore
import Foundation
import Lineup
import Switcher

/// A viewer's flips for the bench, generated from a seed so runs compare:
///
/// - `surf`: runs of 2 to 8 channel-up or channel-down flips with 1 to 5 s on each, now and then
///   a recall or a typed number;
/// - `evening`: long viewing (15 to 40 s) between short surfing bursts;
/// - `random`: a typed channel chosen at random each time, 1 to 3 s apart;
/// - `hold`: channel up or down held on a remote: runs of 3 to 10 flips 150 to 400 ms apart,
///   each sent without waiting for the one before to show its channel (key repeat), then 2 to 5 s
///   on the channel reached.
struct ZapTrace: Sendable, Codable {
    enum Kind: String, Sendable, Codable, CaseIterable {
        case surf, evening, random, hold
        static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    struct Step: Sendable, Codable, Hashable {
        enum Request: Sendable, Codable, Hashable {
            case next, previous, recall
            case tune(Int)
        }
        var request: Request
        /// How long the viewer stays before the next flip.
        var dwellMs: Int
        /// Whether the next flip waits for this one's result (false: key repeat, which may
        /// supersede it).
        var waits = true

        /// Up/down flips, the ones a warm plan predicts.
        var isUpDown: Bool { request == .next || request == .previous }

        func flipRequest(in lineup: Lineup) -> FlipRequest {
            switch request {
            case .next: .next
            case .previous: .previous
            case .recall: .recall
            case .tune(let i): .tune(lineup.channels[min(max(0, i), lineup.channels.count - 1)].number)
            }
        }
    }

    var kind: Kind
    var seed: UInt64
    var channels: Int
    var steps: [Step]

    init(kind: Kind, seed: UInt64, channels: Int, flips: Int) {
        self.kind = kind
        self.seed = seed
        self.channels = channels
        var rng = SplitMix64(seed: seed)
        var steps: [Step] = []
        func dwell(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        while steps.count < flips {
            switch kind {
            case .random:
                steps.append(Step(request: .tune(Int.random(in: 0..<channels, using: &rng)), dwellMs: dwell(1000...3000)))
            case .hold:
                let up = Bool.random(using: &rng)
                let presses = Int.random(in: 3...10, using: &rng)
                for press in 1...presses {
                    let last = press == presses
                    steps.append(Step(request: up ? .next : .previous, dwellMs: last ? dwell(2000...5000) : dwell(150...400), waits: last))
                }
            case .surf, .evening:
                if kind == .evening {
                    // A programme watched, then a burst of surfing.
                    steps.append(Step(request: .tune(Int.random(in: 0..<channels, using: &rng)), dwellMs: dwell(15_000...40_000)))
                }
                let up = Bool.random(using: &rng)
                for _ in 0..<Int.random(in: 2...8, using: &rng) {
                    steps.append(Step(request: up ? .next : .previous, dwellMs: dwell(1000...5000)))
                }
                switch Int.random(in: 0..<10, using: &rng) {
                case 0, 1: steps.append(Step(request: .recall, dwellMs: dwell(1000...5000)))
                case 2: steps.append(Step(request: .tune(Int.random(in: 0..<channels, using: &rng)), dwellMs: dwell(2000...6000)))
                default: break
                }
            }
        }
        self.steps = Array(steps.prefix(flips))
    }

    /// The whole trace's length in seconds (dwell only).
    var seconds: Double { Double(steps.reduce(0) { $0 + $1.dwellMs }) / 1000 }

    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
