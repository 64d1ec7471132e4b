import Foundation

/// Why a file or URL could not be probed; the message names what and where.
public enum ProbeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing answered within the timeout.
    case timedOut(source: String, after: Duration)
    /// There is nothing at that path or address.
    case notFound(source: String, reason: String)
    /// It is there but is not audio or video libavformat can read.
    case notMedia(source: String, reason: String)
    /// Opening or reading failed for another reason (network, permissions).
    case failed(source: String, reason: String)

    public var description: String {
        switch self {
        case .timedOut(let source, let after):
            "\(source): no answer within \(after.components.seconds) s (timed out; raise --timeout if the source is slow)"
        case .notFound(let source, let reason): "\(source): \(reason)"
        case .notMedia(let source, let reason): "\(source) is not a media file or stream libavformat can read (\(reason))"
        case .failed(let source, let reason): "\(source): cannot probe: \(reason)"
        }
    }
}

/// How a probe reads its source.
public struct ProbeOptions: Sendable {
    /// Bounds every wait (opening, reading stream info) and, separately, the packet sampling.
    public var timeout: Duration
    /// Stream time of packets read to measure keyframe intervals.
    public var sampleSeconds: Double

    public init(timeout: Duration = .seconds(10), sampleSeconds: Double = 10) {
        self.timeout = timeout
        self.sampleSeconds = sampleSeconds
    }
}
