import Foundation
import Guide
import Lineup
import Parental
@testable import Serve
import Testing

extension ServeTests {
    /// Parental locks on every path a picture leaves the box through the head-end: `/stream`,
    /// `/auto`, HLS and multicast, over real sockets with curl; the serve token is the owner's key.
    @Suite struct ServeParental {
        static let token = "serve-owner-7"

        /// One channel open (1), one locked as a whole (2), one rated over the rules (3).
        static func channels() -> [Channel] {
            var rated = makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 3, name: "Late Film")
            rated.contentRating = "TV-MA"
            return [makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 1, name: "Kids"),
                    makeChannel("test://color/0000ff?size=160x90&fps=30&gop=15", number: 2, name: "Locked One"), rated]
        }

        static func locks() throws -> ServeLocks {
            ServeLocks(rules: try ParentalRules(settings: ["parental": "VCHIP=TV-PG"]), lockedChannels: [ChannelNumber(2)])
        }

        /// curl's status and body for `url` (a live stream is read for `seconds` at most).
        static func fetch(_ url: String, headers: [String] = [], seconds: Int = 3) async throws -> (status: String, body: String, bytes: Int) {
            let file = NSTemporaryDirectory() + "flipbox-parental-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let run = try await runTool("curl", ["-s", "--max-time", "\(seconds)", "-o", file, "-w", "%{http_code}"]
                                                + headers.flatMap { ["-H", $0] } + [url], timeout: Double(seconds + 10))
            let data = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            return (run.text, String(decoding: data.prefix(2000), as: UTF8.self), data.count)
        }

        @Test func lockedChannelsAre403OnEveryServedPathUnlessTheTokenIsSent() async throws {
            let harness = try await ServeHarness(channels: Self.channels(), policy: .none) {
                $0.token = Self.token
                $0.locks = try! Self.locks()
            }
            for path in ["/stream/2.ts", "/stream/id/ch2.ts", "/auto/v2", "/tuner0/v2", "/hls/2/index.m3u8", "/hls/2/1.ts"] {
                let answer = try await Self.fetch(harness.url(path))
                #expect(answer.status == "403", "\(path): \(answer.status) \(answer.body)")
                let json = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: String] ?? [:]
                #expect(json["channel"] == "2" && json["reason"] == "This channel is locked", "\(path): \(answer.body)")
                #expect(json["error"]?.contains("channel 2 Locked One is locked") == true, "\(path): \(answer.body)")
            }
            let rated = try await Self.fetch(harness.url("/stream/3.ts"))
            #expect(rated.status == "403" && rated.body.contains("Rated TV-MA, over VCHIP TV-PG"), "\(rated)")
            let served = await harness.server.servedChannels
            #expect(served.isEmpty, "a refused client starts no ingest: \(served)")

            // The open channel plays; the owner's token plays the locked ones (header or ?token=).
            let open = try await Self.fetch(harness.url("/stream/1.ts"), seconds: 4)
            #expect(open.status == "200" && open.bytes > 10_000, "\(open.status) \(open.bytes) bytes")
            let owner = try await Self.fetch(harness.url("/stream/2.ts?token=\(Self.token)"), seconds: 4)
            #expect(owner.status == "200" && owner.bytes > 10_000, "\(owner.status) \(owner.bytes) bytes")
            let playlist = try await Self.fetch(harness.url("/hls/3/index.m3u8"), headers: ["Authorization: Bearer \(Self.token)"], seconds: 25)
            #expect(playlist.status == "200" && playlist.body.contains("#EXTINF:"), "\(playlist)")
            let segment = playlist.body.split(separator: "\n").first { $0.hasSuffix(".ts") }.map(String.init) ?? "0.ts"
            #expect(try await Self.fetch(harness.url("/hls/3/\(segment)")).status == "403", "a segment without the token")
            #expect(try await Self.fetch(harness.url("/hls/3/\(segment)"), headers: ["Authorization: Bearer \(Self.token)"]).status == "200")
            await harness.stop()
        }

        /// Channel 1 Kids with a guide: a cartoon (TV-G) until `boundary`, then a film (TV-MA).
        static func cartoonThenFilm(at boundary: Date, in directory: URL) async throws -> (Channel, Guide, String) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            func time(_ d: Date) -> String {
                let f = DateFormatter()
                f.locale = Locale(identifier: "en_US_POSIX")
                f.timeZone = TimeZone(secondsFromGMT: 0)
                f.dateFormat = "yyyyMMddHHmmss"
                return f.string(from: d) + " +0000"
            }
            let xmltv = """
                <?xml version="1.0" encoding="UTF-8"?>
                <tv>
                  <channel id="kids.example"><display-name>Kids</display-name></channel>
                  <programme channel="kids.example" start="\(time(boundary.addingTimeInterval(-600)))" stop="\(time(boundary))">
                    <title>Cartoon</title><rating system="VCHIP"><value>TV-G</value></rating>
                  </programme>
                  <programme channel="kids.example" start="\(time(boundary))" stop="\(time(boundary.addingTimeInterval(3600)))">
                    <title>Night Film</title><rating system="VCHIP"><value>TV-MA</value></rating>
                  </programme>
                </tv>
                """
            let source = directory.appendingPathComponent("guide.xml").path
            try xmltv.write(toFile: source, atomically: true, encoding: .utf8)
            var kids = makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 1, name: "Kids")
            kids.guideID = "kids.example"
            let guide = try Guide(stateDirectory: directory.appendingPathComponent("state").path,
                                  lineup: Lineup(channels: [kids], guideURLs: [source]), logger: testLogger)
            try await guide.refresh()
            return (kids, guide, source)
        }

        @Test func aStreamEndsWhenItsProgrammeTurnsLocked() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-parental-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let boundary = Date().addingTimeInterval(6)
            let (kids, guide, source) = try await Self.cartoonThenFilm(at: boundary, in: directory)
            let harness = try await ServeHarness(channels: [kids], policy: .none, guide: guide, guideURLs: [source]) {
                $0.token = Self.token
                $0.locks = ServeLocks(rules: try! ParentalRules(settings: ["parental": "VCHIP=TV-PG"]))
            }
            // Before the boundary the stream plays; it ends within a second or two of it.
            let started = Date()
            async let plain = runTool("curl", ["-s", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{time_total}",
                                               harness.url("/stream/1.ts")], timeout: 40)
            async let owner = runTool("curl", ["-s", "--max-time", "12", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                               harness.url("/stream/1.ts?token=\(Self.token)")], timeout: 40)
            let (ended, kept) = try await (plain, owner)
            let fields = ended.text.split(separator: " ")
            let took = Double(fields.last ?? "") ?? 99
            let endedAt = started.addingTimeInterval(took)
            #expect(fields.first == "200" && fields.count == 3 && (Int(fields[1]) ?? 0) > 10_000, "the cartoon streamed: \(ended.text)")
            #expect(took < 20, "the stream ended at the boundary, not at curl's 30 s: \(ended.text)")
            #expect(endedAt >= boundary.addingTimeInterval(-1.5) && endedAt <= boundary.addingTimeInterval(3),
                    "ended \(endedAt.timeIntervalSince(boundary)) s from the boundary: \(ended.text)")
            #expect(recentLog.text(last: 300).contains("was ended: the channel turned locked (Rated TV-MA, over VCHIP TV-PG)"), "\(recentLog.text())")
            // The owner's stream goes on; a new client is refused now.
            #expect(kept.text.hasPrefix("200 ") && (Int(kept.text.split(separator: " ")[1]) ?? 0) > 10_000, "\(kept.text)")
            let after = try await Self.fetch(harness.url("/stream/1.ts"))
            #expect(after.status == "403" && after.body.contains("TV-MA"), "\(after)")
            await harness.stop()
        }
    }

    /// Multicast of a locked channel never starts, and says so; the open one is sent.
    @Suite struct MulticastParental {
        @Test func aLockedChannelIsNotMulticast() async throws {
            var open = makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 1, name: "Kids")
            open.attributes["multicast"] = "239.77.5.1:47051"
            var locked = makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 2, name: "Locked One")
            locked.attributes["multicast"] = "239.77.5.2:47052"
            let openReceiver = try MulticastReceiver(group: "239.77.5.1", port: 47051)
            defer { openReceiver.close() }
            let lockedReceiver = try MulticastReceiver(group: "239.77.5.2", port: 47052)
            defer { lockedReceiver.close() }
            let sapReceiver = try MulticastReceiver(group: SAPAnnouncement.group, port: SAPAnnouncement.port)
            defer { sapReceiver.close() }
            let harness = try await ServeHarness(channels: [open, locked], policy: .none) {
                $0.multicast = try? MulticastPlan(ttl: 1, interface: "127.0.0.1")
                $0.multicast?.sap = true
                $0.locks = ServeLocks(lockedChannels: [ChannelNumber(2)])
            }
            var received = 0
            let deadline = ContinuousClock.now + .seconds(20)
            while received < 100 * 1316, ContinuousClock.now < deadline {
                if let datagram = openReceiver.receive() { received += datagram.data.count }
            }
            #expect(received >= 100 * 1316, "channel 1 is sent: \(received) bytes")
            var leaked = 0
            for _ in 0..<2 { if let datagram = lockedReceiver.receive() { leaked += datagram.data.count } }
            #expect(leaked == 0, "nothing of the locked channel 2 on its group: \(leaked) bytes")
            #expect(await harness.server.servedChannels == [ChannelNumber(1)], "the locked channel's ingest never starts")
            // SAP announces what is sent: the open channel, never the locked one (6 s: one round and more).
            var announced = Set<String>()
            let sapDeadline = ContinuousClock.now + .seconds(6)
            while ContinuousClock.now < sapDeadline {
                guard let datagram = sapReceiver.receive(), let sap = MulticastSending.parseSAP(datagram.data),
                      sap.header[0] & 0x04 == 0 else { continue }
                for group in ["239.77.5.1", "239.77.5.2"] where sap.sdp.contains("c=IN IP4 \(group)/") { announced.insert(group) }
            }
            #expect(announced == ["239.77.5.1"], "SAP names only the channel that is sent: \(announced)")
            #expect(recentLog.text(last: 300).contains("channel 2 Locked One is not multicast while it is locked (This channel is locked)"),
                    "\(recentLog.text())")
            await harness.stop()
        }

        @Test func multicastStopsWhenTheProgrammeTurnsLocked() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-parental-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            // Room before the boundary for a loaded machine to start the harness and send a while.
            let boundary = Date().addingTimeInterval(10)
            var (kids, guide, source) = try await ServeParental.cartoonThenFilm(at: boundary, in: directory)
            kids.attributes["multicast"] = "239.77.5.3:47053"
            let receiver = try MulticastReceiver(group: "239.77.5.3", port: 47053)
            defer { receiver.close() }
            let harness = try await ServeHarness(channels: [kids], policy: .none, guide: guide, guideURLs: [source]) {
                $0.multicast = try? MulticastPlan(ttl: 1, interface: "127.0.0.1")
                $0.locks = ServeLocks(rules: try! ParentalRules(settings: ["parental": "VCHIP=TV-PG"]))
            }
            // The cartoon is sent; after the boundary (and the second the locks are looked at) nothing more.
            var before = 0, after = 0, lastDatagram = Date.distantPast
            while Date() < boundary.addingTimeInterval(6) {
                guard let datagram = receiver.receive() else { continue }
                if Date() < boundary { before += datagram.data.count } else { after += datagram.data.count }
                lastDatagram = Date()
            }
            // Sent for a while (a loaded CI run once started it late: 49.9 datagrams in 8 s).
            #expect(before >= 20 * 1316, "the cartoon was sent: \(before) bytes")
            #expect(lastDatagram < boundary.addingTimeInterval(2.5), "sending stopped at the boundary: last datagram \(lastDatagram.timeIntervalSince(boundary)) s after it, \(after) bytes after")
            #expect(recentLog.text(last: 300).contains("multicast of channel 1 Kids stopped: the channel is locked (Rated TV-MA, over VCHIP TV-PG)"),
                    "\(recentLog.text())")
            await harness.stop()
        }
    }
}
