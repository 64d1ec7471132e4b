import FlipboxCore
import Foundation
import Headend
import GStreamer
import Lineup
import Output

/// The on-screen guide: the focused programme described on top, channels down with their logos,
/// two hours across, a line at now and the focused programme highlighted. It covers the picture
/// (the output's cover, like the multiview: a still, nothing blended per frame) while the channel
/// underneath keeps decoding and is heard; closing it shows the live picture at once. Where it
/// is, is a `GuideNavigator`; drawing runs as a job, again on every move and every half minute.
extension Player {
    /// Opens the guide on the programme on now on the channel on screen. Closes the multiview.
    @discardableResult
    public func openGuide() -> GuideGridStatus {
        closeMultiview()
        closeRecordingList()
        let now = Date()
        let listed = lineup.listed
        guideNavigator = GuideNavigator(channelCount: listed.count, rowsPerPage: GuideGridPicture.rowsPerPage,
                                        current: machine.current.flatMap { listed.firstIndex(of: $0) } ?? 0, now: now)
        drawGuide()
        startJob(.guideClock) { player in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(30))
                guard !Task.isCancelled else { return }
                await player.guideClockTicked()
            }
        }
        return guideStatus()
    }

    /// Closes the guide (the picture underneath never stopped).
    @discardableResult
    public func closeGuide() -> GuideGridStatus {
        let wasOpen = guideNavigator != nil
        guideNavigator = nil
        cancelJob(.guideClock)
        cancelJob(.guideGrid)
        if wasOpen { output.setCover(nil) }
        return guideStatus()
    }

    /// `g` / EPG: opens the guide, or closes it.
    @discardableResult
    public func toggleGuide() -> GuideGridStatus {
        guideNavigator == nil ? openGuide() : closeGuide()
    }

    /// Moves the focus (arrows, page up/down).
    @discardableResult
    public func moveGuide(_ move: GuideMove) throws(OverlayError) -> GuideGridStatus {
        guard var navigator = guideNavigator else { throw OverlayError(.notOpen, "the guide is not open; open it with g") }
        let now = Date()
        navigator.move(move, programmes: rowProgrammes(navigator.row, around: navigator, now: now), now: now,
                       earliest: archiveStart(slot: guideSlot(navigator.row), now: now))
        navigator.keep(after: archiveStart(slot: guideSlot(navigator.row), now: now), now: now)
        guideNavigator = navigator
        drawGuide()
        return guideStatus()
    }

    /// OK: tunes the focused channel (a normal flip) and closes the guide; a programme that
    /// already ended, on a channel whose provider keeps its past, then plays from its start out
    /// of the provider's archive (catch-up).
    public func selectGuide() async throws(OverlayError) -> FlipResult {
        guard let navigator = guideNavigator else { throw OverlayError(.notOpen, "the guide is not open; open it with g") }
        let now = Date()
        let slot = guideSlot(navigator.row), channel = lineup.channels[slot]
        let focused = navigator.focused(in: rowProgrammes(navigator.row, around: navigator, now: now))
        closeGuide()
        let result = await flip(.tune(channel.number))
        if let past = focused, past.end <= now, archiveStart(slot: slot, now: now) != nil, result.outcome == .completed {
            // The seek says on screen where it went, or why the archive did not play.
            _ = try? await timeshift(.seekTo(past.start))
        }
        return result
    }

    /// Plays `number` from `start` out of its provider's archive (catch-up): a flip to it, then a
    /// seek back to `start` (the timeshift buffer's, when it still holds that moment). Refused
    /// before any flip when the channel keeps no archive, or `start` is older than it keeps or
    /// still to come.
    public func playFromStart(_ number: ChannelNumber, at start: Date) async throws(TimeshiftFailure) -> TimeshiftStatus {
        guard let slot = lineup.index(of: number) else {
            throw TimeshiftFailure(.unknownChannel, "there is no channel \(number)")
        }
        let channel = lineup.channels[slot], now = Date()
        guard let earliest = archiveStart(slot: slot, now: now) else {
            throw TimeshiftFailure(.noArchive, "\(channel.number) \(channel.name) keeps no archive (its lineup entry has no catchup)")
        }
        guard start >= earliest else {
            throw TimeshiftFailure(.outsideArchive, "\(channel.number) \(channel.name) keeps \(channel.catchup?.days ?? 7) days; \(ProgrammeSummary.time(start)) is older")
        }
        guard start < now else { throw TimeshiftFailure(.outsideArchive, "\(ProgrammeSummary.time(start)) has not come yet") }
        let result = await flip(.tune(number))
        guard result.outcome == .completed else {
            throw TimeshiftFailure(.nothingShown, "\(channel.number) \(channel.name) did not play: \(result.outcome)")
        }
        return try await timeshift(.seekTo(start))
    }

    /// How far back the channel in `slot` goes in the guide: its provider's archive's start
    /// (`catchup-days`, a week when not said); nil without an archive.
    func archiveStart(slot: Int, now: Date) -> Date? {
        guard lineup.channels.indices.contains(slot), let catchup = lineup.channels[slot].catchup else { return nil }
        return now.addingTimeInterval(-Double(catchup.days ?? 7) * 86_400)
    }

    /// The red key: a reminder for the focused programme (one that has not started yet).
    public func remindFromGuide() throws(OverlayError) -> Reminder {
        guard let navigator = guideNavigator else { throw OverlayError(.notOpen, "the guide is not open; open it with g") }
        let now = Date()
        let channel = lineup.channels[guideSlot(navigator.row)]
        guard let programme = navigator.focused(in: rowProgrammes(navigator.row, around: navigator, now: now)), programme.start > now else {
            throw OverlayError(.badValue, "only a programme that has not started can be reminded of")
        }
        guard let reminder = reminders?.add(channelID: channel.id, title: programme.title, start: programme.start, end: programme.end) else {
            throw OverlayError(.failed, "the reminder cannot be kept (no guide store)")
        }
        showMessage("Reminder: \(programme.title) at \(ProgrammeSummary.time(programme.start))")
        remindersChanged()
        return reminder
    }

    /// The programme the guide's focus is on, nil when the guide is closed or the slot is empty.
    func focusedGuideProgramme(now: Date) -> ProgrammeSummary? {
        guard let navigator = guideNavigator else { return nil }
        return navigator.focused(in: rowProgrammes(navigator.row, around: navigator, now: now))
    }

    public func guideStatus() -> GuideGridStatus {
        guard let navigator = guideNavigator else { return GuideGridStatus(open: false, channel: nil, programme: nil) }
        let focused = navigator.focused(in: rowProgrammes(navigator.row, around: navigator, now: Date()))
        return GuideGridStatus(open: true, channel: ChannelSummary(lineup.channels[guideSlot(navigator.row)]), programme: focused?.title)
    }

    private func guideClockTicked() {
        guard var navigator = guideNavigator else { return }
        let now = Date()
        navigator.tick(now: now, earliest: archiveStart(slot: guideSlot(navigator.row), now: now))
        guideNavigator = navigator
        drawGuide()
    }

    /// The slot of the guide's row `row`: its rows are the channels of the lineup now, in number
    /// order (`Lineup.listed`).
    func guideSlot(_ row: Int) -> Int { listedSlot(row) }

    /// The guide open again over the lineup as it reads now (a reading was taken while it was
    /// open): on the channel it was on, or the nearest row.
    func guideFollowsLineup(focusedSlot: Int) {
        guard guideNavigator != nil else { return }
        let listed = lineup.listed
        guideNavigator = GuideNavigator(channelCount: listed.count, rowsPerPage: GuideGridPicture.rowsPerPage,
                                        current: listed.firstIndex(of: focusedSlot) ?? min(guideNavigator?.row ?? 0, max(0, listed.count - 1)), now: Date())
        drawGuide()
    }

    /// The programmes of row `row` from now to past the window (for the moves and the drawing).
    private func rowProgrammes(_ row: Int, around navigator: GuideNavigator, now: Date) -> [ProgrammeSummary] {
        let id = lineup.channels[guideSlot(row)].id
        let to = navigator.windowStart.addingTimeInterval(GuideNavigator.span + 6 * 3600)
        return programmes?.programmes(channelIDs: [id], from: min(now, navigator.windowStart), to: to)[id] ?? []
    }

    /// Renders the guide as it stands and puts it on screen, unless it was closed or moved meanwhile.
    private func drawGuide() {
        guard let navigator = guideNavigator else { return }
        let now = Date()
        let rows = navigator.visibleRows.map(guideSlot)
        let ids = rows.map { lineup.channels[$0].id }
        let end = navigator.windowStart.addingTimeInterval(GuideNavigator.span)
        let found = programmes?.programmes(channelIDs: ids, from: navigator.windowStart, to: end) ?? [:]
        let focusedChannel = lineup.channels[guideSlot(navigator.row)]
        let focused = navigator.focused(in: found[focusedChannel.id] ?? rowProgrammes(navigator.row, around: navigator, now: now))
        let title = focused?.title ?? "Nothing in the guide"
        let detail = (focused.map { "\(ProgrammeSummary.time($0.start))–\(ProgrammeSummary.time($0.end))  ·  " } ?? "")
            + "\(focusedChannel.number) \(focusedChannel.name)" + (focused?.rating.map { "  ·  \($0)" } ?? "")
        let current = machine.current, logoCache = self.logoCache, output = self.output
        let channels = rows.map { lineup.channels[$0] }
        startJob(.guideGrid) { player in
            var contentRows: [GuideGridContent.Row] = []
            for (i, channel) in channels.enumerated() {
                let logo: String? = if let l = channel.logo { try? await logoCache.localPath(for: l) } else { nil }
                let cells = (found[channel.id] ?? []).map { GuideGridContent.Cell(title: $0.title, start: $0.start, end: $0.end) }
                contentRows.append(GuideGridContent.Row(number: channel.number.description, name: channel.name, logoPath: logo,
                                                        cells: cells, playing: rows[i] == current))
            }
            let content = GuideGridContent(rows: contentRows, windowStart: navigator.windowStart, now: now,
                                           focusRow: navigator.row - navigator.firstRow, focusTime: navigator.focusTime,
                                           title: title, detail: detail, description: focused?.description ?? "")
            let frame = await Self.render { try GuideGridPicture.frame(content, format: output.videoFormat) }
            guard let frame else { return }
            await player.landGuide(frame)
        }
    }

    private func landGuide(_ frame: Buffer) {
        guard !Task.isCancelled, guideNavigator != nil else { return }
        output.setCover(frame)
    }
}

/// Whether the on-screen guide is open, and what it focuses.
public struct GuideGridStatus: Sendable, Hashable, Codable {
    public var open: Bool
    public var channel: ChannelSummary?
    public var programme: String?
    public init(open: Bool, channel: ChannelSummary?, programme: String?) {
        self.open = open
        self.channel = channel
        self.programme = programme
    }
}
