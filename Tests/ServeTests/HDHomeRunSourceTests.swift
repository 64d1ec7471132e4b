import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Providers
@testable import Serve
import Synchronization
import Testing

extension ServeTests {
    /// Another Flipbox's HDHomeRun emulation (2 tuners, 5 channels) as the source of a box's
    /// lineup, as a box on a real HDHomeRun sees it: the third stream is answered 503 with
    /// `X-HDHomeRun-Error: 805 All Tuners In Use`.
    @Suite(.serialized) struct HDHomeRunAsASource {
        /// Counts decoded frames per feed (decoder streaming threads).
        final class Frames: DecodedFrameSink, Sendable {
            private let counts = Mutex<[FeedID: Int]>([:])
            func presentVideo(_ frame: Buffer, feed: FeedID) { counts.withLock { $0[feed, default: 0] += 1 } }
            func presentAudio(_ samples: Buffer, feed: FeedID) {}
            func frames(_ feed: FeedID) -> Int { counts.withLock { $0[feed] ?? 0 } }
        }

        /// The most tuners of the device in use at once, watched every 20 ms until `stop()`.
        final class TunerWatch: Sendable {
            final class Most: Sendable { let value = Mutex(0) }
            let most: Most
            let task: Task<Void, Never>
            init(_ harness: ServeHarness) {
                let most = Most()
                self.most = most
                task = Task {
                    while !Task.isCancelled {
                        let tuned = await harness.server.clientCount
                        most.value.withLock { $0 = max($0, tuned) }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
            func stop() -> Int {
                task.cancel()
                return most.value.withLock { $0 }
            }
        }

        /// Flips `box` to each lineup position in `order` as a viewer does (the new channel's
        /// picture first, then the old one let go and the plan followed), each shown.
        static func flip(_ box: Headend, through order: [Int]) async throws {
            let frames = Frames()
            var shown: FeedID?
            var current: Int?
            for i in order {
                let (feed, _) = try await box.activate(box.lineup.channels[i], sink: frames)
                let showed = await eventually(within: 8) { frames.frames(feed) >= 5 }
                #expect(showed, "channel \(box.lineup.channels[i].number) shows: \(box.sources[i].state)")
                if let shown { await box.deactivate(feed: shown) }
                await box.applyPolicy(current: i, last: current)
                shown = feed
                current = i
            }
            if let shown { await box.deactivate(feed: shown) }
        }

        @Test func aBoxOnATwoTunerHDHomeRunLearnsTwoAndShowsEveryChannel() async throws {
            let host = HDHomeRun.loopbackAddress()
            let colours = ["ff0000", "00ff00", "0000ff", "ffff00", "00ffff"]
            let harness = try await ServeHarness(channels: colours.enumerated().map {
                makeChannel("test://color/\($1)?size=160x90&fps=30&gop=15", number: $0 + 3, name: "Colour \($0 + 3)")
            }) {
                $0.host = host
                $0.device = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "tuners"), tunerCount: 2)
            }
            let base = "http://\(host):\(harness.port)"
            // What the tuner answers with both tuners taken, as a media server sees it.
            let lineup = Lineup(channels: (0..<5).map { makeChannel("\(base)/auto/v\($0 + 3)", number: $0 + 1, name: "Tuner \($0 + 1)") })
            let box = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 160, height: 90), logger: testLogger)
            let tuners = TunerWatch(harness)
            await box.applyPolicy(current: nil, last: nil)
            let learned = await eventually(within: 20) { await box.poolStatus().first?.limit == 2 }
            let status = await box.poolStatus()
            #expect(learned, "the tuner count is learned from the device's 805: \(status)")
            #expect(status.first?.limitOrigin == "learned" && (status.first?.refusals ?? 0) <= 2, "\(status)")
            let refused = box.sources.contains {
                $0.counts.refusals > 0
            }
            #expect(refused, "a refusal taught it")

            try await Self.flip(box, through: [2, 3, 4, 0, 1, 4])
            #expect(tuners.stop() <= 2, "never more than the device's 2 tuners in use")
            await box.shutdown()
            await harness.stop()
        }

