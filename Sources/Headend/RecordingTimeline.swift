import Foundation

/// Where a moment of a recording is in its file: the file is its parts one after another (a
/// restart appends a part, the time the box was down is a gap between them), each part's bytes
/// spread over its span. A moment inside a part is found in proportion to its bytes (a TV
/// stream's rate is near constant over a part; the picture then starts at the next keyframe);
/// one in a gap is the next part's start. Offsets are whole MPEG-TS packets.
public struct RecordingTimeline: Sendable, Equatable {
    /// A written piece of the recording, in file order.
    public struct Part: Sendable, Equatable {
        public var start: Date
        public var end: Date
        public var bytes: Int64
        public init(start: Date, end: Date, bytes: Int64) {
            self.start = start
            self.end = end
            self.bytes = bytes
        }
    }

    /// The parts with their first byte, in order; none empty in time.
    public let parts: [(part: Part, first: Int64)]

    public static func == (a: Self, b: Self) -> Bool {
        a.parts.map(\.part) == b.parts.map(\.part) && a.parts.map(\.first) == b.parts.map(\.first)
    }

    /// The TS packet size offsets are whole multiples of.
    public static let packet: Int64 = 188

    /// The timeline of `parts` (as stored: start, end, bytes counted) over a file of `fileSize`
    /// bytes: what the file holds past the parts' counts belongs to the last part (its count
    /// lags the writes), whose end is `growingUntil` while it is being written. Parts with no
    /// bytes or going backwards in time are left out.
    public init(parts: [Part], fileSize: Int64, growingUntil: Date? = nil) {
        var out: [(part: Part, first: Int64)] = []
        var first: Int64 = 0
        for (i, stored) in parts.enumerated() {
            var part = stored
            if i == parts.count - 1 {
                // The last part is what the file holds after the others.
                let (rest, overflow) = fileSize.subtractingReportingOverflow(first)
                part.bytes = overflow ? part.bytes : max(part.bytes, rest)
                if let growingUntil, growingUntil > part.end { part.end = growingUntil }
            }
            guard part.bytes > 0, part.end > part.start, out.last.map({ part.start >= $0.part.start }) ?? true else {
                first = first.addingReportingOverflow(max(0, part.bytes)).partialValue
                continue
            }
            out.append((part, first))
            let (next, overflow) = first.addingReportingOverflow(part.bytes)
            guard !overflow else { break }
            first = next
        }
        self.parts = out
    }

    /// From the first part's start to the last part's end; nil when nothing was written.
    public var span: ClosedRange<Date>? {
        guard let first = parts.first, let last = parts.last else { return nil }
        return first.part.start...max(first.part.start, last.part.end)
    }

    /// The byte `time` starts at: clamped to the span, whole packets.
    public func offset(at time: Date) -> Int64 {
        guard let span else { return 0 }
        let at = min(max(time, span.lowerBound), span.upperBound)
        // The part holding `at`, else the next one after it (a gap plays on from its end).
        guard let (part, first) = parts.first(where: { at < $0.part.end }) ?? parts.last else { return 0 }
        let fraction = at <= part.start ? 0 : min(1, at.timeIntervalSince(part.start) / part.end.timeIntervalSince(part.start))
        let into = Int64(exactly: (Double(part.bytes) * fraction).rounded(.down)) ?? part.bytes
        let (sum, overflow) = first.addingReportingOverflow(min(part.bytes, max(0, into)))
        let byte = overflow ? Int64.max : sum
        return byte - byte % Self.packet
    }

    /// The moment `at` falls back to when a playback starts there: its part's start when it is
    /// in a gap, else itself (clamped to the span).
    public func moment(_ at: Date) -> Date {
        guard let span else { return at }
        let clamped = min(max(at, span.lowerBound), span.upperBound)
        guard let part = parts.first(where: { clamped < $0.part.end })?.part else { return clamped }
        return max(clamped, part.start)
    }
}
