import CFuzzer
import Foundation
import Lineup
@testable import Providers

/// libFuzzer over what sources of lineups send: each input is read as an HDHomeRun discovery
/// reply, as an HDHomeRun `lineup.json`, as the JSON of an Xtream panel (the account, and the
/// categories and streams made a lineup), and as catch-up attributes whose archive URL is made.
/// A crash (an overflow trap), a hang or a leak is a finding; a refusal is the expected answer
/// to garbage.
let readSourceBytes: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if case .packet(let packet, _) = HDHomeRunPacket.decode(bytes) {
        _ = HDHomeRunFound(reply: packet, from: "192.0.2.1")
        _ = HDHomeRunPacket.decode(packet.encoded())
    }
    if let list = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [Any] {
        var lineup = HDHomeRunLineup(device: HDHomeRunFound(deviceID: 1, address: "192.0.2.1"), tunerCount: 2,
                                     name: "fuzz", baseURL: "http://192.0.2.1")
        lineup.read(list, from: "lineup.json")
        _ = LineupLoader.check(text: lineup.yaml, file: "fuzz.yaml", format: .yaml)
    }
    if let json = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) {
        readXtreamPanel(json)
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let attributes = Dictionary(zip(CatchupSource.attributeNames, parts), uniquingKeysWith: { first, _ in first })
    if case .success(let catchup)? = CatchupSource.read(attributes) {
        let start = Date(timeIntervalSince1970: 1_795_810_500)
        _ = try? catchup.url(channel: parts.last ?? "", start: start, end: start.addingTimeInterval(2700), now: start.addingTimeInterval(3600))
    }
    return 0
}

/// `json` as what `player_api.php` answers: the account (`user_info`), and the categories and
/// streams (`{"categories": [...], "streams": [...]}`, or the whole value as both), made a
/// lineup whose YAML the lineup reader takes.
func readXtreamPanel(_ json: Any) {
    let now = Date(timeIntervalSince1970: 1_795_810_500)
    let source = XtreamSource(server: "http://192.0.2.1:8080", username: "fuzz", password: "secret")
    let account = (try? XtreamAccount(json, now: now, source: source.description)) ?? XtreamAccount(authenticated: true)
    _ = account.refusal(now: now)
    var lineup = XtreamLineup(source: source, account: account, fetched: now)
    let parts = json as? [String: Any]
    lineup.read(categories: parts?["categories"] ?? json, streams: parts?["streams"] ?? json)
    _ = LineupLoader.check(text: lineup.yaml, file: "xtream.yaml", format: .yaml)
}

/// libFuzzer's callback, under the name its own `main` looks for.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { readSourceBytes(data, size) }

/// SwiftPM links an executable with `main` renamed to `<module>_main`: this is that entry.
@_cdecl("fuzz_sources_main")
func fuzzSourcesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, readSourceBytes)
}
