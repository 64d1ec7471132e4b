import Foundation
import GStreamer
import Lineup
import MediaProbe

extension Headend {
    /// The chapters of channel `number`'s file source (its first `file://` or path source), read
    /// with libavformat; empty for a channel that is not a file or whose file has none. Throws
    /// `ProbeError` when the file cannot be read. Runs off the media thread.
    public nonisolated func chapters(of number: ChannelNumber) async throws(ProbeError) -> [Chapter] {
        guard let path = filePath(of: number) else { return [] }
        return try await MediaProbe.probe(path, options: ProbeOptions(timeout: .seconds(10), sampleSeconds: 0)).chapters
    }

    /// Channel `number`'s chapters placed in its timeshift buffer, one marker per chapter per
    /// loop of the file, oldest first; empty when it has no chapters or no buffer. What the
    /// timeshift status lists as chapter markers.
    public func chapterMarkers(of number: ChannelNumber) async throws(ProbeError) -> [ChapterMarker] {
        guard let path = filePath(of: number),
              let index = lineup.index(of: number),
              let buffer = timeshiftBuffers[index]?.buffer else { return [] }
        let info = try await MediaProbe.probe(path, options: ProbeOptions(timeout: .seconds(10), sampleSeconds: 0))
        guard let window = buffer.range, let anchor = buffer.timeAnchor else { return [] }
        return ChapterMarkers.place(info.chapters, length: info.duration,
                                    anchor: (Double(anchor.sourceTime) / 1e9, anchor.wallClock), within: window)
    }

    /// The path of channel `number`'s file source, relative paths taken from the lineup's directory.
    nonisolated func filePath(of number: ChannelNumber) -> String? {
        guard let channel = lineup.channel(number: number) else { return nil }
        for source in channel.sources {
            let scheme = SourceScheme(url: source)
            guard scheme == .file || (scheme == nil && !source.contains("://")) else { continue }
            var path = scheme == .file ? (URL(string: source)?.path ?? String(source.dropFirst("file://".count))) : source
            if !path.hasPrefix("/"), let file = lineup.file {
                path = (((file as NSString).deletingLastPathComponent) as NSString).appendingPathComponent(path)
            }
            return path
        }
        return nil
    }
}
