import Switcher

/// What a key press on the remote asks for.
public enum RemoteCommand: Sendable, Hashable {
    /// Request this flip from the player.
    case flip(FlipRequest)
    /// Show the channel number typed so far (e.g. `12`).
    case showEntry(String)
    /// Hide the typed number (committed or cancelled).
    case hideEntry
    /// Show what is playing.
    case info
    /// Switch next/previous between all channels, favourites and the current group.
    case cycleScope
    /// Leave the player.
    case quit
}
