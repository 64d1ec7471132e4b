import FlipboxCore

/// `FlipboxCore.PlayoutLateness` under the name the head-end's clients know it by (the bench,
/// the switcher's timing tests): they import the head-end, which reports it
/// (`Headend.playoutLateness(feed:)`), not the core, where the decoder's `PlayoutClock` keeps it.
public typealias PlayoutLateness = FlipboxCore.PlayoutLateness
