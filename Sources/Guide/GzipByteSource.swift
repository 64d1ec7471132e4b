import CZlib

/// Inflates a gzip (or zlib) stream from another byte source as it is read: nothing but one
/// input buffer is held, whatever the size of the file. Concatenated gzip members are read
/// one after the other, as `gunzip` does.
///
/// The only file that calls zlib.
final class GzipByteSource: ByteSource {
    private let input: any ByteSource
    private let name: String
    private var stream = z_stream()
    private var inputBuffer: UnsafeMutableRawBufferPointer
    private var initialised = false
    private var inputEnded = false
    private var memberEnded = false

    init(reading input: any ByteSource, name: String) {
        self.input = input
        self.name = name
        inputBuffer = .allocate(byteCount: 64 * 1024, alignment: 1)
    }

    deinit {
        if initialised { inflateEnd(&stream) }
        inputBuffer.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(GuideError) -> Int {
        guard buffer.count > 0 else { return 0 }
        if !initialised {
            // 15 + 32: the largest window, and detect a gzip or zlib header by itself.
            guard czlib_inflate_init2(&stream, 15 + 32) == Z_OK else {
                throw GuideError(.badCompression, "cannot start gzip decompression", source: name)
            }
            initialised = true
        }
        stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(buffer.count)
        while stream.avail_out == UInt32(buffer.count) {
            if stream.avail_in == 0, !inputEnded {
                let n = try input.read(into: inputBuffer)
                if n == 0 { inputEnded = true } else {
                    stream.next_in = inputBuffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_in = uInt(n)
                }
            }
            if memberEnded {
                // Another gzip member follows the one that ended, or nothing does.
                if stream.avail_in == 0 { return 0 }
                inflateReset(&stream)
                memberEnded = false
            }
            if stream.avail_in == 0, inputEnded {
                throw GuideError(.badCompression, "the gzip data ends early (a truncated download?)", source: name)
            }
            let status = inflate(&stream, Z_NO_FLUSH)
            switch status {
            case Z_OK: continue
            case Z_STREAM_END: memberEnded = true
            case Z_BUF_ERROR where stream.avail_in == 0: continue
            default:
                let detail = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw GuideError(.badCompression, "the gzip data is damaged: \(detail)", source: name)
            }
        }
        return buffer.count - Int(stream.avail_out)
    }
}
