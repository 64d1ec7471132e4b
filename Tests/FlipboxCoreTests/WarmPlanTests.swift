@testable import FlipboxCore
import Lineup
import Testing

/// The warm policy with a budget, as pure logic: no GStreamer, no clock.
@Suite struct WarmPlanTests {
    let mb = 1 << 20

    @Test func priorityIsCurrentLastNeighboursByDistanceFavouritesThenTheRest() {
        // 10 channels, on 4, last 8, favourites 0 and 9, neighbours within 2.
        let order = WarmPlan.priority(count: 10, current: 4, last: 8, favourites: [9, 0], radius: 2)
        #expect(order == [4, 8, 5, 3, 6, 2, 0, 9, 7, 1])
        #expect(Set(order).count == 10)
    }

    @Test func priorityWrapsAroundTheLineupAndWorksWithoutACurrentChannel() {
        #expect(WarmPlan.priority(count: 5, current: 0, last: nil, favourites: [], radius: 1) == [0, 1, 4, 2, 3])
        #expect(WarmPlan.priority(count: 3, current: nil, last: nil, favourites: [2], radius: 1) == [2, 0, 1])
        #expect(WarmPlan.priority(count: 0, current: nil, last: nil, favourites: [], radius: 1).isEmpty)
        #expect(WarmPlan.priority(count: 1, current: 0, last: 0, favourites: [0], radius: 3) == [0])
    }

    @Test func withoutABudgetThePolicyDecides() {
        let inputs = WarmPlan.Inputs(count: 6, current: 2, last: nil)
        #expect(WarmPlan.make(policy: .all, budget: .unlimited, inputs: inputs) == WarmPlan(running: Set(0..<6)))
        #expect(WarmPlan.make(policy: .neighbours(1), budget: .unlimited, inputs: inputs) == WarmPlan(running: [1, 2, 3]))
        #expect(WarmPlan.make(policy: .none, budget: .unlimited, inputs: inputs) == WarmPlan(running: [2]))
    }

    @Test func theOpenFileLimitBoundsTheWarmSetAndSaysSo() {
        #expect(WarmBudget.channels(forFileLimit: 1024) == 96)
        #expect(WarmBudget.channels(forFileLimit: 100) == 1, "the channel on screen always runs")
        var budget = WarmBudget(maxChannels: 50)
        budget.openFileChannels = 3
        let plan = WarmPlan.make(policy: .all, budget: budget, inputs: WarmPlan.Inputs(count: 10, current: 5, last: nil))
        #expect(plan.running == [5, 6, 4])
        #expect(plan.heldCold[0] == "the limit on open files leaves room for 3 running channels")
        #expect(plan.heldCold.count == 7)
    }

    @Test func aChannelBudgetKeepsTheMostLikelyChannelsAndSaysWhyTheOthersAreCold() {
        let budget = WarmBudget(maxChannels: 3)
        let plan = WarmPlan.make(policy: .all, budget: budget, inputs: WarmPlan.Inputs(count: 6, current: 0, last: nil))
        #expect(plan.running == [0, 1, 5])
        #expect(plan.heldCold.keys.sorted() == [2, 3, 4])
        #expect(plan.heldCold[2] == "over the warm budget of 3 channels")

        // After a flip from 0 to 3: 3 is on screen, 0 is the last channel, then 4 (next) beats 2.
        let moved = WarmPlan.make(policy: .all, budget: budget, inputs: WarmPlan.Inputs(count: 6, current: 3, last: 0))
        #expect(moved.running == [3, 0, 4])
    }

    @Test func favouritesComeAfterTheNeighboursAndBeforeTheRest() {
        let inputs = WarmPlan.Inputs(count: 12, current: 5, last: nil, favourites: [10])
        #expect(WarmPlan.make(policy: .all, budget: WarmBudget(maxChannels: 6), inputs: inputs).running == [5, 6, 4, 7, 3, 10])
        #expect(WarmPlan.make(policy: .all, budget: WarmBudget(maxChannels: 4), inputs: inputs).running == [5, 6, 4, 7])
        // The neighbours policy wants only its radius and the favourites; the budget trims that.
        #expect(WarmPlan.make(policy: .neighbours(1), budget: WarmBudget(maxChannels: 3), inputs: inputs).running == [5, 6, 4])
        #expect(WarmPlan.make(policy: .neighbours(1), budget: WarmBudget(maxChannels: 9), inputs: inputs).running == [5, 6, 4, 10])
    }

