import FlipboxCore
import Headend
import Switcher

/// What a key press on the remote asks for.
public enum RemoteCommand: Sendable, Hashable {
    /// Request this flip from the player.
    case flip(FlipRequest)
    /// Show the channel number typed so far (e.g. `12`).
    case showEntry(String)
    /// Hide the typed number (committed or cancelled).
    case hideEntry
    /// Show what is playing (and the on-screen banner on or off).
    case info
    /// Picture-in-picture on or off.
    case pip
    /// Swap the main picture and the picture-in-picture.
    case swap
    /// The multiview on or off.
    case multiview
    /// Move the multiview's highlight.
    case multiviewMove(MultiviewMove)
    /// Tune the multiview's highlighted channel.
    case multiviewSelect
    /// Switch next/previous between all channels, favourites and the current group.
    case cycleScope
    /// Pause, seek or back to live on the channel on screen.
    case timeshift(TimeshiftCommand)
    /// Play the channel's next audio track (language).
    case nextAudio
    /// Show the channel's next subtitle track (after the last: off).
    case nextSubtitles
    /// Show this many PIN dots on the lock card (0 hides them).
    case showPIN(Int)
    /// Unlock the channel on screen with this PIN.
    case unlock(pin: String)
    /// Answer the proposal on screen: OK watches, Back dismisses.
    case answerProposal(accept: Bool)
    /// The on-screen guide on or off.
    case guide
    /// Move the guide's focus.
    case guideMove(GuideMove)
    /// Tune the guide's focused channel.
    case guideSelect
    /// Close the guide.
    case guideClose
    /// A reminder for the guide's focused programme.
    case guideRemind
    /// Record the guide's focused programme, or (`series`) every programme of its title.
    case guideRecord(series: Bool)
    /// The list of recordings on or off.
    case recordings
    /// Move the list's focus (up, down, a page).
    case recordingsMove(GuideMove)
    /// Play the focused recording (where it was left) and close the list.
    case recordingsSelect
    /// Close the list.
    case recordingsClose
    /// Leave the player.
    case quit
}
