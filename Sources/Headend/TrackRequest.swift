import Foundation
import GStreamer
import Lineup

/// What a viewer asks of a channel's tracks of one kind (sound, subtitles).
public enum TrackRequest: Sendable, Hashable, CustomStringConvertible {
    /// The next track, in stream order.
    case next
    /// The track at this position of the channel's list (0 for the first).
    case track(Int)
    /// The track in this language (ISO 639-2/T; the next one when several speak it).
    case language(String)

    public var description: String {
        switch self {
        case .next: "the next track"
        case .track(let i): "track \(i + 1)"
        case .language(let code): LanguageCode.name(code).map { "\($0) (\(code))" } ?? code
        }
    }

    /// `next`, a track number from 1, or a language (`deu`, `de`, `ger`, `German`); nil for
    /// anything else.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.lowercased() == "next" {
            self = .next
        } else if let n = Int(t) {
            guard n >= 1 else { return nil }
            self = .track(n - 1)
        } else if let code = LanguageCode.normalized(t) {
            self = .language(code)
        } else {
            return nil
        }
    }
}

public typealias AudioRequest = TrackRequest

/// Why a request for a track cannot be met; `message` is for the viewer.
public struct TrackSelectionError: DomainFailure {
    public enum Code: Sendable { case notPlaying, noAudio, noSuchTrack, badRequest }
    public var kind: FailureKind {
        switch code {
        case .badRequest: .badRequest
        case .noSuchTrack: .notFound
        case .notPlaying, .noAudio: .conflict
        }
    }
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
    public var code: Code
    public var message: String
    public var description: String { message }
}

public typealias AudioSelectionError = TrackSelectionError

/// A viewer's choice per channel id, kept while the box runs. Any thread.
final class ChannelChoices<Choice: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var choices: [String: Choice] = [:]
    subscript(id: String) -> Choice? {
        get { lock.withLock { choices[id] } }
        set { lock.withLock { choices[id] = newValue } }
    }
}
