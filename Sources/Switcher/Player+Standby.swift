import FlipboxCore
import GStreamer
import Headend
import Output

extension Player {
    /// TV standby (HDMI-CEC): the screen goes black, the decoder of the channel on screen stops
    /// and every channel goes cold (no ingest, no GOP cache), so the box idles. The switcher keeps
    /// its current and last channel for `resume`. Idempotent.
    public func standby() async {
        guard !standingBy else { return }
        standingBy = true
        logger.notice("standby: every channel cold, the output idle")
        if let black = try? output.videoFormat.solidFrame(r: 0, g: 0, b: 0) { output.setCover(black) }
        if let feed = machine.shownFeed {
            output.cancel(feed: feed)
            await headend.deactivate(feed: feed)
        }
        await headend.setPolicy(.none)
        await headend.applyPolicy(current: nil, last: nil)
    }

    /// Power on after `standby`: the warm pool comes back and the channel that was on screen is
    /// tuned again; the black cover goes when its picture is there (or its flip failed).
    /// Returns that flip's result; nil when the box was not in standby.
    @discardableResult
    public func resume() async -> FlipResult? {
        guard standingBy else { return nil }
        standingBy = false
        await headend.setPolicy(options.warm)
        guard let current = machine.current else {
            output.setCover(nil)
            return nil
        }
        logger.notice("resume: tuning \(lineup.channels[current].number) again")
        // The channel's decoder is gone: the switcher hears that its picture was lost, so the
        // tune below starts a new decoder instead of restoring the stopped one.
        perform(machine.signalLost(channel: current, reason: "the box was in standby"))
        let result = await flip(.tune(lineup.channels[current].number))
        output.setCover(nil)
        return result
    }

    /// Whether the box is in TV standby.
    public var isStandingBy: Bool { standingBy }
}
