import CFuzzer
import GStreamer

/// libFuzzer over the splice guard in front of every tsdemux (C in the GStreamer shim, and
/// libgstmpegts on the sections it finds well formed): GStreamer 1.22's tsdemux dereferences a
/// NULL table when a splice section it forwards does not parse, so the guard is what stands
/// between a hostile stream and a crash. Each input is fed as bytes pushed in pieces (the first
/// byte says where they are cut), and as the body of a splice section (table 0xFC, its length
/// set from the input) carried in TS packets of one PID, split across packets when long: the
/// structure check sees any section, not only those random bytes happen to frame. A crash or a
/// hang is a finding; a verdict is the expected answer.
let ready: Bool = (try? GStreamer.initialize()) != nil

let feedSpliceBytes: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    guard ready else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // As they come: in two pieces.
    let raw = SpliceGuard()
    let cut = bytes.first.map { min(Int($0) * 7, bytes.count) } ?? 0
    _ = raw.feed(Array(bytes[..<cut]))
    _ = raw.feed(Array(bytes[cut...]))
    // As a splice section's body, in packets.
    let body = Array(bytes.prefix(4093 - 3))
    let length = body.count
    let section: [UInt8] = [0xFC, 0x30 | UInt8((length >> 8) & 0x0F), UInt8(length & 0xFF)] + body
    let packets = SpliceGuard()
    var payload = [0] + section
    var continuity: UInt8 = 0
    var first = true
    while !payload.isEmpty {
        let chunk = Array(payload.prefix(184))
        payload.removeFirst(chunk.count)
        let head: [UInt8] = [0x47, (first ? 0x40 : 0x00) | 0x01, 0xF4, 0x10 | continuity]
        _ = packets.feed(head + chunk + [UInt8](repeating: 0xFF, count: 184 - chunk.count))
        continuity = (continuity + 1) & 0x0F
        first = false
    }
    return 0
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { feedSpliceBytes(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_splice_main")
func fuzzSpliceMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, feedSpliceBytes)
}
