import Lineup

/// Why a source of channels (a playlist URL, an Xtream account, an HDHomeRun, a Tvheadend
/// server) cannot be read: a code for programs, and a message for the person running the box,
/// never with a password (`SourceText.shown`).
public enum SourceFailureCode: FailureCode {
    /// The source as written is wrong: its address, an option, its password or password file.
    case setting
    /// Nothing answered, or not in time.
    case unreachable
    /// The source turned the box away: a wrong login, an account expired or disabled, no right
    /// to stream.
    case refused
    /// It answered, but not what such a source answers (an HTML page, no JSON, no channel).
    case badAnswer
    /// No device answered discovery on the LAN.
    case notFound

    public var kind: FailureKind {
        switch self {
        case .setting: .badRequest
        case .unreachable: .unavailable
        case .refused: .forbidden
        case .badAnswer: .upstream
        case .notFound: .notFound
        }
    }
}

public typealias SourceFailure = Failure<SourceFailureCode>

extension Failure where Code == SourceFailureCode {
    /// A source failure whose message is shown as `SourceText.shown` shows a source's text:
    /// credentials and control characters left out.
    static func said(_ code: SourceFailureCode, _ text: String) -> SourceFailure {
        SourceFailure(code, SourceText.shown(text))
    }
}
