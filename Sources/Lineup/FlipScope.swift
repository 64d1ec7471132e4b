/// Which channels next/previous visit.
public enum FlipScope: Sendable, Hashable, CustomStringConvertible {
    /// Every channel (minus the skipped ones).
    case all
    /// Favourites only.
    case favourites
    /// The channels of the current channel's group.
    case group

    /// `all`, `favourites` (or `favorites`), `group`.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "all": self = .all
        case "favourites", "favorites": self = .favourites
        case "group": self = .group
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .all: "all"
        case .favourites: "favourites"
        case .group: "group"
        }
    }
}

/// What next/previous do with a locked channel.
public enum LockedFlip: String, Sendable, Hashable {
    /// Pass it by (the default).
    case skip
    /// Stop on it and show its lock card (the flip completes as `failed(locked)`).
    case card
}
