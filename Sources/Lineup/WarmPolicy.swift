/// Which channels are kept warm (connected, GOP cached, not decoded).
public enum WarmPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Every channel in the lineup.
    case all
    /// The `n` channels on each side of the current one, plus the last channel and favourites.
    case neighbours(Int)
    /// Only the channel on screen runs; every flip is cold.
    case none

    /// Parses `all`, `none`, `neighbours:N`.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "all": self = .all
        case "none": self = .none
        default:
            let parts = text.lowercased().split(separator: ":")
            guard parts.count == 2, parts[0] == "neighbours" || parts[0] == "neighbors", let n = Int(parts[1]), n >= 0 else { return nil }
            self = .neighbours(n)
        }
    }

    public var description: String {
        switch self {
        case .all: "all"
        case .none: "none"
        case .neighbours(let n): "neighbours:\(n)"
        }
    }

    /// How many channels on each side count as neighbours when the budget ranks channels:
    /// the policy's own radius, 2 when every channel is warm.
    public var neighbourRadius: Int {
        switch self {
        case .all: 2
        case .none: 0
        case .neighbours(let n): n
        }
    }

    /// Indices of the channels to keep warm, given the lineup size, the current index, the last
    /// channel's index and the favourites' indices.
    public func warmSet(count: Int, current: Int?, last: Int?, favourites: [Int]) -> Set<Int> {
        switch self {
        case .all: return Set(0..<count)
        case .none: return current.map { [$0] } ?? []
        case .neighbours(let n):
            var set = Set(favourites)
            if let last { set.insert(last) }
            guard let current, count > 0 else { return set }
            set.insert(current)
            for d in 1...max(1, n) where n > 0 {
                set.insert((current + d) % count)
                set.insert(((current - d) % count + count) % count)
            }
            return set
        }
    }
}
