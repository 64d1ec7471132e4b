import Foundation
import Providers
import Headend
import Lineup
@testable import Serve
import Testing

extension ServeTests {
    /// HDHomeRun emulation, checked with Debian's `hdhomerun_config` (it only speaks to port
    /// 65001, so each test takes a loopback address of its own).
    @Suite struct HDHomeRun {
        static func loopbackAddress() -> String { "127.0.\(Int.random(in: 1...254)).\(Int.random(in: 2...254))" }

        @Test func hdhomerunConfigDiscoversTheDeviceAndReadsItsModel() async throws {
            let host = Self.loopbackAddress()
            let device = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "hdhomerun-test"), tunerCount: 2, friendlyName: "Test Box")
            let harness = try await ServeHarness(channels: [makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 3)]) {
                $0.host = host
                $0.hdhomerunProtocol = true
                $0.device = device
            }
            let discover = try await runTool("hdhomerun_config", ["discover", host], timeout: 20)
            #expect(discover.text.contains("hdhomerun device \(device.deviceIDText) found at \(host)"), "discover said: \(discover.text) \(discover.errors)")
            let model = try await runTool("hdhomerun_config", [host, "get", "/sys/model"], timeout: 20)
            #expect(model.status == 0 && model.text.trimmingCharacters(in: .whitespacesAndNewlines) == device.firmwareName,
                    "get /sys/model: \(model.text) \(model.errors)")
            let hwmodel = try await runTool("hdhomerun_config", [host, "get", "/sys/hwmodel"], timeout: 20)
            #expect(hwmodel.text.contains(device.modelNumber))
            let unknown = try await runTool("hdhomerun_config", [host, "get", "/sys/nothing"], timeout: 20)
            #expect(unknown.text.contains("ERROR"), "an unknown variable is an error, as on a real device: \(unknown.text)")
            await harness.stop()
        }

        /// The control port holds at most `hdhomerunMaxConnections`: one more is closed at once,
        /// and a place freed is taken again (a real client's get answered).
        @Test func theControlPortHoldsALimitedNumberOfConnections() async throws {
            let host = Self.loopbackAddress()
            let harness = try await ServeHarness(channels: [makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 3)]) {
                $0.host = host
                $0.hdhomerunProtocol = true
                $0.hdhomerunMaxConnections = 4
            }
            let script = """
                import socket, struct, sys, time, zlib
                host = sys.argv[1]
                def connect():
                    s = socket.create_connection((host, 65001), timeout=3); return s
                def closed_at_once(s):
                    s.settimeout(2)
                    try: return s.recv(1) == b""
                    except (socket.timeout, ConnectionResetError): return False
                held = [connect() for _ in range(4)]
                time.sleep(0.3)
                extra = connect()
                print("fifth closed:", closed_at_once(extra))
                print("first still open:", not closed_at_once(held[0]))
                held.pop().close(); time.sleep(0.3)
                again = connect()
                name = b"/sys/model\\0"
                payload = bytes([3, len(name)]) + name
                packet = struct.pack(">HH", 4, len(payload)) + payload
                packet += struct.pack("<I", zlib.crc32(packet) & 0xffffffff)
                again.sendall(packet); again.settimeout(3)
                print("answered:", b"hdhomeruntc_atsc" in again.recv(3074))
                """
            let run = try await runTool("python3", ["-c", script, host], timeout: 30)
            #expect(run.text.contains("fifth closed: True"), "\(run.text) \(run.errors)")
            #expect(run.text.contains("first still open: True"), "\(run.text)")
            #expect(run.text.contains("answered: True"), "a freed place is taken again: \(run.text) \(run.errors)")
            await harness.stop()
        }

        @Test func theHTTPAPIListsTheLineupWithStreamsThatPlay() async throws {
            let host = Self.loopbackAddress()
            let harness = try await ServeHarness(channels: [
                makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 3, name: "Red"),
                makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 4, name: "Green"),
            ]) {
                $0.host = host
                $0.device = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "http"), tunerCount: 1)
            }
            let base = "http://\(host):\(harness.port)"
            let discover = try await runTool("curl", ["-s", "\(base)/discover.json"])
            let info = try JSONSerialization.jsonObject(with: discover.output) as? [String: Any] ?? [:]
            #expect(info["BaseURL"] as? String == base && info["TunerCount"] as? Int == 1, "discover.json: \(discover.text)")
            #expect(info["LineupURL"] as? String == "\(base)/lineup.json")
            let lineup = try await runTool("curl", ["-s", "\(base)/lineup.json"])
            let entries = try JSONSerialization.jsonObject(with: lineup.output) as? [[String: Any]] ?? []
            #expect(entries.map { $0["GuideNumber"] as? String } == ["3", "4"])
            #expect(entries.map { $0["GuideName"] as? String } == ["Red", "Green"])
            let status = try await runTool("curl", ["-s", "\(base)/lineup_status.json"])
            #expect(status.text.contains("\"ScanInProgress\":0"))
            let scan = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(base)/lineup.post?scan=start"])
            #expect(scan.text == "200")

            // The URL a media server takes from lineup.json plays; the one tuner is then busy.
            let url = try #require(entries.last?["URL"] as? String)
            let holder = Task { try await runTool("curl", ["-s", "-o", "/dev/null", "-m", "5", url], timeout: 10) }
            let tuned = await eventually(within: 8) { await harness.server.clientCount == 1 }
            #expect(tuned)
            let busy = try await runTool("curl", ["-s", "-o", "/dev/null", "-D", "-", "\(base)/tuner0/v3"])
            #expect(busy.text.hasPrefix("HTTP/1.1 503"), "all tuners in use: \(busy.text)")
            #expect(busy.text.lowercased().contains("x-hdhomerun-error: 805 all tuners in use"), "as a real device says it: \(busy.text)")
            let noTuner = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/tuner5/v3"])
            #expect(noTuner.text == "404")
            _ = try await holder.value
            let freed = await eventually(within: 5) { await harness.server.clientCount == 0 }
            #expect(freed, "the tuner is free once its client left")
            let probe = try await runTool("ffprobe", ["-v", "error", "-of", "csv", "-show_entries", "stream=codec_name", url], timeout: 30)
            #expect(probe.text.contains("h264"), "the lineup's URL plays: \(probe.text) \(probe.errors)")
            await harness.stop()
        }
        /// The lineup read again while serving (`flipbox serve` with `lineup-refresh`): the
        /// HDHomeRun lineup and the M3U out list it as it reads now, a new channel's URL plays,
        /// and a gone channel's URL no longer does.
        @Test func aLineupReadAgainIsWhatTheServedListsSay() async throws {
            let host = Self.loopbackAddress()
            let red = makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 3, name: "Red")
            let green = makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 4, name: "Green")
            let harness = try await ServeHarness(channels: [red, green]) { $0.host = host }
            let base = "http://\(host):\(harness.port)"
            func listed() async throws -> [String] {
                let lineup = try await runTool("curl", ["-s", "\(base)/lineup.json"])
                let entries = try JSONSerialization.jsonObject(with: lineup.output) as? [[String: Any]] ?? []
                return entries.map { "\($0["GuideNumber"] as? String ?? "?") \($0["GuideName"] as? String ?? "?")" }
            }
            #expect(try await listed() == ["3 Red", "4 Green"])

            var blue = makeChannel("test://color/0000ff?size=160x90&fps=30&gop=15", number: 2, name: "Blue")
            blue.id = "blue"
            var renamed = red
            renamed.name = "Red HD"
            let (taken, slots) = harness.headend.lineup.taking(Lineup(channels: [renamed, blue]))
            await harness.headend.take(taken, slots: slots)
            #expect(try await listed() == ["2 Blue", "3 Red HD"])
            let m3u = try await runTool("curl", ["-s", "\(base)/lineup.m3u"])
            #expect(m3u.text.contains(",Blue") && m3u.text.contains(",Red HD") && !m3u.text.contains(",Green"), "\(m3u.text)")

            let probe = try await runTool("ffprobe", ["-v", "error", "-of", "csv", "-show_entries", "stream=codec_name", "\(base)/auto/v2"], timeout: 30)
            #expect(probe.text.contains("h264"), "the new channel plays: \(probe.text) \(probe.errors)")
            let gone = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/auto/v4"])
            #expect(gone.text == "404", "the gone channel's number no longer plays: \(gone.text)")
            await harness.stop()
        }
    }

    /// The protocol's packets and the device id's check digit, without a network.
    @Suite struct HDHomeRunPackets {
        @Test func crcIsTheEthernetOne() {
            #expect(HDHomeRunPacket.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        }

        @Test func packetsRoundTripAndBadOnesAreRefused() {
            var packet = HDHomeRunPacket(.getSetRequest)
            packet.append(.getSetName, string: "/sys/model")
            packet.append(.getSetValue, [UInt8](repeating: 0x41, count: 300)) // a two-byte length
            let bytes = packet.encoded()
            #expect(HDHomeRunPacket.decode(bytes) == .packet(packet, consumed: bytes.count))
            #expect(HDHomeRunPacket.decode(Array(bytes.prefix(10))) == .incomplete)
            var corrupt = bytes
            corrupt[6] ^= 0xFF
            if case .invalid = HDHomeRunPacket.decode(corrupt) {} else { Issue.record("a flipped byte fails the CRC") }
            #expect(HDHomeRunPacket.decode(bytes + [1, 2, 3]) == .packet(packet, consumed: bytes.count), "a packet followed by the next one's start")
        }

        @Test func deviceIDsCarryHDHomeRunsCheckDigit() throws {
            let id = HDHomeRunDevice.derivedID(seed: "x")
            #expect(HDHomeRunDevice.isValid(id))
            #expect(!HDHomeRunDevice.isValid(id ^ 0x1), "a changed last digit is caught")
            #expect(HDHomeRunDevice.isValid(0xFFFF_FFFF), "the wildcard passes, as in libhdhomerun")
            let bad = String(format: "%08X", id ^ 0x1)
            let error = #expect(throws: ServeConfigurationError.self) { try HDHomeRunDevice(settings: ["hdhomerun-device-id": bad], seed: "s") }
            #expect(error?.code == .badValue)
            #expect(error?.message.hasPrefix("settings.hdhomerun-device-id '\(bad)' has a wrong check digit") == true, "\(String(describing: error))")
            let good = try HDHomeRunDevice(settings: ["hdhomerun-device-id": String(format: "%08X", id), "hdhomerun-tuners": "3"], seed: "s")
            #expect(good.deviceID == id && good.tunerCount == 3)
        }
    }
}

