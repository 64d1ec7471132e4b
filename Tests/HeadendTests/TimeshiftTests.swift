import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Testing

extension HeadendTests {
    /// Timeshift on the channel shown: a buffer filled through an unpinned ingest tap (memory,
    /// then segment files), pause, seeks back into it and back to live, from a real sender.
    @Suite struct Timeshift {
        init() throws { try GStreamer.initialize() }

        static func temporaryDirectory() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-timeshift-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        @Test func segmentFilesGiveBackTheSameEntries() async throws {
            let channel = makeChannel(["test://ball?size=160x90&fps=30&gop=10&tone=440"])
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 160, height: 90),
                                  logger: testLogger)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            _ = await eventually(within: 8) { source.cache.hasKeyframe && source.cache.audioCaps != nil }
            let tap = try await headend.tap(channel)
            var entries: [GOPCache.Entry] = []
            for try await entry in tap {
                entries.append(entry)
                if entries.filter(\.isKeyframe).count == 3 { break }
            }
            tap.close()
            await headend.shutdown()
            #expect(entries.contains { $0.track == .audio } && entries.first?.caps != nil)

            let file = try Self.temporaryDirectory().appendingPathComponent("gop.seg")
            try TimeshiftSegment.write(entries, to: file)
            let back = try TimeshiftSegment.read(file)
            #expect(back.count == entries.count)
            for (a, b) in zip(entries, back) {
                #expect(a.track == b.track && a.pts == b.pts && a.dts == b.dts && a.isKeyframe == b.isKeyframe)
                #expect(a.buffer.isKeyframe == b.buffer.isKeyframe && a.buffer.bytes() == b.buffer.bytes())
                #expect(a.caps?.description == b.caps?.description)
            }
            // A cut file is refused with a message, not read as garbage.
            let cut = try Data(contentsOf: file).prefix(100)
            try cut.write(to: file)
            #expect(throws: TimeshiftError.self) { try TimeshiftSegment.read(file) }
        }

        @Test func aChannelFlippedAwayFromKeepsOnlyItsBackgroundShareAndNothingOnDisk() async throws {
            let channel = makeChannel(["test://ball?size=320x180&fps=30&gop=10&bitrate=600"])
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 160, height: 90),
                                  logger: testLogger)
            await headend.applyPolicy(current: 0, last: nil)
            let directory = try Self.temporaryDirectory()
            let buffer = try TimeshiftBuffer(channel: "1", settings: TimeshiftSettings(window: .seconds(60), memoryBytes: 48 << 10, directory: directory),
                                             logger: testLogger)
            let tap = try await headend.tap(channel)
            let filling = Task { for try await entry in tap { buffer.append(entry) } }
            let segments = { ((try? FileManager.default.contentsOfDirectory(atPath: buffer.directory.path)) ?? []).filter { $0.hasSuffix(".seg") } }
            #expect(await eventually(within: 10) { buffer.index.contains(where: \.onDisk) && !segments().isEmpty },
                    "shown: past 48 KiB the GOPs go to disk")

            buffer.isShown = false
            #expect(await eventually(within: 3) { segments().isEmpty }, "flipped away: the segment files are deleted")
            try await Task.sleep(for: .seconds(2))
            #expect(!buffer.index.contains(where: \.onDisk) && segments().isEmpty, "and none are written while not shown")
            #expect(buffer.bytesInMemory <= buffer.backgroundBytes + 64 << 10, "memory within the background share: \(buffer.bytesInMemory)")
            #expect(buffer.index.count >= 1, "the newest GOPs are kept")

            buffer.isShown = true
            #expect(await eventually(within: 10) { !segments().isEmpty }, "shown again: it records to disk again")
            tap.close()
            filling.cancel()
            buffer.close()
            await headend.shutdown()
        }

        @Test func pauseRewindIntoTheDiskAndBackToLiveOnARealSender() async throws {
            let red = try await CodecChange.clip(.h264, colour: 0xFF0000)
            let blue = try await CodecChange.clip(.h264, colour: 0x0000FF)
            let port = freePort()
            let sender = try TransportStreamSender(clip: red, port: port)
            defer { sender.stop() }
            let directory = try Self.temporaryDirectory()
            let channel = makeChannel(["udp://127.0.0.1:\(port)"])
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            // A small memory cap, so the older GOPs are read back from segment files.
            await headend.setTimeshift(TimeshiftSettings(window: .seconds(120), memoryBytes: 16 << 10, directory: directory))
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            try #require(await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe }, "not warm: \(source.state)")

            let recorder = Activation.FrameRecorder()
            let (feed, _) = try await headend.activate(channel, sink: recorder)
            #expect(await eventually(within: 3) { CodecChange.isRed(CodecChange.newestColour(recorder)) })
            let live = try #require(await headend.status(feed: feed))
            #expect(live.live && !live.paused)

            try await Task.sleep(for: .seconds(3))
            let switched = Date()
            sender.play(blue)
            #expect(await eventually(within: 5) { CodecChange.isBlue(CodecChange.newestColour(recorder)) }, "the sender went blue")
            try await Task.sleep(for: .seconds(2))
            let index = await headend.timeshiftBuffers[0]?.buffer.index ?? []
            #expect(index.contains { $0.onDisk }, "GOPs beyond 16 KiB are on disk: \(index.map { "\($0.bytes)\($0.onDisk ? "d" : "m")" })")

            // Back before the switch: red again, from the buffer.
            let shifted = try await headend.timeshift(feed: feed, .seekTo(switched.addingTimeInterval(-2)))
            #expect(!shifted.live && shifted.behind > 2, "behind live: \(shifted)")
            #expect(await eventually(within: 3) { CodecChange.isRed(CodecChange.newestColour(recorder)) },
                    "the picture went back to red: \(String(describing: CodecChange.newestColour(recorder)))")

            // Pause: the picture stops (a frame or two in flight at most), the position holds.
            let paused = try await headend.timeshift(feed: feed, .pause)
            #expect(paused.paused)
            try await Task.sleep(for: .milliseconds(200))
            let framesAtPause = recorder.frames.count
            try await Task.sleep(for: .seconds(1))
            #expect(recorder.frames.count <= framesAtPause + 1, "frames kept coming while paused: \(recorder.frames.count - framesAtPause)")
            let stillPaused = try #require(await headend.status(feed: feed))
            #expect(abs(stillPaused.position.timeIntervalSince(paused.position)) < 0.05, "the position holds while paused")

            // Resume: it plays on from there at real time, into the blue part of the buffer.
            let resumed = try await headend.timeshift(feed: feed, .togglePause)
            #expect(!resumed.paused && !resumed.live)
            #expect(await eventually(within: 6) { CodecChange.isBlue(CodecChange.newestColour(recorder)) }, "played on into blue")
            #expect(try #require(await headend.status(feed: feed)).behind > 2, "still behind live")

            // Live again.
            let back = try await headend.timeshift(feed: feed, .live)
            #expect(back.live && back.behind < 1, "\(back)")
            let framesAtLive = recorder.frames.count
            #expect(await eventually(within: 3) { recorder.frames.count > framesAtLive + 25 && CodecChange.isBlue(CodecChange.newestColour(recorder)) })

            // Seeking past the live edge is live; before the buffer lands on its oldest keyframe.
            #expect(try await headend.timeshift(feed: feed, .seekBy(.seconds(30))).live)
            let oldest = try await headend.timeshift(feed: feed, .seekBy(.seconds(-3600)))
            #expect(!oldest.live && oldest.position <= (oldest.bufferStart ?? .distantPast).addingTimeInterval(1))

            await headend.deactivate(feed: feed)
            await headend.shutdown()
            let removed = await eventually(within: 3) {
                ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty
            }
            #expect(removed, "segment files are removed with the buffer")
        }
    }
}

