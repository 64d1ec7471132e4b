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

    /// The picture of channel `id`, or the stand-in (a dark blue frame, made once).
    func picture(for id: String) -> Buffer? {
        if let p = lock.withLock({ pictures[id] ?? standInFrame }) { return p }
        let frame = Self.solidI420(width: target.width, height: target.height, y: 29, u: 140, v: 122)
        lock.withLock { if standInFrame == nil { standInFrame = frame } }
        return frame
    }

    /// An I420 frame of one colour, written plane by plane (no conversion: it is wanted at the
    /// moment a radio channel's sound starts).
    static func solidI420(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) -> Buffer {
        let luma = width * height, chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return Buffer(bytes: [UInt8](repeating: y, count: luma) + [UInt8](repeating: u, count: chroma) + [UInt8](repeating: v, count: chroma))
    }
}