extension ServeTests {
    /// `--multicast 239.1.1.0/24:5000`: which group each channel goes to.
    @Suite struct MulticastGroups {
        @Test func channelsTakeTheBlocksAddressesInLineupOrder() throws {
            let plan = try MulticastPlan("239.1.1.0/30:5000", ttl: 4)
            #expect(plan.group(forChannelAt: 0) == "239.1.1.1")
            #expect(plan.group(forChannelAt: 2) == "239.1.1.3")
            #expect(plan.group(forChannelAt: 3) == nil, "a /30 has room for three channels")
            #expect(try MulticastPlan("239.9.9.9:1234").group(forChannelAt: 0) == "239.9.9.9", "one address: one channel")
            #expect(throws: ServeConfigurationError(.badValue, "--multicast must be an IPv4 multicast block and a port such as 239.1.1.0/24:5000, not '192.168.1.0/24:5000'")) {
                try MulticastPlan("192.168.1.0/24:5000")
            }
            #expect(throws: ServeConfigurationError.self) { try MulticastPlan("239.1.1.0/24") }
            #expect(throws: ServeConfigurationError(.badValue, "--multicast-ttl must be from 1 to 255, not 0")) { try MulticastPlan("239.1.1.0/24:5000", ttl: 0) }
        }
    }
}
