/// Entry points for the fuzz targets (`make fuzz`): the XMLTV reader over bytes in memory.
@_spi(Fuzzing) public enum XMLTVFuzzing {
    /// Reads `bytes` as an XMLTV document to its end (or its first error) and returns how many
    /// channels and programmes it handed over. Never throws: a fuzzer only looks for crashes,
    /// hangs and leaks.
    public static func read(_ bytes: [UInt8]) -> (channels: Int, programmes: Int) {
        var channels = 0, programmes = 0
        let parser = XMLTVParser(name: "<fuzz>", onChannel: { _ in channels += 1 }, onProgramme: { _ in programmes += 1 })
        _ = try? parser.parse(MemoryByteSource(bytes))
        return (channels, programmes)
    }
}

/// Bytes already in memory, as a `ByteSource`.
final class MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(GuideError) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }
}