    @Test func channelsBeingDecodedAlwaysRunAndCountAgainstTheBudget() {
        // A flip from 0 to 4 is on its way: both are decoded.
        let inputs = WarmPlan.Inputs(count: 8, current: 0, last: nil, shown: [0, 4])
        let plan = WarmPlan.make(policy: .all, budget: WarmBudget(maxChannels: 3), inputs: inputs)
        #expect(plan.running.isSuperset(of: [0, 4]))
        #expect(plan.running.count == 3, "\(plan.running)")
        #expect(plan.running.contains(1), "the next channel fills the one slot left")
        // The on-screen channel runs even when it alone is over the budget.
        let tight = WarmPlan.make(policy: .all, budget: WarmBudget(memoryBytes: mb), inputs:
            WarmPlan.Inputs(count: 3, current: 1, last: nil, gopBytes: [nil, 5 * mb, nil]))
        #expect(tight.running == [1])
    }

    @Test func aMemoryBudgetAddsMeasuredGOPsInPriorityOrderAndSkipsWhatDoesNotFit() {
        // On 0; GOPs 2 MB each except channel 1 (9 MB); budget 10 MB.
        let sizes: [Int?] = [2 * mb, 9 * mb, 2 * mb, 2 * mb, 2 * mb, 2 * mb]
        let plan = WarmPlan.make(policy: .all, budget: WarmBudget(memoryBytes: 10 * mb),
                                 inputs: WarmPlan.Inputs(count: 6, current: 0, last: nil, gopBytes: sizes))
        // 0 (2), then 1 does not fit (2 + 9 > 10), 5 (4), 2 (6), 4 (8), 3 (10).
        #expect(plan.running == [0, 5, 2, 4, 3])
        #expect(plan.heldCold[1]?.hasPrefix("over the warm memory budget of 10 MB") == true, "\(plan.heldCold)")
        // Channels not measured yet are counted at the assumed size.
        let unknown = WarmPlan.make(policy: .all, budget: WarmBudget(memoryBytes: 3 * WarmBudget.assumedGOPBytes),
                                    inputs: WarmPlan.Inputs(count: 6, current: 0, last: nil))
        #expect(unknown.running == [0, 1, 5])
    }

    @Test func aGOPTooLongForTheChannelLimitHoldsTheChannelColdWithAReason() {
        let budget = WarmBudget(channelBytes: 4 * mb)
        let plan = WarmPlan.make(policy: .all, budget: budget,
                                 inputs: WarmPlan.Inputs(count: 3, current: 0, last: nil, gopBytes: [nil, 6 * mb, 3 * mb]))
        #expect(plan.running == [0, 2])
        #expect(plan.heldCold[1] == "keyframe interval too long: one GOP needs 6.0 MB, more than the 4.0 MB a channel may cache")
        // The whole memory budget is also a per-channel limit.
        #expect(WarmBudget(memoryBytes: mb, channelBytes: 4 * mb).cacheLimit == mb)
    }

    @Test func budgetsParseFromSettingsAndTheCommandLine() throws {
        #expect(WarmBudget.parseBytes("256MB") == 256 * mb)
        #expect(WarmBudget.parseBytes("256 MiB") == 256 * mb)
        #expect(WarmBudget.parseBytes("1.5G") == 3 * 512 * mb)
        #expect(WarmBudget.parseBytes("512k") == 512 * 1024)
        #expect(WarmBudget.parseBytes("4096") == 4096)
        #expect(WarmBudget.parseBytes("lots") == nil)
        #expect(WarmBudget.parseBytes("12 parsecs") == nil)
        #expect(WarmBudget.parseBytes("") == nil)

        let budget = WarmBudget(LineupSettings(["warm-max-channels": "8", "warm-memory": "64MB", "warm-channel-memory": "8MB", "warm": "all"]))
        #expect(budget == WarmBudget(maxChannels: 8, memoryBytes: 64 * mb, channelBytes: 8 * mb))
        #expect(WarmBudget(LineupSettings()) == .unlimited)
        #expect(throws: WarmBudget.Invalid.self) { try WarmBudget.channelCount("0", setting: "--warm-max") }
        #expect(throws: WarmBudget.Invalid.self) { try WarmBudget.bytes("a lot", setting: "--warm-memory") }
        #expect("\(budget)" == "at most 8 channels, 64 MB of GOP cache, 8.0 MB per channel")
    }

