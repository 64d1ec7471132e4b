import CFuzzer
import Foundation
import Lineup

/// libFuzzer over the lineup readers: each input is read as M3U and as YAML. A crash, a hang
/// or a leak is a finding; errors are the expected answer to garbage.
let readLineup: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    for format in LineupFormat.allCases {
        _ = LineupLoader.check(data: bytes, file: "<fuzz>", format: format)
    }
    return 0
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { readLineup(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_lineup_main")
func fuzzLineupMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, readLineup)
}
