import Foundation
import Lineup
@testable import Providers
import Testing

/// Reading an HDHomeRun's answers without a network: the source's address, lineup.json's
/// entries (bad ones left out and said), the pool and the YAML kept.
@Suite struct HDHomeRunLineupReading {
    @Test func theSourceIsAutoADeviceIDOrAnAddress() throws {
        #expect(try HDHomeRunSource("hdhomerun://auto")?.device == .any)
        #expect(try HDHomeRunSource("hdhomerun://")?.device == .any)
        #expect(try HDHomeRunSource("hdhomerun://1038A5F2")?.device == .id(0x1038_A5F2))
        #expect(try HDHomeRunSource("hdhomerun://192.168.1.20")?.device == .address("192.168.1.20", port: 65001))
        #expect(try HDHomeRunSource("hdhomerun://192.168.1.20:6000")?.device == .address("192.168.1.20", port: 6000))
        #expect(try HDHomeRunSource("hdhomerun://tuner.lan/")?.device == .address("tuner.lan", port: 65001))
        #expect(try HDHomeRunSource("lineup.m3u") == nil)
        #expect(throws: SourceFailure.self) { try HDHomeRunSource("hdhomerun://192.168.1.20:99999") }
        #expect(throws: SourceFailure.self) { try HDHomeRunSource("hdhomerun://a b/c") }
    }

    @Test func badEntriesAreLeftOutAndSaid() throws {
        let json = """
        [{"GuideNumber":"5.1","GuideName":"KQED-HD","URL":"http://192.168.1.20:5004/auto/v5.1","HD":1,"Favorite":1},
         {"GuideNumber":"5.2","GuideName":"Locked","URL":"http://192.168.1.20:5004/auto/v5.2","DRM":1},
         {"GuideNumber":"x","GuideName":"Nowhere","URL":"http://192.168.1.20:5004/auto/vx"},
         {"GuideNumber":"5.1","GuideName":"Again","URL":"http://192.168.1.20:5004/auto/v5.1"},
         {"GuideNumber":7,"GuideName":"Seven\\nLines","URL":"http://192.168.1.20:5004/auto/v7"},
         {"GuideNumber":"8","GuideName":"No URL","URL":"file:///etc/passwd"},
         "junk"]
        """
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])
        var lineup = HDHomeRunLineup(device: HDHomeRunFound(deviceID: 0x1038_A5F2, address: "192.168.1.20"), others: [], tunerCount: 4,
                                     name: "Living \"room\"", model: "HDHR5-4US", baseURL: "http://192.168.1.20", fetched: Date())
        lineup.read(list, from: "lineup.json")
        #expect(lineup.entries.map(\.number.description) == ["5.1", "7"])
        #expect(lineup.entries.map(\.name) == ["KQED-HD", "SevenLines"])
        #expect(lineup.entries.first?.favourite == true)
        #expect(lineup.skipped.count == 5, "\(lineup.skipped)")
        #expect(lineup.skipped.contains { $0.contains("5.2") && $0.contains("DRM") })
        #expect(lineup.skipped.contains { $0.contains("taken by an earlier entry") })
        #expect(lineup.pool.match == "http://192.168.1.20:5004/auto/" && lineup.pool.streams == 4 && lineup.pool.toldBySource)

        // The YAML it keeps is a lineup file that reads back as the same channels and pool.
        let read = try LineupLoader.parse(text: lineup.yaml, format: .yaml)
        #expect(read.channels.map(\.number.description) == ["5.1", "7"])
        #expect(read.channels.map(\.name) == ["KQED-HD", "SevenLines"])
        #expect(read.channels.first?.isFavourite == true)
        #expect(read.pools.map(\.match) == ["http://192.168.1.20:5004/auto/"] && read.pools.first?.streams == 4)
    }

    @Test func aDiscoveryReplyIsReadAndAForeignOneIsNot() {
        var reply = HDHomeRunPacket(.discoverReply)
        reply.append(.deviceType, uint32: HDHomeRunPacket.deviceTypeTuner)
        reply.append(.deviceID, uint32: 0x1038_A5F2)
        reply.append(.tunerCount, [3])
        reply.append(.baseURL, Array("http://192.168.1.20:80".utf8))
        let found = HDHomeRunFound(reply: reply, from: "192.168.1.20")
        #expect(found?.deviceIDText == "1038A5F2" && found?.tunerCount == 3 && found?.baseURL == "http://192.168.1.20:80")
        var other = HDHomeRunPacket(.discoverReply)
        other.append(.deviceType, uint32: 5)
        other.append(.deviceID, uint32: 1)
        #expect(HDHomeRunFound(reply: other, from: "192.168.1.21") == nil, "a storage device is no tuner")
        var sly = reply
        sly.fields[3] = (HDHomeRunPacket.Tag.baseURL.rawValue, Array("file:///etc".utf8))
        #expect(HDHomeRunFound(reply: sly, from: "192.168.1.20")?.baseURL == nil, "only http addresses are followed")
    }
}
