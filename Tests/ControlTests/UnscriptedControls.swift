import FlipboxCore
import Control
import Foundation
import Headend
import Lineup
import Switcher

/// The test players script only what their test is about; for the rest of the player's roles
/// they answer here as a player that cannot: 501 (`unsupported`), nothing open, no tracks.
/// Only this test target sees these answers: the real player implements every role itself.
struct Unscripted: DomainFailure {
    var what: String
    var kind: FailureKind { .unsupported }
    var message: String { "this test player has no \(what)" }
    var description: String { message }
}

extension FlipControl {
    func showEntry(_ text: String?) async {}
    func setFlipScope(_ scope: FlipScope) async {}
    func cycleFlipScope() async -> FlipScope { .all }
    func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8] { throw Unscripted(what: "thumbnails") }
}

extension FiguresControl {
    func figures() async -> PlayerFigures { .none }
}

extension OverlayControl {
    func showBanner(seconds: Double?, long: Bool) async -> BannerStatus { BannerStatus(shown: false, channel: nil) }
    func hideBanner() async -> BannerStatus { BannerStatus(shown: false, channel: nil) }
    func toggleBanner() async -> BannerStatus { BannerStatus(shown: false, channel: nil) }
    func openPiP(number: ChannelNumber?, corner: LogoStyle.Corner?, size: Double?) async throws -> PiPStatus { throw Unscripted(what: "overlays") }
    func tunePiP(number: ChannelNumber) async throws -> PiPStatus { throw Unscripted(what: "overlays") }
    func swapPiP() async throws -> FlipResult { throw Unscripted(what: "overlays") }
    func closePiP() async -> PiPStatus { PiPStatus(open: false, channel: nil, corner: "", size: 0) }
    func togglePiP() async throws -> PiPStatus { throw Unscripted(what: "overlays") }
    func openMultiview(grid: Int) async throws -> MultiviewStatus { throw Unscripted(what: "overlays") }
    func closeMultiview() async -> MultiviewStatus { MultiviewStatus(open: false, grid: 0, channels: [], highlight: nil) }
    func toggleMultiview(grid: Int) async throws -> MultiviewStatus { throw Unscripted(what: "overlays") }
    func moveMultiview(_ move: MultiviewMove) async throws -> MultiviewStatus { throw Unscripted(what: "overlays") }
    func selectMultiview() async throws -> FlipResult { throw Unscripted(what: "overlays") }
}

extension TimeshiftControl {
    func timeshift(_ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus {
        throw TimeshiftFailure(.off, "this test player has no timeshift")
    }
    func timeshiftStatus() async -> TimeshiftStatus? { nil }
    func playFromStart(_ channel: ChannelNumber, at start: Date) async throws(TimeshiftFailure) -> TimeshiftStatus {
        throw TimeshiftFailure(.noArchive, "this test player has no archive")
    }
    func playRecording(_ id: String, from start: RecordingStart, skipBreaks: Bool) async throws(TimeshiftFailure) -> TimeshiftStatus {
        throw TimeshiftFailure(.unknownRecording, "there is no recording \(id)")
    }
}

extension TimeshiftMarkersControl {
    func addTimeshiftMarker(at time: Date?, name: String?) async throws(TimeshiftFailure) -> TimeshiftMarker {
        throw TimeshiftFailure(.off, "this test player has no timeshift")
    }
    func removeTimeshiftMarker(id: Int) async throws(TimeshiftFailure) { throw TimeshiftFailure(.off, "this test player has no timeshift") }
}

extension AudioControl {
    func audioStatus() async -> AudioStatus { AudioStatus(channel: nil, audio: AudioState(tracks: [], playing: nil)) }
    func selectAudio(_ spec: String) async throws -> AudioStatus { throw Unscripted(what: "audio tracks") }
}

extension ParentalControl {
    func showPINEntry(_ typed: Int?) async {}
    func unlock(pin: String, channel: ChannelNumber?) async throws -> UnlockStatus {
        throw UnlockError(.notLocked, "this test player has no parental locks")
    }
}

extension ProgrammeControl {
    func remindersChanged() async {}
    func answerProposal(accept: Bool) async throws -> FlipResult? { throw Unscripted(what: "proposals") }
    func guideStatus() async -> GuideGridStatus { GuideGridStatus(open: false, channel: nil, programme: nil) }
    func openGuide() async -> GuideGridStatus { GuideGridStatus(open: false, channel: nil, programme: nil) }
    func toggleGuide() async -> GuideGridStatus { GuideGridStatus(open: false, channel: nil, programme: nil) }
    func closeGuide() async -> GuideGridStatus { GuideGridStatus(open: false, channel: nil, programme: nil) }
    func moveGuide(_ move: GuideMove) async throws -> GuideGridStatus { throw Unscripted(what: "guide") }
    func selectGuide() async throws -> FlipResult { throw Unscripted(what: "guide") }
    func remindFromGuide() async throws -> Reminder { throw Unscripted(what: "guide") }
    func recordFromGuide(series: Bool) async throws -> String { throw Unscripted(what: "guide") }
    func recordingListStatus() async -> RecordingListStatus { RecordingListStatus(open: false, count: 0, focused: nil, title: nil) }
    func toggleRecordingList() async -> RecordingListStatus { RecordingListStatus(open: false, count: 0, focused: nil, title: nil) }
    func closeRecordingList() async -> RecordingListStatus { RecordingListStatus(open: false, count: 0, focused: nil, title: nil) }
    func moveRecordingList(_ move: GuideMove) async throws -> RecordingListStatus { throw Unscripted(what: "recording list") }
    func selectInRecordingList() async throws -> RecordingListSelection { throw Unscripted(what: "recording list") }
}

extension SubtitleControl {
    func subtitleStatus() async -> SubtitleStatus { SubtitleStatus(channel: nil, subtitles: SubtitleState(tracks: [], showing: nil)) }
    func selectSubtitles(_ spec: String) async throws -> SubtitleStatus { throw Unscripted(what: "subtitles") }
}
