import Foundation
import GStreamer
import Lineup

/// What a clip reads: a channel's timeshift buffer and its sound formats.
public struct ClipSource: Sendable {
    public let buffer: TimeshiftBuffer
    /// The channel's picture format now (nil before its first keyframe).
    let videoCaps: Caps?
    /// The channel's audio format per stream (audio entries carry caps only when they change).
    let audioCaps: [Int: Caps]
}

extension Headend {
    /// The timeshift buffer of channel `number`, for a clip. Throws `.unknown` for a channel not
    /// in the lineup and `.notBuffered` when it has no buffer (timeshift off, or the channel was
    /// never shown or has stopped).
    public func clipSource(channel number: ChannelNumber) throws(ClipFailure) -> ClipSource {
        guard let index = lineup.index(of: number) else {
            throw ClipFailure(.unknown, "there is no channel \(number) in the lineup")
        }
        guard timeshiftSettings != nil else {
            throw ClipFailure(.notBuffered, "timeshift is off: clips are cut from the timeshift buffer (start with --timeshift 30m)")
        }
        guard let recording = timeshiftBuffers[index], recording.buffer.range != nil else {
            throw ClipFailure(.notBuffered, "channel \(number) has no timeshift buffer (a channel is buffered once it has been on screen)")
        }
        let cache = sources[index].cache
        return ClipSource(buffer: recording.buffer, videoCaps: cache.videoCaps, audioCaps: cache.audioFormats)
    }
}

extension GOPCache {
    /// The channel's audio format per stream (audio entries carry caps only when they change):
    /// what a remux (a clip, a recording) gives its audio tracks.
    var audioFormats: [Int: Caps] {
        var audio: [Int: Caps] = [:]
        for track in audioTracks { if let caps = audioCaps(stream: track.index) { audio[track.index] = caps } }
        if audio.isEmpty, let caps = audioCaps { audio[0] = caps }
        return audio
    }
}
