import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Output

/// Pause and rewind on the channel on screen (timeshift). The headend keeps the buffer and
/// plays the feed from it; the player says on screen where the picture stands (a line and the
/// position bar) and adds the guide's programme boundaries as markers.
extension Player {
    /// How long the position bar stays after a move while playing (paused: until the next move).
    static let positionBarSeconds: Duration = .seconds(4)

    /// Carries out `command` on the channel on screen, shows where it stands, and tells the
    /// event stream.
    public func timeshift(_ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus {
        guard let feed = machine.shownFeed else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
        let status: TimeshiftStatus
        do {
            status = try await headend.timeshift(feed: feed, command, guideMarkers: await navigationMarkers())
        } catch {
            showMessage(error.message)
            throw error
        }
        showMessage(Self.timeshiftLine(status))
        showPositionBar(status)
        hub.publish(.timeshift(status))
        return status
    }

    /// The switcher's `resumePosition` after a recall, carried out when the box is set to
    /// (`resume-position`): back to where the viewer left the channel behind live (shown and
    /// told like any move); nothing when they left it live, or when `feed` is no longer on screen.
    func resumeLeftPosition(feed: FeedID) async {
        guard machine.shownFeed == feed,
              let status = await headend.resumeLeftPosition(feed: feed, guideMarkers: await navigationMarkers()),
              !Task.isCancelled else { return }
        showMessage(Self.timeshiftLine(status))
        showPositionBar(status)
        hub.publish(.timeshift(status))
    }

    /// Where the channel on screen stands in time; nil when timeshift is off or nothing is shown.
    /// The disk under `channel`'s timeshift buffer started or stopped refusing segments: the
    /// event stream hears the new status when the channel is on screen.
    func timeshiftDiskChanged(_ channel: Channel) async {
        guard let feed = machine.shownFeed, let index = currentChannelIndex, lineup.channels[index].id == channel.id,
              let status = await headend.status(feed: feed, guideMarkers: await navigationMarkers()) else { return }
        hub.publish(.timeshift(status))
    }

    public func timeshiftStatus() async -> TimeshiftStatus? {
        guard let feed = machine.shownFeed else { return nil }
        return await headend.status(feed: feed, guideMarkers: await navigationMarkers())
    }

    /// The on-screen line: `Live`, `▶ −0:42`, `❚❚ −1:05:10`, and why a seek landed elsewhere.
    static func timeshiftLine(_ status: TimeshiftStatus) -> String {
        if let place = status.recording { return recordingLine(status, place) }
        var line: String
        if status.live && !status.paused {
            line = "● Live"
        } else {
            let behind = Int(status.behind.rounded())
            let clock = behind >= 3600
                ? String(format: "%d:%02d:%02d", behind / 3600, behind / 60 % 60, behind % 60)
                : String(format: "%d:%02d", behind / 60, behind % 60)
            line = "\(status.paused ? "❚❚" : "▶") −\(clock)"
        }
        if status.archive { line += " · archive" }
        switch status.adjustment?.reason {
        case .unwatchedBreak: line += " · break"
        case .beforeBuffer: line += " · start of buffer"
        case .pastLive, nil: break
        }
        return line
    }

    /// The markers the player adds to the buffer's own: the guide's programme starts and, on a
    /// file channel, its chapters (read with libavformat; none when the file cannot be read).
    func navigationMarkers() async -> [TimeshiftMarker] {
        guard let index = machine.current else { return [] }
        let chapters = (try? await headend.chapterMarkers(of: lineup.channels[index].number)) ?? []
        return programmeMarkers() + chapters.map {
            TimeshiftMarker(time: $0.time, name: $0.title ?? "Chapter \($0.chapter)", kind: .chapter)
        }
    }

    /// The guide's programme starts on the channel on screen within the timeshift window.
    func programmeMarkers() -> [TimeshiftMarker] {
        guard let programmes, let index = machine.current, let window = options.timeshift?.window else { return [] }
        let channel = lineup.channels[index]
        let now = Date()
        let list = programmes.programmes(channelIDs: [channel.id], from: now.addingTimeInterval(-window.seconds), to: now)[channel.id] ?? []
        return list.map { TimeshiftMarker(time: $0.start, name: $0.title, kind: .programme) }
    }

    /// Shows the position bar for `status`: while paused until the next move, else for a few seconds.
    func showPositionBar(_ status: TimeshiftStatus) {
        guard let edge = status.liveEdge else { return }
        // In the provider's archive the bar reaches back past the picture (a tenth of the way to
        // live, a minute at least), its archive part before the box's own buffer.
        let reach = status.position.addingTimeInterval(-max(60, edge.timeIntervalSince(status.position) / 10))
        guard let start = status.archive ? min(reach, status.bufferStart ?? reach) : status.bufferStart else { return }
        var drawn = PositionBarContent(bufferStart: start, liveEdge: edge, position: status.position, live: status.live,
                                         paused: status.paused, markers: status.markers.map(\.time),
                                         breaks: status.breaks.map { .init(start: $0.start, end: $0.end, watched: $0.watched) })
        if status.archive { drawn.archiveEnd = status.bufferStart ?? edge }
        let content = drawn
        let output = self.output
        let guide = programmes != nil
        startJob(.positionBar) { player in
            let overlay = PositionBar.overlay(content, width: output.width, height: output.height, aboveGuideBanner: guide)
            guard await player.landPositionBar([overlay]) else { return }
            guard !content.paused else { return }
            try? await Task.sleep(for: Self.positionBarSeconds)
            _ = await player.landPositionBar([])
        }
    }

    private func landPositionBar(_ overlays: [Overlay]) -> Bool {
        guard !Task.isCancelled else { return false }
        output.setLayer(.positionBar, overlays)
        return true
    }
}
