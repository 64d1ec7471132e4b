import Headend
import Lineup

/// Why a thumbnail could not be made (`unknownChannel`, `notWarm`, ...), with a message for people.
public typealias ThumbnailError = ThumbnailFailure

extension Player {
    /// A JPEG of `number`'s most recent keyframe, `width` pixels wide (the stream's size when nil).
    ///
    /// Only warm and hot channels have one: their GOP cache holds a keyframe, which is decoded
    /// once (and remembered until the next keyframe); nothing decodes continuously for it.
    public nonisolated func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8] {
        try await thumbnail(number: number, width: width).jpeg
    }

    /// The picture with how it was made (for measurements).
    public nonisolated func thumbnail(number: ChannelNumber, width: Int?) async throws(ThumbnailError) -> Thumbnailer.Picture {
        guard let channel = lineup.channel(number: number), let source = headend.source(for: channel) else {
            throw ThumbnailError(.unknownChannel, "unknown channel \(number)")
        }
        if await isLocked(number) {
            throw ThumbnailError(.noPicture, "channel \(channel.number) \(channel.name) is locked")
        }
        switch source.state {
        case .warm, .hot: break
        default:
            throw ThumbnailError(.notWarm, "channel \(channel.number) \(channel.name) is not warm: \(source.state)")
        }
        do {
            return try await Thumbnailer.shared.picture(of: source.cache, width: width)
        } catch {
            throw ThumbnailError(error.code, "channel \(channel.number) \(channel.name): \(error.message)")
        }
    }
}