    @Test func heldColdIsAColdTierWithItsReason() {
        let state = ChannelState.parked(reason: "over the warm budget of 3 channels")
        #expect(state.tier == .cold)
        #expect(state.reason == "over the warm budget of 3 channels")
        #expect(state.description == "cold: over the warm budget of 3 channels")
    }
}

extension WarmPlanTests {
    @Test func theNeighbourInTheDirectionOfTheLastFlipComesFirst() {
        // Flipped down from 5 to 4: 3 is the most likely next, then back to 5.
        #expect(WarmPlan.priority(count: 10, current: 4, last: 5, favourites: [], radius: 1) == [4, 3, 5, 2, 6, 1, 7, 0, 8, 9])
        // Flipped up from 3 to 4: 5 first, then back to 3.
        #expect(WarmPlan.priority(count: 10, current: 4, last: 3, favourites: [], radius: 1) == [4, 5, 3, 6, 2, 7, 1, 8, 0, 9])
        // Across the end of the lineup: up from 9 to 0.
        #expect(WarmPlan.priority(count: 10, current: 0, last: 9, favourites: [], radius: 1).prefix(3) == [0, 1, 9])
    }

    @Test func aPoolKeepsItsLimitWithTheScreenTheNextOneAndTheLastChannel() {
        let tuner = StreamPoolID("HDHomeRun")
        let inputs = WarmPlan.Inputs(count: 12, current: 5, last: 4, shown: [5], pools: Array(repeating: tuner, count: 10) + [nil, nil],
                                     limits: [tuner: 4], running: [5, 4, 6, 9])
        let plan = WarmPlan.make(policy: .all, budget: .unlimited, inputs: inputs)
        #expect(plan.running == [5, 4, 6, 10, 11], "the screen, the last channel, the next one; channels in no pool all run")
        #expect(plan.heldCold[9] == "not kept warm: 3 of 4 streams of HDHomeRun in use, 1 kept free for a flip")
        #expect(plan.heldCold.count == 7)
    }
}

extension WarmPlanTests {
    @Test func aTwoStreamPoolKeepsTheNextChannelInTheDirectionOfTheFlips() {
        let iptv = StreamPoolID("My IPTV")
        // Up from 4 to 5; 4 (the last channel) is still warm: 6 takes the slot all the same.
        let inputs = WarmPlan.Inputs(count: 12, current: 5, last: 4, shown: [5], pools: Array(repeating: iptv, count: 12),
                                     limits: [iptv: 2], running: [5, 4])
        let plan = WarmPlan.make(policy: .all, budget: .unlimited, inputs: inputs)
        #expect(plan.running == [5, 6])
        // After a jump from 9 to 5, the way back is the best guess.
        let jumped = WarmPlan.make(policy: .all, budget: .unlimited, inputs: WarmPlan.Inputs(
            count: 12, current: 5, last: 9, shown: [5], pools: Array(repeating: iptv, count: 12), limits: [iptv: 2], running: [5, 9]))
        #expect(jumped.running == [5, 9])
    }
}

