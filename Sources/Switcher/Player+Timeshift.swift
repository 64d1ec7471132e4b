import Foundation
import Headend

/// Pause and rewind on the channel on screen (timeshift). The headend keeps the buffer and
/// plays the feed from it; the player says on screen where the picture stands.
extension Player {
    /// Carries out `command` on the channel on screen, shows where it stands, and tells the
    /// event stream.
    public func timeshift(_ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus {
        guard let feed = machine.shownFeed else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
        let status = try await headend.timeshift(feed: feed, command)
        showMessage(Self.timeshiftLine(status))
        hub.publish(.timeshift(status))
        return status
    }

    /// Where the channel on screen stands in time; nil when timeshift is off or nothing is shown.
    public func timeshiftStatus() async -> TimeshiftStatus? {
        guard let feed = machine.shownFeed else { return nil }
        return await headend.status(feed: feed)
    }

    /// The on-screen line: `Live`, `▶ −0:42`, `❚❚ −1:05:10`.
    static func timeshiftLine(_ status: TimeshiftStatus) -> String {
        if status.live && !status.paused { return "● Live" }
        let behind = Int(status.behind.rounded())
        let clock = behind >= 3600
            ? String(format: "%d:%02d:%02d", behind / 3600, behind / 60 % 60, behind % 60)
            : String(format: "%d:%02d", behind / 60, behind % 60)
        return "\(status.paused ? "❚❚" : "▶") −\(clock)"
    }
}
