/// A key pressed on the terminal or a remote (evdev), as the remote understands it.
public enum Key: Sendable, Hashable {
    case up, down, pageUp, pageDown
    /// The left and right arrows (they move the multiview's highlight).
    case left, right
    /// `+` or `=` (and keypad `+`).
    case plus
    /// `-` (and keypad `-`).
    case minus
    /// `0`...`9`.
    case digit(Int)
    /// `.`, the sub-channel separator.
    case dot
    case enter
    /// Backspace or Delete-left (0x7F or 0x08).
    case backspace
    /// `q` or `Q`.
    case quit
    /// `i` or `I`.
    case info
    /// `f` or `F`: which channels next/previous visit (all, favourites, the group).
    case scope
    /// `p` or `P`: picture-in-picture on or off.
    case pip
    /// `s` or `S`: swap the main picture and the picture-in-picture.
    case swap
    /// `m` or `M`: the multiview on or off.
    case multiview
    /// A remote's Back or Last key: deletes a typed digit, else the last channel (as Backspace).
    case back
    /// The four colour keys (no command yet; they reach the keypad for later modes).
    case red, green, yellow, blue
    /// Transport keys: timeshift pause/play, back/forward 60 s, live.
    case playPause, rewind, fastForward, stop
    /// `[` / `]` and a remote's previous/next keys: the previous or next timeshift marker.
    case skipBack, skipForward
    /// The programme guide key (EPG), or `g`: the on-screen guide on or off.
    case guide
    /// The favourites key: next flip scope, as `f`.
    case favourites
    /// `a` or `A` (and a remote's Audio key): the next audio track.
    case audio
    /// `c` or `C` (and a remote's Subtitle key): the next subtitle track, then off.
    case subtitle
    /// `r` or `R` (and a remote's Record key): in the guide, record the focused programme.
    case record
    /// `l` or `L` (and a remote's PVR or List key): the list of recordings on or off.
    case recordings
    /// Anything else, including unknown escape sequences and a lone Escape.
    case other
}