extension WarmPlanTests {
    /// `warm-bandwidth`: the warm channels take at most the link's share, as their ingests
    /// measure it, the channel on screen counting first; a pool's `bandwidth` the same for its own.
    @Test func warmChannelsStayWithinTheWarmBandwidth() {
        let mbps = 1_000_000
        // 10 channels of 3 Mb/s measured; on 0, last 4: 0, 4, 1 and 9 ranked first.
        let inputs = WarmPlan.Inputs(count: 10, current: 0, last: 4, shown: [0], bitrates: Array(repeating: 3 * mbps, count: 10))
        let plan = WarmPlan.make(policy: .all, budget: WarmBudget(bandwidth: 10 * mbps), inputs: inputs)
        #expect(plan.running == [0, 4, 1], "3 channels of 3 Mb/s in 10 Mb/s: \(plan.running.sorted())")
        #expect(plan.heldCold[9] == "over the warm bandwidth of 10 Mb/s (its stream takes 3.0 Mb/s, 9.0 Mb/s in use)")
        // The channel on screen always runs, and counts: a heavy one leaves less for the others.
        var heavy = inputs
        heavy.bitrates[0] = 8 * mbps
        #expect(WarmPlan.make(policy: .all, budget: WarmBudget(bandwidth: 10 * mbps), inputs: heavy).running == [0])
        // Channels not measured yet are taken to need what the measured ones do (their median).
        var unmeasured = inputs
        unmeasured.bitrates = [3 * mbps, 1 * mbps, 2 * mbps] + Array(repeating: nil, count: 7)
        #expect(unmeasured.typicalBitrate == 2 * mbps)
        #expect(WarmPlan.make(policy: .all, budget: WarmBudget(bandwidth: 10 * mbps), inputs: unmeasured).running == [0, 4, 1, 9, 2],
                "3 + 2 + 1 + 2 + 2 = 10 Mb/s")
        #expect(WarmPlan.Inputs(count: 2, current: 0, last: nil).typicalBitrate == WarmBudget.assumedBitrate)
    }

    @Test func aPoolsBandwidthBoundsItsOwnWarmChannels() {
        let mbps = 1_000_000
        let iptv = StreamPoolID("My IPTV")
        // Channels 0-5 from the IPTV account (8 Mb/s for its warm channels), 6-9 multicast.
        let inputs = WarmPlan.Inputs(count: 10, current: 0, last: nil, shown: [0], pools: Array(repeating: iptv, count: 6) + Array(repeating: nil, count: 4),
                                     bitrates: Array(repeating: 3 * mbps, count: 10), poolBandwidths: [iptv: 8 * mbps])
        let plan = WarmPlan.make(policy: .all, budget: .unlimited, inputs: inputs)
        #expect(plan.running == [0, 1, 6, 7, 8, 9], "the screen and one more of the account; every multicast channel: \(plan.running.sorted())")
        #expect(plan.heldCold[5] == "over the bandwidth of My IPTV of 8.0 Mb/s (its stream takes 3.0 Mb/s, 6.0 Mb/s in use)")
    }

    @Test func ratesParseAsLinksAreSold() throws {
        #expect(BitRate("40Mbps")?.bitsPerSecond == 40_000_000)
        #expect(BitRate("40 Mb/s")?.bitsPerSecond == 40_000_000)
        #expect(BitRate("1.5G")?.bitsPerSecond == 1_500_000_000)
        #expect(BitRate("800kbps")?.bitsPerSecond == 800_000)
        #expect(BitRate("64000")?.bitsPerSecond == 64_000)
        #expect(BitRate("lots") == nil)
        #expect(BitRate("0") == nil)
        #expect(BitRate("999999999999999999999999Gbps") == nil, "beyond any link")
        #expect(BitRate("-5M") == nil)
        let budget = WarmBudget(LineupSettings(["warm-bandwidth": "40Mbps"]))
        #expect(budget.bandwidth == 40_000_000)
        #expect("\(budget)" == "40 Mb/s of warm streams")
        let bad = LineupSettings(["warm-bandwidth": "fast"])
        #expect(bad.warmBandwidth == nil)
    }
}

extension WarmPlanTests {
    /// The channels usually watched at this hour come after the keys' neighbours, the last
    /// channel and favourites, and before the rest: over a budget of 6, on 1 with nothing else
    /// known, the seventh channel (watched every evening) is the sixth kept warm, after the
    /// neighbours two either way.
    @Test func theChannelsUsuallyWatchedNowRankAfterFavourites() {
        #expect(WarmPlan.priority(count: 12, current: 0, last: nil, favourites: [4], usual: [6, 4, 0], radius: 1)
                    == [0, 1, 11, 4, 6, 2, 10, 3, 9, 8, 5, 7])
        let inputs = WarmPlan.Inputs(count: 12, current: 0, last: nil, usual: [6], shown: [0])
        #expect(WarmPlan.make(policy: .all, budget: WarmBudget(maxChannels: 6), inputs: inputs).running == [0, 1, 11, 2, 10, 6])
    }
}
