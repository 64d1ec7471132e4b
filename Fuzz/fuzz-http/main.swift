import CFuzzer
import ConnectionGuard

/// libFuzzer over what a client or a proxy writes that decides who it is and what it gets: each
/// input is split in lines, read as the peer's address, `X-Forwarded-For` and `Forwarded` header
/// values and the declared proxies (`--serve-trusted-proxy`, `--serve-allow` as CIDR text), and
/// judged; then as a `Range` header (line 5) against a file of the size on line 6. A crash
/// (an overflow trap, an index out of range), a hang or a leak is a finding; a refusal is the
/// expected answer to garbage, and a judged address is one of those written.
let readForwardedHeaders: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func line(_ i: Int) -> String { i < lines.count ? lines[i] : "" }
    let ranges = line(3).split(separator: " ").compactMap { NetworkRange(String($0)) }
    for range in ranges { _ = range.description }
    let xForwardedFor = line(1).isEmpty ? [] : line(1).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    let forwarded = line(2).isEmpty ? [] : line(2).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    let peer = line(0).isEmpty ? nil : line(0)
    switch ForwardedClient.judge(peer: peer, xForwardedFor: xForwardedFor, forwarded: forwarded, trusted: ranges) {
    case .address(let address):
        // The client judged is the peer or an address one of the headers carries.
        precondition(address == peer || (xForwardedFor + forwarded).contains { $0.contains(address) },
                     "judged an address nobody wrote: \(address)")
        for range in ranges { _ = range.contains(address) }
    case .unknown(let message):
        precondition(message.hasPrefix("refused:"), "a refusal that does not say so")
    }
    _ = ForwardedClient.forwardedForChain(lines)
    _ = ForwardedClient.forwardedChain(lines)
    // A part asked of a recording's file always lies inside it.
    let size = Int64(line(5).prefix(19)).map { max(0, $0) } ?? Int64(line(5).utf8.count)
    for header in [line(4), "bytes=" + line(4), "bytes=-" + line(4), "bytes=" + line(4) + "-"] {
        if case .part(let span) = ByteRange(header: header, size: size) {
            precondition(span.lowerBound >= 0 && span.upperBound < size, "a range outside the file: \(span) of \(size)")
        }
    }
    for text in lines.prefix(16) {
        _ = NetworkRange(text)
        _ = NetworkRange.isLoopback(text)
    }
    return 0
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { readForwardedHeaders(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_http_main")
func fuzzHTTPMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, readForwardedHeaders)
}