extension HeadendTests {
    /// `warmSeconds`: a warm channel never shown keeps its last seconds, so right after the first
    /// flip to it the viewer can go back to before they tuned in.
    @Suite struct WarmTimeshift {
        init() throws { try GStreamer.initialize() }

        @Test func aWarmChannelNeverShownHasItsLastSecondsAtTheFirstFlip() async throws {
            let one = makeChannel(["test://ball?size=160x90&fps=30&gop=15"], number: 1)
            let two = makeChannel(["test://smpte?size=160x90&fps=30&gop=15"], number: 2)
            let headend = Headend(lineup: Lineup(channels: [one, two]), policy: .all, target: DecodeTarget(width: 160, height: 90),
                                  logger: testLogger)
            var settings = TimeshiftSettings(window: .seconds(60), memoryBytes: 4 << 20, directory: try Timeshift.temporaryDirectory())
            settings.warmSeconds = .seconds(4)
            await headend.setTimeshift(settings)
            await headend.applyPolicy(current: 0, last: nil)
            try #require(await eventually(within: 10) { headend.sources[1].cache.hasKeyframe })
            try await Task.sleep(for: .seconds(7))
            let warm = try #require(await headend.timeshiftBuffers[1]?.buffer, "channel 2 has a buffer without being shown")
            let held = try #require(warm.range)
            #expect(held.upperBound.timeIntervalSince(held.lowerBound) > 2.5, "the last seconds: \(held)")
            #expect(held.upperBound.timeIntervalSince(held.lowerBound) < 4 + 1.5, "no more than warm-seconds and a GOP: \(held)")
            #expect(warm.index.allSatisfy { !$0.onDisk }, "in memory only")

            let tunedAt = Date()
            let recorder = Activation.FrameRecorder()
            let (feed, _) = try await headend.activate(two, sink: recorder)
            try #require(await eventually(within: 5) { !recorder.frames.isEmpty }, "the flip shows a picture")
            let status = try #require(await headend.status(feed: feed))
            #expect((status.bufferStart ?? .distantFuture) < tunedAt.addingTimeInterval(-2.5), "back to before the flip: \(status)")
            let back = try await headend.timeshift(feed: feed, .seekTo(tunedAt.addingTimeInterval(-2.5)))
            #expect(!back.live && back.position < tunedAt.addingTimeInterval(-2), "\(back)")
            await headend.shutdown()
        }
    }
}
