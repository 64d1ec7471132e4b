import FlipboxCore
import Headend
import Lineup

// The lineup read again while the box plays (`lineup-refresh`), taken in place
// (`Lineup.taking`): a channel keeps its slot for the life of the process, so no index held by a
// flip, a feed, a window or a timer goes stale. Next, previous and numbers reach the channels of
// the lineup as it reads now; the channel on screen plays on, even when the reading no longer has
// it, until the viewer flips away.
extension Player {
    /// Takes `lineup`, the box's lineup with a reading taken (`Lineup.taking` of this player's
    /// `lineup`), whose `slots` changed: the head-end first (a new channel has its source before
    /// any flip can reach it), then the switcher, the locks and what is open on screen.
    @discardableResult
    public func take(_ lineup: Lineup, slots: LineupSlots) async -> Headend.LineupTaking {
        let taking = await headend.take(lineup, slots: slots)
        let focused = guideNavigator.map { guideSlot($0.row) }
        let before = lineupBox.withLock { was in defer { was = lineup }; return was }
        // A channel given another logo, or another style for it, shows it from its next flip.
        await output.forgetLogos(of: Set(slots.changed.filter { slot in
            slot < before.channels.count && (before.channels[slot].logo != lineup.channels[slot].logo
                                             || before.channels[slot].logoStyle != lineup.channels[slot].logoStyle)
        }.map { lineup.channels[$0].id }))
        machine.takeChannels(lineup.channels.map { SwitcherMachine.ChannelInfo($0) }, listed: lineup.listed)
        contentLocks.take(channels: lineup.channels, locked: options.locked, changed: slots.changed + slots.added)
        refreshLocks()
        if let focused { guideFollowsLineup(focusedSlot: focused) }
        if let grid = multiview.page?.grid {
            closeMultiview()
            _ = try? await openMultiview(grid: grid)
        }
        if let current = machine.current, slots.changed.contains(current) {
            // The channel on screen was renamed or renumbered: the banner says it as it is now.
            _ = showBanner()
        }
        return taking
    }
}
