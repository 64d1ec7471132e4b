import Foundation
import GStreamer

/// The pictures shown for channels without video (radio): one per channel id, set by whoever
/// renders them (the player's radio card), and a plain stand-in until then. Any thread.
public final class StillPictures: @unchecked Sendable {
    private let lock = NSLock()
    private var pictures: [String: Buffer] = [:]
    private var standInFrame: Buffer?
    private let target: DecodeTarget

    init(target: DecodeTarget) { self.target = target }

    /// Sets (or with nil removes) the picture of channel `id`, as a frame of the decode target's format.
    public func set(_ picture: Buffer?, for id: String) { lock.withLock { pictures[id] = picture } }

    /// Whether channel `id` has a picture of its own.
    public func has(_ id: String) -> Bool { lock.withLock { pictures[id] != nil } }

    /// The picture of channel `id`, or the stand-in (a dark frame, made once).
    func picture(for id: String) -> Buffer? {
        if let p = lock.withLock({ pictures[id] ?? standInFrame }) { return p }
        let frame = try? VideoFormat(caps: Caps(target.videoCaps)).solidFrame(r: 16, g: 24, b: 48)
        lock.withLock { if standInFrame == nil { standInFrame = frame } }
        return frame
    }
}