        /// `flipbox play hdhomerun://ADDRESS`: discovery finds the device (as `hdhomerun_config`
        /// does), its lineup.json is the lineup and its TunerCount the pool's limit, known before
        /// any stream is asked for; a copy is kept for a start without the device.
        @Test func aTunerFoundByDiscoveryIsTheLineupWithItsTunerCountKnownAtOnce() async throws {
            let host = HDHomeRun.loopbackAddress()
            let device = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "discovered"), tunerCount: 2, friendlyName: "Attic")
            let harness = try await ServeHarness(channels: ["ff0000", "00ff00", "0000ff", "ffff00"].enumerated().map {
                makeChannel("test://color/\($1)?size=160x90&fps=30&gop=15", number: $0 + 3, name: "Colour \($0 + 3)")
            }) {
                $0.host = host
                $0.hdhomerunProtocol = true
                $0.device = device
            }
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-hdhr-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: state) }

            let report = try #require(try await SourcedLineup.load("hdhomerun://\(host)", stateDirectory: state, logger: testLogger))
            let lineup = try report.get()
            let base = "http://\(host):\(harness.port)"
            #expect(lineup.channels.map(\.number.description) == ["3", "4", "5", "6"])
            #expect(lineup.channels.map(\.name) == ["Colour 3", "Colour 4", "Colour 5", "Colour 6"])
            #expect(lineup.channels.map { $0.sources } == (3...6).map { ["\(base)/auto/v\($0)"] })
            #expect(lineup.pools.count == 1 && lineup.pools.first?.streams == 2 && lineup.pools.first?.toldBySource == true,
                    "the device's TunerCount is the pool's limit: \(lineup.pools)")
            #expect(lineup.pools.first?.match == "\(base)/auto/")
            // The second witness: Debian's hdhomerun_config finds the same device there.
            let witness = try await runTool("hdhomerun_config", ["discover", host], timeout: 20)
            #expect(witness.text.contains("hdhomerun device \(device.deviceIDText) found at \(host)"), "\(witness.text) \(witness.errors)")
            #expect(lineup.pools.first?.name == "HDHomeRun \(device.deviceIDText)")

            // The limit is known before any stream is asked for: no refusal ever teaches it.
            let box = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 160, height: 90), logger: testLogger,
                              pools: PoolSettings(map: StreamPoolMap(lineup: lineup)))
            let known = await box.poolStatus().first
            #expect(known?.limit == 2 && known?.limitOrigin == "told by the source", "\(String(describing: known))")
            let tuners = TunerWatch(harness)
            await box.applyPolicy(current: nil, last: nil)
            try await Self.flip(box, through: [3, 0, 2])
            let status = await box.poolStatus().first
            #expect(tuners.stop() <= 2, "never more than the device's 2 tuners in use")
            // A tuner let go is free at the device a moment later, so a refusal can still come;
            // it teaches nothing: the device's word stands.
            #expect(status?.limit == 2 && status?.limitOrigin == "told by the source", "\(String(describing: status))")
            await box.shutdown()
            await harness.stop()

            // The device is gone: the kept copy plays.
            let kept = try #require(try await SourcedLineup.load("hdhomerun://\(host)", stateDirectory: state, logger: testLogger))
            let again = try kept.get()
            #expect(again.channels.map(\.number) == lineup.channels.map(\.number) && again.channels.map(\.sources) == lineup.channels.map(\.sources))
            #expect(again.pools.first?.streams == 2 && again.pools.first?.toldBySource == true)
            #expect(kept.warnings.first.map { "\($0)".contains("playing its lineup as read at") } == true, "why the kept copy plays: \(kept.warnings)")
            // Nothing answers and nothing is kept: a message naming the source.
            await #expect {
                _ = try await SourcedLineup.load("hdhomerun://\(host)", stateDirectory: nil, logger: testLogger)
            } throws: { error in
                "\(error)".contains("http://\(host)/discover.json") && "\(error)".contains("cannot be reached")
            }
        }
    }
}
