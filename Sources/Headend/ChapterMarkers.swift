import Foundation
import MediaProbe

/// A chapter of a file channel placed on the wall clock: a navigation marker in its timeshift
/// buffer. A looped file has one per chapter per loop.
public struct ChapterMarker: Sendable, Hashable, Codable {
    /// When the chapter starts on the channel.
    public var time: Date
    public var title: String?
    /// The chapter's number in the file, from 1.
    public var chapter: Int

    public init(time: Date, title: String?, chapter: Int) {
        self.time = time
        self.title = title
        self.chapter = chapter
    }
}

/// Places file chapters on the wall clock. Pure.
///
/// A file channel's ingest times its data by running time: 0 at the file's start, growing by the
/// file's length on every loop. So chapter `c` of loop `n` plays at running time
/// `n × length + c.start`, and the buffer's anchor (a running time and the wall-clock moment it
/// arrived) turns that into a moment.
public enum ChapterMarkers {
    /// The markers within `window`, oldest first. `length` is the file's duration (nil or 0: the
    /// file is not looped, only its first pass counts); `anchor` pairs a running time (seconds)
    /// with the moment it played.
    public static func place(_ chapters: [Chapter], length: Double?, anchor: (runningTime: Double, at: Date),
                             within window: ClosedRange<Date>) -> [ChapterMarker] {
        guard !chapters.isEmpty else { return [] }
        func runningTime(_ date: Date) -> Double { anchor.runningTime + date.timeIntervalSince(anchor.at) }
        let low = runningTime(window.lowerBound), high = runningTime(window.upperBound)
        let loops: ClosedRange<Int>
        if let length, length > 0 {
            let last = chapters.map(\.start).max() ?? 0
            let first = Int(((low - last) / length).rounded(.down))
            loops = max(0, first)...max(0, Int((high / length).rounded(.down)))
        } else {
            loops = 0...0
        }
        var out: [ChapterMarker] = []
        for loop in loops {
            for (index, chapter) in chapters.enumerated() {
                let time = Double(loop) * (length ?? 0) + chapter.start
                guard time >= low, time <= high else { continue }
                out.append(ChapterMarker(time: anchor.at.addingTimeInterval(time - anchor.runningTime), title: chapter.title, chapter: index + 1))
            }
        }
        return out.sorted { $0.time < $1.time }
    }
}
