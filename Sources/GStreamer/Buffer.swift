import CGStreamer

/// A media buffer; owns one reference. Treated as immutable: `retimed` and the blend
/// functions return new buffers and never touch one that others may hold.
public final class Buffer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstBuffer>

    init(takingOwnership pointer: UnsafeMutablePointer<GstBuffer>) { self.pointer = pointer }
    init(retaining pointer: UnsafeMutablePointer<GstBuffer>) { self.pointer = gst_buffer_ref(pointer) }
    deinit { gst_buffer_unref(pointer) }

    /// A new buffer holding a copy of `bytes`.
    public convenience init(bytes: [UInt8]) {
        let b = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        bytes.withUnsafeBytes { raw in _ = gst_buffer_fill(b, 0, raw.baseAddress, gsize(raw.count)) }
        self.init(takingOwnership: b)
    }

    /// A new buffer holding a copy of `bytes`, with its times and keyframe mark (a compressed
    /// frame read back from storage).
    public convenience init(bytes: [UInt8], pts: ClockTime, dts: ClockTime, keyframe: Bool) {
        self.init(bytes: bytes)
        fb_buffer_set_pts(pointer, pts)
        fb_buffer_set_dts(pointer, dts)
        fb_buffer_set_delta(pointer, keyframe ? 0 : 1)
    }

    public var pts: ClockTime { fb_buffer_pts(pointer) }
    public var dts: ClockTime { fb_buffer_dts(pointer) }
    public var duration: ClockTime { fb_buffer_duration(pointer) }
    /// `GST_BUFFER_OFFSET`; Flipbox tags output frames with their feed id here.
    public var offset: UInt { fb_buffer_offset(pointer) }
    /// True for a keyframe (no `DELTA_UNIT` flag).
    public var isKeyframe: Bool { fb_buffer_is_delta(pointer) == 0 }
    public var isHeader: Bool { fb_buffer_is_header(pointer) != 0 }
    public var size: Int { Int(gst_buffer_get_size(pointer)) }
    /// Whether the buffer carries closed captions (CEA-608/708 that a parser found in the video,
    /// such as `h264parse` in H.264 SEI).
    public var carriesCaptions: Bool { fb_buffer_has_captions(pointer) != 0 }
    /// The CEA-708 `cc_data` triplets (`cc_valid|cc_type`, two bytes) of the buffer's captions,
    /// as a parser found them in the video; empty without.
    public var captionTriplets: [UInt8] {
        var out = [UInt8](repeating: 0, count: 31 * 3)
        let n = out.withUnsafeMutableBufferPointer { fb_buffer_cc_data(pointer, $0.baseAddress, gsize($0.count)) }
        return Array(out.prefix(Int(n)))
    }

    /// A copy of the bytes and the metadata that belongs to no buffer pool. A frame that comes
    /// out of a pipeline belongs to that pipeline's pool, and keeps the pool (its memory and the
    /// two sockets of its wait handle) alive as long as it lives: a frame kept for long (a cached
    /// card) is copied out.
    public func detached() -> Buffer {
        Buffer(takingOwnership: gst_buffer_copy_deep(pointer))
    }

    /// Whether the buffer belongs to a buffer pool (and keeps it alive).
    public var isFromPool: Bool { pointer.pointee.pool != nil }

    /// A buffer sharing this one's memory with new timestamps (and offset, when given).
    public func retimed(pts: ClockTime, dts: ClockTime, duration: ClockTime? = nil, offset: UInt? = nil, discont: Bool = false) -> Buffer {
        let copy = fb_buffer_copy_metadata_only(pointer)!
        fb_buffer_set_pts(copy, pts)
        fb_buffer_set_dts(copy, dts)
        if let duration { fb_buffer_set_duration(copy, duration) }
        if let offset { fb_buffer_set_offset(copy, offset) }
        if discont { fb_buffer_set_discont(copy) } else { fb_buffer_unset_discont(copy) }
        return Buffer(takingOwnership: copy)
    }

    /// The bytes from `offset` on (sharing this buffer's memory) with this buffer's flags, and
    /// `pts` as its time (the first of them starts later than the buffer did).
    public func tail(from offset: Int, pts: ClockTime) -> Buffer {
        let tail = fb_buffer_tail(pointer, gsize(max(0, offset)))!
        fb_buffer_set_pts(tail, pts)
        fb_buffer_set_dts(tail, .none)
        return Buffer(takingOwnership: tail)
    }

    /// Whether the buffer follows a gap in its stream (`DISCONT`: lost data, a seek, a loop).
    public var isDiscont: Bool { fb_buffer_is_discont(pointer) != 0 }

    /// A copy of the bytes.
    public func bytes() -> [UInt8] {
        withBytes { Array($0) } ?? []
    }

    /// How many memory blocks hold the bytes (a parser's output is now and then in two: one video
    /// buffer in 300 of an MPEG-TS ingest here).
    public var memoryCount: Int { Int(gst_buffer_n_memory(pointer)) }

    /// A new buffer of `parts`, each in a memory block of its own (as a parser's output now and
    /// then is).
    public convenience init(parts: [[UInt8]]) {
        let joined = gst_buffer_new()!
        for part in parts {
            let block = Buffer(bytes: part)
            gst_buffer_append_memory(joined, gst_buffer_get_memory(block.pointer, 0))
        }
        self.init(takingOwnership: joined)
    }

    /// A 64-bit FNV-1a digest of every `stride`-th byte: cheap enough for every output frame
    /// (about 14,000 bytes of a 720p picture at the default), and it changes with any picture
    /// that moves. Nil when the buffer cannot be read.
    public func sampledDigest(stride: Int = 97) -> UInt64? {
        withBytes { bytes in
            var digest: UInt64 = 0xcbf2_9ce4_8422_2325
            var i = 0
            while i < bytes.count {
                digest = (digest ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01b3
                i += max(1, stride)
            }
            return digest
        }
    }

    /// Reads the bytes in place for the duration of `body` (any thread, however many at once).
    ///
    /// Mapped through a reference of its own. A buffer of several memory blocks that has one
    /// reference counts as writable, and GStreamer maps it by merging the blocks and putting the
    /// merged one into the buffer in place: a write, with no lock, while other threads read the
    /// same buffer (a GOP cache's entry is read by decoders, the timeshift writer and the
    /// republisher at once), which frees blocks they are using. With a second reference the
    /// buffer is not writable, and GStreamer maps a merged copy and leaves the buffer as it was.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        let held = gst_buffer_ref(pointer)!
        defer { gst_buffer_unref(held) }
        var info = GstMapInfo()
        guard gst_buffer_map(held, &info, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(held, &info) }
        return try body(UnsafeRawBufferPointer(start: info.data, count: Int(info.size)))
    }
}
