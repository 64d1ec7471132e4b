import Headend
import Lineup
import Switcher

/// What the control surfaces (HTTP API, keys) drive. The player implements it; tests may too.
public protocol PlayerControl: Sendable {
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

    // Overlays (banner, picture-in-picture, multiview); see Player+Overlays.swift. Errors are `OverlayError`.
    /// Shows the info banner for `seconds` (nil: the configured time; 0: until dismissed).
    func showBanner(seconds: Double?) async -> BannerStatus
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

    /// Pause, seek and back to live on the channel on screen.
    func timeshift(_ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus
    /// Where the channel on screen stands in time; nil when timeshift is off or nothing is shown.
    func timeshiftStatus() async -> TimeshiftStatus?
    // Audio tracks; see Player+Audio.swift. Errors are `AudioSelectionError`.
    /// The tracks of the channel on screen and the one playing.
    func audioStatus() async -> AudioStatus
    /// Plays `next`, a track number (from 1) or a language (`deu`, `de`, `German`).
    func selectAudio(_ spec: String) async throws -> AudioStatus
    // Parental locks; see Player+Parental.swift. Errors are `UnlockError`.
    /// Shows `typed` PIN dots on the lock card (nil or 0 hides them).
    func showPINEntry(_ typed: Int?) async
    /// Unlocks channel `channel` (nil: the one on screen) with `pin`.
    func unlock(pin: String, channel: ChannelNumber?) async throws -> UnlockStatus

    // Reminders and proposals; see Player+Programmes.swift.
    /// The stored reminders changed: the player reads them again.
    func remindersChanged() async
    /// Answers the proposal on screen: accept flips to it (its result), dismiss returns nil.
    /// Throws `OverlayError` `.notOpen` when nothing is proposed.
    func answerProposal(accept: Bool) async throws -> FlipResult?

    // The on-screen guide; see Player+GuideGrid.swift. Errors are `OverlayError`.
    func toggleGuide() async -> GuideGridStatus
    func closeGuide() async -> GuideGridStatus
    func moveGuide(_ move: GuideMove) async throws -> GuideGridStatus
    /// Tunes the focused channel and closes the guide.
    func selectGuide() async throws -> FlipResult
    /// A reminder for the focused programme.
    func remindFromGuide() async throws -> Reminder
}

extension PlayerControl {
    public func showEntry(_ text: String?) async {}
    public func setFlipScope(_ scope: FlipScope) async {}
    public func cycleFlipScope() async -> FlipScope { .all }

    public func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8] {
        throw ThumbnailError(.unsupported, "this player does not make thumbnails")
    }

    public func showBanner(seconds: Double?) async -> BannerStatus { BannerStatus(shown: false, channel: nil) }
    public func hideBanner() async -> BannerStatus { BannerStatus(shown: false, channel: nil) }
    public func toggleBanner() async -> BannerStatus { BannerStatus(shown: false, channel: nil) }
    public func openPiP(number: ChannelNumber?, corner: LogoStyle.Corner?, size: Double?) async throws -> PiPStatus { throw Self.noOverlays }
    public func tunePiP(number: ChannelNumber) async throws -> PiPStatus { throw Self.noOverlays }
    public func swapPiP() async throws -> FlipResult { throw Self.noOverlays }
    public func closePiP() async -> PiPStatus { PiPStatus(open: false, channel: nil, corner: "", size: 0) }
    public func togglePiP() async throws -> PiPStatus { throw Self.noOverlays }
    public func openMultiview(grid: Int) async throws -> MultiviewStatus { throw Self.noOverlays }
    public func closeMultiview() async -> MultiviewStatus { MultiviewStatus(open: false, grid: 0, channels: [], highlight: nil) }
    public func toggleMultiview(grid: Int) async throws -> MultiviewStatus { throw Self.noOverlays }
    public func moveMultiview(_ move: MultiviewMove) async throws -> MultiviewStatus { throw Self.noOverlays }
    public func selectMultiview() async throws -> FlipResult { throw Self.noOverlays }
    public func timeshift(_ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus {
        throw TimeshiftFailure(.off, "this player has no timeshift")
    }
    public func timeshiftStatus() async -> TimeshiftStatus? { nil }
    public func audioStatus() async -> AudioStatus { AudioStatus(channel: nil, audio: AudioState(tracks: [], playing: nil)) }
    public func selectAudio(_ spec: String) async throws -> AudioStatus {
        throw AudioSelectionError(code: .unsupported, message: "this player has no audio tracks")
    }
    public func showPINEntry(_ typed: Int?) async {}
    public func remindersChanged() async {}
    public func toggleGuide() async -> GuideGridStatus { GuideGridStatus(open: false, channel: nil, programme: nil) }
    public func closeGuide() async -> GuideGridStatus { GuideGridStatus(open: false, channel: nil, programme: nil) }
    public func moveGuide(_ move: GuideMove) async throws -> GuideGridStatus { throw Self.noOverlays }
    public func selectGuide() async throws -> FlipResult { throw Self.noOverlays }
    public func remindFromGuide() async throws -> Reminder { throw Self.noOverlays }
    public func answerProposal(accept: Bool) async throws -> FlipResult? { throw Self.noOverlays }
    public func unlock(pin: String, channel: ChannelNumber?) async throws -> UnlockStatus {
        throw UnlockError(.notLocked, "this player has no parental locks")
    }
    private static var noOverlays: OverlayError { OverlayError(.unsupported, "this player has no overlays") }
}
