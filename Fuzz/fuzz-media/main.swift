import CFuzzer
@testable import MediaFormats

/// libFuzzer over the scanners of the bytes inside a stream: each input is read as an MPEG
/// transport stream (whole, and cut in two where its first byte says, for the bytes carried
/// between buffers) by the programme-table watch and the video PES timestamps; as the body of a
/// PAT and of a PMT (wrapped in a section with a right CRC and put in TS packets, so the tables
/// are read and not refused at the CRC); as descriptors (audio description, teletext pages); as
/// LOAS frames; as a teletext PES's page headers and a seek's keyframe start; as CEA-708 `cc_data` and as CEA-608 byte pairs; as an AC-3 frame packed in an
/// IEC 61937 burst and as the output samples a burst is found in. A crash (an overflow trap, an
/// index out of range), a hang or a leak is a finding; a refusal is the expected answer.
let readMediaBytes: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    readAsTransportStream(bytes)
    readAsTables(bytes)
    _ = ProgramMapWatch.describesPicture(bytes)
    _ = ProgramMapWatch.teletextPages(bytes)
    _ = TeletextPage.pages(descriptor: bytes.prefix(255))  // a descriptor's body is at most 255 bytes
    readAsTeletextAndKeyframes(bytes)
    readAsElementaryStreams(bytes)
    return 0
}

/// The bytes as a teletext PES (its page headers, kept as a stream's entries would be) and as
/// a recording's bytes a seek looks back through for a keyframe.
func readAsTeletextAndKeyframes(_ bytes: [UInt8]) {
    let headers = TeletextHeader.headers(in: bytes)
    precondition(headers.count <= 64, "more headers than units read")
    var kept = TeletextRetention<Int>()
    for n in 0..<4 { kept.take(n, headers: headers) }
    precondition(kept.keptCount <= 4, "an entry kept twice")
    if let start = TSRandomAccess.lastStart(in: bytes) {
        precondition(start % TSRandomAccess.packet == 0 && start + TSRandomAccess.packet <= bytes.count, "a start outside the bytes")
    }
}

/// The bytes as a transport stream: whole, and in two pieces.
func readAsTransportStream(_ bytes: [UInt8]) {
    var whole = ProgramMapWatch()
    for change in whole.read(bytes) { _ = change.description }
    _ = whole.describingPIDs
    if let pid = whole.programMapPID { _ = whole.teletextPages(pid: pid) }
    var pieces = ProgramMapWatch()
    let cut = bytes.first.map { min(Int($0) * 7, bytes.count) } ?? 0
    _ = pieces.read(Array(bytes[..<cut]))
    _ = pieces.read(Array(bytes[cut...]))
    let (timestamps, rest) = VideoPES.timestamps(in: bytes)
    precondition(rest <= bytes.count && timestamps.count <= bytes.count / 188, "the PES walk went past its bytes")
    for i in stride(from: 0, to: min(bytes.count, 64), by: 1) { _ = VideoPES.timestamp(bytes, at: i) }
}

/// The bytes as the body of a PAT (programme list) and then of a PMT (streams), each a whole
/// section with a right CRC, after a PAT that names PID 0x100 for the PMT.
func readAsTables(_ bytes: [UInt8]) {
    let body = Array(bytes.prefix(1024 - 3 - 4))
    var watch = ProgramMapWatch()
    let pat = section(table: 0x00, body: [0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xE1, 0x00])
    _ = watch.read(packets(pid: 0, section: pat) + packets(pid: 0x100, section: section(table: 0x02, body: body)))
    _ = watch.read(packets(pid: 0, section: section(table: 0x00, body: body)))
    for change in watch.read(packets(pid: 0x100, section: section(table: 0x02, body: body.reversed()))) { _ = change.description }
    if bytes.count >= 12 {
        _ = ProgramMapWatch.programs(bytes)
        _ = ProgramMapWatch.streams(bytes)
    }
}

/// A section of `table` around `body` (its first bytes as the header after the length, the
/// version forced current), with its length and CRC-32 set.
func section(table: UInt8, body: [UInt8]) -> [UInt8] {
    var head = body + [UInt8](repeating: 0, count: max(0, 9 - body.count))
    head[2] |= 0x01  // current_next_indicator
    let length = head.count + 4
    var s = [table, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF)] + head
    let crc = ProgramMapWatch.crc32(s)
    s += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    return s
}

/// `section` in TS packets of `pid`, the first with the payload unit start and a pointer field.
func packets(pid: Int, section: [UInt8]) -> [UInt8] {
    let payload = [0] + section
    return stride(from: 0, to: payload.count, by: 184).enumerated().flatMap { n, start -> [UInt8] in
        let chunk = payload[start..<min(start + 184, payload.count)]
        let head: [UInt8] = [0x47, (n == 0 ? 0x40 : 0x00) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | UInt8(n & 0x0F)]
        return head + chunk + [UInt8](repeating: 0xFF, count: 184 - chunk.count)
    }
}

/// The bytes as what the parsers pass on: LOAS frames, caption data, an AC-3 frame.
func readAsElementaryStreams(_ bytes: [UInt8]) {
    let loas = LOASFrames(bytes)
    precondition(loas.starts.allSatisfy { $0 < bytes.count }, "a LOAS frame starts past the bytes")
    for at in 0..<min(bytes.count, 8) { _ = LOASFrames.frameDuration(configAt: at, in: bytes) }

    var screen = CEA608Screen()
    screen.take(ccData: bytes)
    _ = screen.text
    var pairs = CEA608Screen()
    for i in stride(from: 0, to: bytes.count - 1, by: 2) { pairs.take(bytes[i], bytes[i + 1]) }
    _ = pairs.text

    _ = IEC61937.ac3SampleRate(bytes)
    if let burst = try? IEC61937.burst(ac3: bytes) {
        let samples = stride(from: 0, to: burst.count - 1, by: 2).map { Int16(bitPattern: UInt16(burst[$0]) | UInt16(burst[$0 + 1]) << 8) }
        precondition(IEC61937.ac3Frames(in: samples) == [bytes], "a burst does not give back its frame")
    }
    let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    _ = IEC61937.ac3Frames(in: samples)
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { readMediaBytes(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_media_main")
func fuzzMediaMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, readMediaBytes)
}
