import Foundation
import Lineup

/// What the guide's record keys drive: the box's recordings (`RecordingService` in the box).
/// Each answer is the line the screen shows ("Recording News at 20:00").
public protocol GuideRecording: Sendable {
    /// Records the programme on `channel` that starts at `start` (with padding).
    func record(channel: ChannelNumber, programmeStart start: Date) async throws -> String
    /// Records every programme titled `title`, new episodes only.
    func recordSeries(title: String) async throws -> String
}

extension Player {
    /// Gives the guide its recordings (the box makes them after the player).
    public func setGuideRecording(_ recording: any GuideRecording) {
        guideRecording = recording
    }

    /// The record key in the guide: the focused programme (one that has not ended), or with
    /// `series` every programme of its title. The answer is on screen too.
    public func recordFromGuide(series: Bool) async throws -> String {
        guard let navigator = guideNavigator else { throw OverlayError(.notOpen, "the guide is not open; open it with g") }
        guard let recordings = guideRecording else {
            throw OverlayError(.failed, "this box keeps no recordings (its recordings directory could not be used; the log at start says why)")
        }
        let now = Date()
        let channel = lineup.channels[guideSlot(navigator.row)]
        guard let programme = focusedGuideProgramme(now: now) else {
            throw OverlayError(.badValue, "no programme is focused on \(channel.number) \(channel.name)")
        }
        let said: String
        do {
            if series {
                said = try await recordings.recordSeries(title: programme.title)
            } else {
                guard programme.end > now else { throw OverlayError(.badValue, "\(programme.title) has ended; only what is on or to come can be recorded") }
                said = try await recordings.record(channel: channel.number, programmeStart: programme.start)
            }
        } catch let error as OverlayError {
            throw error
        } catch {
            showMessage("● \(error)")
            throw error
        }
        showMessage("● " + said)
        return said
    }
}
