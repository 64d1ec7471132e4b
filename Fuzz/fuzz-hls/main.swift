import CFuzzer
import Foundation
import MediaFormats

/// libFuzzer over the text an HLS source sends beside its video: each input is read as a
/// master playlist, a media playlist and a WebVTT file, and every cue kept is placed on the
/// MPEG-TS clock. A crash (an overflow trap), a hang or a leak is a finding; a refusal is the
/// expected answer to garbage.
let readHLSText: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    let text = data.map { String(decoding: UnsafeBufferPointer(start: $0, count: size), as: UTF8.self) } ?? ""
    let base = URL(string: "http://127.0.0.1:8000/live/master.m3u8")!
    _ = HLSSubtitleRendition.renditions(inMaster: text, base: base)
    if let playlist = try? HLSMediaPlaylist(parsing: text, base: base) {
        // What the follower computes from a list: the newest number and the window before it.
        if let newest = playlist.segments.map(\.sequence).max() { _ = newest - 64 }
    }
    if let file = try? WebVTTFile(parsing: text) {
        for cue in file.cues { _ = (file.mpegTime(cue.start), file.mpegTime(cue.end)) }
    }
    return 0
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { readHLSText(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_hls_main")
func fuzzHLSMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, readHLSText)
}
