/// A lineup value that does not parse, with a message for the person who wrote it.
public typealias LineupValueError = Failure<LineupValueCode>

/// Which kind of value did not parse.
public enum LineupValueCode: String, FailureCode {
    /// A channel number (`7`, `9.1`) in a lineup, a path or a request.
    case channelNumber
    /// A channel's `breaks` (`every 30m at 28m for 2m`, a time and a length).
    case breaks
    /// A channel's `multicast` group and port (`239.1.1.7:5000`).
    case multicast

    public var kind: FailureKind { .badRequest }
}
