import FlipboxCore

/// The seeded generator of the random-interleaving and fuzz tests (`FlipboxCore.SplitMix64`),
/// so a failing seed can be reproduced.
public typealias SplitMix = SplitMix64
