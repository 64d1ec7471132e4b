import FlipboxCore
import Testing

/// Which pool a source URL is in, and the limits given by the command line and the lineup.
@Suite struct StreamPoolMapTests {
    @Test func serversArePooledByHostAndPortAndListenedOrLocalSourcesAreNot() {
        let map = StreamPoolMap()
        #expect(map.pool(for: "http://192.168.1.20:5004/auto/v5.1") == StreamPoolID("192.168.1.20:5004"))
        #expect(map.pool(for: "http://192.168.1.20:5004/auto/v7") == StreamPoolID("192.168.1.20:5004"))
        #expect(map.pool(for: "http://Provider.example/live/u/p/1.ts") == StreamPoolID("provider.example:80"))
        #expect(map.pool(for: "https://provider.example/x.m3u8") == StreamPoolID("provider.example:443"))
        #expect(map.pool(for: "rtsp://cam.local/stream") == StreamPoolID("cam.local:554"))
        #expect(map.pool(for: "http://[::1]:8080/a.ts") == StreamPoolID("[::1]:8080"))
        #expect(map.pool(for: "srt://relay.example:9000") == StreamPoolID("relay.example:9000"))
        for unlimited in ["udp://@239.0.0.1:1234", "rtp://@239.0.0.2:5004", "file:///srv/a.ts", "test://smpte",
                          "srt://:9000?mode=listener", "not a url"] {
            #expect(map.pool(for: unlimited) == nil, "\(unlimited)")
        }
    }

    @Test func aDeclaredPoolTakesItsURLsByTheLongestMatch() {
        let map = StreamPoolMap(declared: [
            .init(name: "HDHomeRun", match: "http://192.168.1.20:5004/", streams: 4),
            .init(name: "Premium", match: "http://provider.example/premium/", streams: 1),
            .init(name: "My IPTV", match: "http://provider.example/", streams: 2),
        ])
        #expect(map.pool(for: "http://192.168.1.20:5004/auto/v5.1") == StreamPoolID("HDHomeRun"))
        #expect(map.pool(for: "http://provider.example/live/1.ts") == StreamPoolID("My IPTV"))
        #expect(map.pool(for: "http://provider.example/premium/9.ts") == StreamPoolID("Premium"))
        #expect(map.pool(for: "http://192.168.1.21:5004/auto/v2") == StreamPoolID("192.168.1.21:5004"))
        #expect(map.givenLimit(of: StreamPoolID("HDHomeRun")) == PoolLimit(streams: 4, origin: .lineup))
        #expect(map.givenLimit(of: StreamPoolID("192.168.1.21:5004")) == nil)
    }

    /// A Tvheadend server's stream URLs carry its user's credentials; its pool names the server.
    @Test func aPoolTakesURLsWhateverCredentialsTheyCarry() {
        let map = StreamPoolMap(declared: [.init(name: "Tvheadend tvh.lan:9981", match: "http://tvh.lan:9981/stream/", streams: nil)])
        #expect(map.pool(for: "http://viewer:pa55%40x@tvh.lan:9981/stream/channelid/12?profile=pass") == StreamPoolID("Tvheadend tvh.lan:9981"))
        #expect(map.pool(for: "http://tvh.lan:9981/stream/channel/abc") == StreamPoolID("Tvheadend tvh.lan:9981"))
        #expect(map.pool(for: "http://viewer:x@tvh.lan:9981/play/1") == StreamPoolID("tvh.lan:9981"))
        #expect(StreamPoolMap.withoutUserInfo("http://u:p@h/a?b=c@d") == "http://h/a?b=c@d")
        #expect(StreamPoolMap.withoutUserInfo("udp://@239.0.0.1:1234") == "udp://@239.0.0.1:1234")
        #expect(StreamPoolMap.withoutUserInfo("http://h/x@y") == "http://h/x@y")
    }

    @Test func theCommandLineBeatsTheLineupAndAPortBeatsTheWholeHost() {
        var map = StreamPoolMap(lineupLimit: 2)
        #expect(map.givenLimit(of: StreamPoolID("provider.example:80")) == PoolLimit(streams: 2, origin: .lineup))
        map.hostLimits = [StreamPoolMap.HostLimit("provider.example=3")!, StreamPoolMap.HostLimit("provider.example:8080=1")!]
        #expect(map.givenLimit(of: StreamPoolID("provider.example:80")) == PoolLimit(streams: 3, origin: .commandLine))
        #expect(map.givenLimit(of: StreamPoolID("provider.example:8080")) == PoolLimit(streams: 1, origin: .commandLine))
        #expect(map.givenLimit(of: StreamPoolID("other.example:80")) == PoolLimit(streams: 2, origin: .lineup))
        map.hostLimits = [StreamPoolMap.HostLimit("[::1]:80=5")!]
        #expect(map.givenLimit(of: StreamPoolID("[::1]:80")) == PoolLimit(streams: 5, origin: .commandLine))
    }

    @Test func aHostLimitIsReadStrictly() {
        let good = StreamPoolMap.HostLimit("192.168.1.20:5004=4")
        #expect(good?.host == "192.168.1.20" && good?.port == 5004 && good?.streams == 4)
        for bad in ["192.168.1.20", "=4", "host=0", "host=-1", "host=1025", "host:0=2", "host:70000=2", "host:x=2",
                    "http://host=2", "host=99999999999999999999", "[::1=2", "[::1]x=2"] {
            #expect(StreamPoolMap.HostLimit(bad) == nil, "\(bad)")
        }
    }
}
