import Synchronization

/// Names one decoded stream of a channel on its way to the screen (one per flip), so frames of
/// an abandoned flip are recognised. `.none` (0) tags pictures that are no feed (a card).
public struct FeedID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let value: UInt
    public init(_ value: UInt) { self.value = value }
    public init(integerLiteral value: UInt) { self.value = value }
    public static let none = FeedID(0)
    public var description: String { "feed \(value)" }
    public static func < (a: FeedID, b: FeedID) -> Bool { a.value < b.value }
}

extension FeedID {
    /// A feed id never given before in this process (from 1 on). Whoever asks for a feed takes
    /// one (the player for a flip, the picture-in-picture window, a bench) and tells the output to
    /// expect it before the head-end makes any frame of it.
    public static func next() -> FeedID { FeedID(feedIDs.take()) }
}

/// The process's feed id counter.
private let feedIDs = FeedIDCounter()

private final class FeedIDCounter: Sendable {
    private let next = Mutex<UInt>(1)

    func take() -> UInt {
        next.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
