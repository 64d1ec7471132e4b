import FlipboxCore
import Foundation
import Headend
import Lineup

/// The box's recordings as the player plays them back: what a recording's file holds, and
/// where the viewer left each one.
public protocol RecordingShelf: Sendable {
    /// What recording `id` plays from; `unknownRecording` or `notRecorded` when it cannot.
    func playback(of id: String) throws(TimeshiftFailure) -> RecordingPlayback
    /// Where the viewer left it; nil when never left part-way.
    func resumePosition(of id: String) -> Date?
    /// Keeps where the viewer left it (nil: watched to the end).
    func setResumePosition(of id: String, _ at: Date?)
    /// The recordings that can be played (something written), for the on-screen list.
    func listing() -> [RecordingListEntry]
    /// What can be done about the schedule's conflicts, best first, for the on-screen list.
    func conflictChoices() -> [ConflictChoice]
    /// Takes `choice`; returns what was done, to say on screen. Throws when it cannot be taken
    /// (the conflict changed, the other channel cannot record), saying why.
    func resolve(_ choice: ConflictChoice) async throws -> String
}

/// Where a recording's playback starts.
public enum RecordingStart: Sendable, Equatable {
    /// Where it was left (else at its programme's start).
    case resume
    /// At its programme's start (inside the padding), else its first picture.
    case beginning
    case at(Date)
}

// A recording plays on its channel's place in the lineup: a flip to the channel whose feed
// reads the recording's file (the head-end's `RecordingPlay`), or, when the channel is on
// screen, its feed moved to the file. The timeshift's controls then act on the recording
// (pause, seek, marks at the programme's start and end); `live` goes back to the channel.
extension Player {
    /// Gives the player the box's recordings (the box makes them after the player).
    public func setRecordingShelf(_ shelf: any RecordingShelf) {
        recordingShelf = shelf
    }

    /// Plays recording `id` from `start`; says on screen what plays and where it stands.
    /// `skipBreaks`: its ad breaks are jumped over as the picture reaches them.
    public func playRecording(_ id: String, from start: RecordingStart = .resume,
                              skipBreaks: Bool = false) async throws(TimeshiftFailure) -> TimeshiftStatus {
        guard let shelf = recordingShelf else {
            throw TimeshiftFailure(.notRecorded, "this box keeps no recordings (its recordings directory could not be used; the log at start says why)")
        }
        var playback = try shelf.playback(of: id)
        playback.skipBreaks = skipBreaks
        guard let row = lineup.index(of: playback.channel) else {
            throw TimeshiftFailure(.unknownChannel, "\(playback.title) was recorded from channel \(playback.channel), which is no longer in the lineup")
        }
        // A playback of it being left just now has its place in the head-end before the store.
        await deactivationsDone()
        let resume: Date? = if let left = await headend.leftPosition(of: id) { left } else { shelf.resumePosition(of: id) }
        let from = Self.startMoment(start, playback: playback, resume: resume)
        do throws(TimeshiftFailure) {
            if let feed = machine.shownFeed, machine.current == row {
                try await headend.playRecording(feed: feed, playback, from: from)
            } else {
                let result = await flip(.tune(playback.channel), recording: (playback, from))
                guard result.outcome == .completed else {
                    throw TimeshiftFailure(.archive, "\(playback.title) did not play: \(result.error ?? "\(result.outcome)")")
                }
            }
        } catch {
            showMessage(error.message)
            throw error
        }
        guard let feed = machine.shownFeed, let status = await headend.status(feed: feed), status.recording?.id == id else {
            throw TimeshiftFailure(.nothingShown, "\(playback.title) is no longer on screen")
        }
        showMessage("▶ \(playback.title)")
        showPositionBar(status)
        hub.publish(.timeshift(status))
        return status
    }

    /// The moment a playback starts at: the resume point unless it is in a finished recording's
    /// last moments, else the programme's start, else the first picture.
    static func startMoment(_ start: RecordingStart, playback: RecordingPlayback, resume: Date?) -> Date {
        let beginning = playback.programme?.lowerBound ?? .distantPast
        switch start {
        case .at(let at): return at
        case .beginning: return beginning
        case .resume:
            guard let resume else { return beginning }
            // Left in its last moments (10 s, or a twentieth of a short one): watched.
            if !playback.isGrowing(), let span = playback.timeline().span {
                let slack = min(Headend.resumeSlack, span.upperBound.timeIntervalSince(span.lowerBound) / 20)
                if resume >= span.upperBound.addingTimeInterval(-slack) { return beginning }
            }
            return resume
        }
    }

    /// The recording on screen played to its end, or stopped: said on screen, the bar shown.
    func recordingEnded(feed: FeedID, title: String, failure: String?) async {
        guard machine.shownFeed == feed else { return }
        showMessage(failure.map { "\(title) stopped: \($0)" } ?? "■ End of \(title)")
        if let status = await headend.status(feed: feed) {
            showPositionBar(status)
            hub.publish(.timeshift(status))
        }
    }

    /// The on-screen line of a recording played back: `▶ 12:04 / 58:00 · Title`.
    static func recordingLine(_ status: TimeshiftStatus, _ place: TimeshiftStatus.RecordingPlace) -> String {
        func clock(_ seconds: Double) -> String {
            let s = Int(max(0, seconds).rounded(.down))
            return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
        }
        let start = status.bufferStart ?? status.position
        let elapsed = clock(status.position.timeIntervalSince(start))
        let total = clock((status.liveEdge ?? status.position).timeIntervalSince(start))
        let mark = place.ended ? "■" : status.paused ? "❚❚" : "▶"
        return "\(mark) \(elapsed) / \(total) · \(place.title)" + (place.growing ? " · ● recording" : "")
    }
}
