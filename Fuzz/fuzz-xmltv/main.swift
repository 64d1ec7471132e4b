import CFuzzer
@_spi(Fuzzing) import Guide

/// libFuzzer over the XMLTV reader (libxml2's push parser and the programme rules above it).
let readXMLTV: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    _ = XMLTVFuzzing.read(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { readXMLTV(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_xmltv_main")
func fuzzXMLTVMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, readXMLTV)
}
