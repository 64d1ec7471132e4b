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
