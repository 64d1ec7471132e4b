import FlipboxCore
import Foundation
import Headend
import Lineup
import Switcher

/// What the control surfaces (HTTP API, keys, the service notifier) drive: the player's roles,
/// each a protocol of its own with no default answers, so a player that conforms does every one
/// of them for real. Each route group asks only for the role it uses.
public typealias PlayerControl = FlipControl & OverlayControl & TimeshiftControl & TimeshiftMarkersControl & AudioControl & SubtitleControl
    & ParentalControl & ProgrammeControl & FiguresControl

/// What the box did and holds: `GET /api/v1/output` and the figures of `/metrics`.
public protocol FiguresControl: Sendable {
    func figures() async -> PlayerFigures
}

/// Flips, what is on screen, the channels and their pictures, the event stream.
public protocol FlipControl: Sendable {
    /// Performs a flip and returns its single result when it completed, failed or was superseded.
    func flip(_ request: FlipRequest) async -> FlipResult
    func status() async -> PlayerStatus
    func channels() async -> [ChannelStatus]
    /// The composed output frame as the display shows it, PNG-encoded, optionally scaled to `width`.
    func snapshotPNG(width: Int?) async throws -> [UInt8]
    /// A new subscription to every event from now on. Ends when the player stops.
    func events() -> AsyncStream<PlayerEvent>
    /// Shows the channel number being typed on screen (`12`), or hides it with nil.
    func showEntry(_ text: String?) async
    /// Sets which channels next/previous visit.
    func setFlipScope(_ scope: FlipScope) async
    /// Moves to the next flip scope (all → favourites → group → all) and returns it.
    func cycleFlipScope() async -> FlipScope
    /// A JPEG of a warm channel's latest keyframe, optionally scaled to `width`. Throws
    /// `ThumbnailError` (unknown channel, not warm, ...).
    func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8]
}

/// The info banner, picture-in-picture and the multiview (Player+Overlays.swift). Errors are `OverlayError`.
public protocol OverlayControl: Sendable {
    /// Shows the info banner for `seconds` (nil: the configured time; 0: until dismissed);
    /// `long`: the long form, with the programme's description.
    func showBanner(seconds: Double?, long: Bool) async -> BannerStatus
    func hideBanner() async -> BannerStatus
    func toggleBanner() async -> BannerStatus
    /// Opens the PiP window: `number` (nil: the last channel), `corner`, `size` (fraction of the output width).
    func openPiP(number: ChannelNumber?, corner: LogoStyle.Corner?, size: Double?) async throws -> PiPStatus
    func tunePiP(number: ChannelNumber) async throws -> PiPStatus
    /// Swaps main and PiP; the result of the main picture's flip.
    func swapPiP() async throws -> FlipResult
    func closePiP() async -> PiPStatus
    func togglePiP() async throws -> PiPStatus
    func openMultiview(grid: Int) async throws -> MultiviewStatus
    func closeMultiview() async -> MultiviewStatus
    func toggleMultiview(grid: Int) async throws -> MultiviewStatus
    func moveMultiview(_ move: MultiviewMove) async throws -> MultiviewStatus
    /// Tunes the highlighted channel and closes the multiview.
    func selectMultiview() async throws -> FlipResult
}

/// Moving in time on the channel on screen (Player+Timeshift.swift).
public protocol TimeshiftControl: Sendable {
    /// Pause, seek and back to live on the channel on screen.
    func timeshift(_ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus
    /// Where the channel on screen stands in time; nil when timeshift is off or nothing is shown.
    func timeshiftStatus() async -> TimeshiftStatus?
    /// Flips to `channel` and plays it from `start` out of its provider's archive (catch-up).
    func playFromStart(_ channel: ChannelNumber, at start: Date) async throws(TimeshiftFailure) -> TimeshiftStatus
    /// Plays recording `id` from `start` on screen (Player+RecordingPlayback.swift), jumping
    /// over its ad breaks when `skipBreaks`.
    func playRecording(_ id: String, from start: RecordingStart, skipBreaks: Bool) async throws(TimeshiftFailure) -> TimeshiftStatus
}

/// Audio tracks (Player+Audio.swift). Errors are `AudioSelectionError`.
public protocol AudioControl: Sendable {
    /// The tracks of the channel on screen and the one playing.
    func audioStatus() async -> AudioStatus
    /// Plays `next`, a track number (from 1) or a language (`deu`, `de`, `German`).
    func selectAudio(_ spec: String) async throws -> AudioStatus
}

/// Subtitles and closed captions (Player+Subtitles.swift). Errors are `TrackSelectionError`.
public protocol SubtitleControl: Sendable {
    /// The subtitle tracks of the channel on screen and the one shown.
    func subtitleStatus() async -> SubtitleStatus
    /// Shows `next` (the tracks in turn, then off), `off`, `cc`, a track number (from 1) or a
    /// language (`deu`, `German`).
    func selectSubtitles(_ spec: String) async throws -> SubtitleStatus
}

/// Parental locks (Player+Parental.swift). Errors are `UnlockError`.
public protocol ParentalControl: Sendable {
    /// Shows `typed` PIN dots on the lock card (nil or 0 hides them).
    func showPINEntry(_ typed: Int?) async
    /// Unlocks channel `channel` (nil: the one on screen) with `pin`.
    func unlock(pin: String, channel: ChannelNumber?) async throws -> UnlockStatus
}

/// What is on: reminders, proposals (Player+Programmes.swift) and the on-screen guide
/// (Player+GuideGrid.swift). Errors are `OverlayError`.
public protocol ProgrammeControl: Sendable {
    /// The stored reminders changed: the player reads them again.
    func remindersChanged() async
    /// Answers the proposal on screen: accept flips to it (its result), dismiss returns nil.
    /// Throws `OverlayError` `.notOpen` when nothing is proposed.
    func answerProposal(accept: Bool) async throws -> FlipResult?

    /// Where the on-screen guide is (open or not, the focused channel and programme).
    func guideStatus() async -> GuideGridStatus
    /// Opens the on-screen guide on the programme on now on the channel on screen.
    func openGuide() async -> GuideGridStatus
    func toggleGuide() async -> GuideGridStatus
    func closeGuide() async -> GuideGridStatus
    func moveGuide(_ move: GuideMove) async throws -> GuideGridStatus
    /// Tunes the focused channel and closes the guide.
    func selectGuide() async throws -> FlipResult
    /// A reminder for the focused programme.
    func remindFromGuide() async throws -> Reminder
    /// Records the focused programme, or (`series`) every programme of its title; what was
    /// scheduled, as the screen says it.
    func recordFromGuide(series: Bool) async throws -> String

    /// The on-screen list of recordings (Player+RecordingList.swift): open or not, what it focuses.
    func recordingListStatus() async -> RecordingListStatus
    func toggleRecordingList() async -> RecordingListStatus
    func closeRecordingList() async -> RecordingListStatus
    func moveRecordingList(_ move: GuideMove) async throws -> RecordingListStatus
    /// OK in the list: plays the focused recording where it was left and closes the list, or
    /// takes the focused conflict choice and shows the list again.
    func selectInRecordingList() async throws -> RecordingListSelection
}
