/// Names one flip request; its result arrives exactly once. The screen uses it as the token
/// of the request's card. Encodes as its number (the HTTP API's `requestId`).
public struct RequestID: Sendable, Hashable, Comparable, CustomStringConvertible, Codable, ExpressibleByIntegerLiteral {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public init(integerLiteral value: UInt64) { self.value = value }
    /// No request (a card put up outside any flip, such as a lock after a rule changed).
    public static let none = RequestID(0)
    public var description: String { "#\(value)" }
    public static func < (a: RequestID, b: RequestID) -> Bool { a.value < b.value }

    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(UInt64.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
