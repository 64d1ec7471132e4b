import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Synchronization
import Testing
import TestSupport

extension HeadendTests {
    /// Recordings written from real channels (a test source, an HTTP pool on loopback, a UDP
    /// sender that goes silent, a full tmpfs), each file read back by ffprobe.
    @Suite(.serialized, .heavy) struct RecorderMedia {
        init() throws { try GStreamer.initialize() }

        /// One GOP of the test channels, and the slack a loaded 2-core machine is given.
        static let gop = 1.0
        static let slack = 0.6

        static func directory() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-recorder-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        /// A recording's events as they come (read by one task), with when each came.
        final class Events: Sendable {
            final class List: Sendable {
                let value = Mutex<[(event: RecordingEvent, at: Date)]>([])
            }
            private let list = List()
            let reading: Task<Void, Never>

            init(_ recording: ActiveRecording) {
                let list = self.list
                reading = Task { for await event in recording.events { list.value.withLock { $0.append((event, Date())) } } }
            }

            var all: [(event: RecordingEvent, at: Date)] { list.value.withLock { $0 } }
            var started: Date? {
                all.lazy.compactMap { if case .started(_, let at) = $0.event { at } else { nil } }.first
            }
            var stopped: (reason: RecordingStop, at: Date)? {
                all.lazy.compactMap { if case .stopped(let reason) = $0.event { (reason: reason, at: $0.at) } else { nil } }.first
            }
            var gaps: [(from: Date, to: Date, reason: String)] {
                all.compactMap { if case .gap(let from, let to, let reason) = $0.event { (from: from, to: to, reason: reason) } else { nil } }
            }
            var newestProgress: (bytes: Int, duration: Double)? {
                all.compactMap { if case .progress(let bytes, let duration) = $0.event { (bytes: bytes, duration: duration) } else { nil } }.last
            }
        }

        /// What ffprobe reads of a file, decoding every video frame (`-count_frames`).
        struct Probe {
            var video = 0, audio = 0, videoFrames = 0
            var duration = 0.0

            init(_ file: URL) throws {
                let data = try output(of: "ffprobe", ["-v", "error", "-count_frames", "-of", "json",
                                                      "-show_entries", "stream=codec_type,nb_read_frames:format=duration", file.path])
                let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "ffprobe said nothing of \(file.path)")
                for stream in json["streams"] as? [[String: Any]] ?? [] {
                    if stream["codec_type"] as? String == "video" {
                        video += 1
                        videoFrames += Int(stream["nb_read_frames"] as? String ?? "") ?? 0
                    }
                    if stream["codec_type"] as? String == "audio" { audio += 1 }
                }
                duration = Double((json["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
            }
        }

        /// Two channels of an HTTP server on loopback that gives one stream, its limit given.
        static func poolOfOne() async throws -> (LivePoolServer, Lineup, Headend) {
            let server = try LivePoolServer(clips: try await Pools.clips(2), streams: 1, whenFull: .refuse)
            let lineup = Pools.lineup(server, channels: 2)
            var map = StreamPoolMap()
            map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=1"))]
            let headend = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 320, height: 180), logger: testLogger,
                                  pools: PoolSettings(map: map))
            return (server, lineup, headend)
        }

        static func testChannel(number: Int = 1, name: String = "Ball") -> Channel {
            makeChannel(["test://ball?size=320x180&fps=25&gop=25&tone=440&bitrate=400"], number: number, name: name)
        }

        @Test func aRecordingStartsAtTheCachedKeyframeAndEndsWithinOneGOPOfItsEnd() async throws {
            let channel = Self.testChannel()
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: nil, last: nil)
            let source = headend.sources[0]
            try #require(await eventually(within: 10) { source.cache.hasKeyframe && source.cache.audioCaps != nil })
            let file = try Self.directory().appendingPathComponent("Ball.ts")
            let asked = Date()
            let until = asked.addingTimeInterval(4)
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Ball", until: until, file: file)
            let events = Events(recording)
            let reason = await recording.finished()
            await events.reading.value
            await headend.shutdown()

            #expect(reason == .ended)
            let started = try #require(events.started)
            #expect(started <= asked.addingTimeInterval(0.1) && started >= asked.addingTimeInterval(-Self.gop - Self.slack),
                    "starts at the cached keyframe, within one GOP before the asked start: \(asked.timeIntervalSince(started)) s before")
            let stopped = try #require(events.stopped)
            #expect(stopped.at >= until && stopped.at <= until.addingTimeInterval(Self.gop + Self.slack),
                    "ends at the first keyframe at or after the end: \(stopped.at.timeIntervalSince(until)) s after")
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.audio == 1, "video and audio: \(probe)")
            let span = until.timeIntervalSince(started)
            #expect(probe.duration >= span - 0.3 && probe.duration <= span + Self.gop + Self.slack,
                    "the file spans from the keyframe to within one GOP after the end: \(probe.duration) s for \(span) s asked")
            #expect(probe.videoFrames >= Int((span - 0.5) * 25), "every frame decodes: \(probe.videoFrames)")
            let progress = try #require(events.newestProgress)
            #expect(progress.bytes > 50_000 && abs(progress.duration - probe.duration) < 0.5, "\(progress)")
        }

        @Test func aMatroskaRecordingPlays() async throws {
            let channel = Self.testChannel()
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: nil, last: nil)
            try #require(await eventually(within: 10) { headend.sources[0].cache.hasKeyframe && headend.sources[0].cache.audioCaps != nil })
            let file = try Self.directory().appendingPathComponent("Ball.mkv")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Ball", until: Date().addingTimeInterval(2), file: file, container: .matroska)
            #expect(await recording.finished() == .ended)
            await headend.shutdown()
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.audio == 1 && probe.videoFrames >= 40, "\(probe)")
        }

        @Test func aRecordingStartsFromTheTimeshiftBufferWhenAskedEarlierThanTheCache() async throws {
            let channel = Self.testChannel()
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            let directory = try Self.directory()
            await headend.setTimeshift(TimeshiftSettings(window: .seconds(60), memoryBytes: 8 << 20, directory: directory))
            await headend.applyPolicy(current: 0, last: nil)
            let (feed, _) = try await headend.activate(channel, sink: Activation.FrameRecorder())
            try await Task.sleep(for: .seconds(5))
            let asked = Date().addingTimeInterval(-3)
            let file = directory.appendingPathComponent("Earlier.ts")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Earlier", until: Date().addingTimeInterval(2), file: file, startAt: asked)
            let events = Events(recording)
            #expect(await recording.finished() == .ended)
            await events.reading.value
            await headend.deactivate(feed: feed)
            await headend.shutdown()
            let started = try #require(events.started)
            #expect(started <= asked.addingTimeInterval(0.05) && started >= asked.addingTimeInterval(-Self.gop - Self.slack),
                    "from the buffer's keyframe at or before the asked start: \(asked.timeIntervalSince(started)) s before")
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.duration >= 4.5, "3 s from the buffer and 2 live: \(probe.duration) s")
        }

        /// A 1-stream pool whose stream records: a flip to another of its channels fails at
        /// once naming the recording, and the recording goes on.
        @Test func aFlipIntoAPoolThatRecordsFailsAtOnceNamingTheRecording() async throws {
            let (server, lineup, headend) = try await Self.poolOfOne()
            defer { server.stop() }
            await headend.applyPolicy(current: nil, last: nil)
            let file = try Self.directory().appendingPathComponent("News.ts")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: lineup.channels[0], title: "The News", until: Date().addingTimeInterval(60), file: file)
            let events = Events(recording)
            try #require(await eventually(within: 15) { events.started != nil }, "\(events.all.map(\.event))")

            let asked = ContinuousClock.now
            do {
                _ = try await headend.activate(lineup.channels[1], sink: Pools.Frames())
                Issue.record("the flip cannot have the recording's stream")
            } catch let failure as PoolFailure {
                #expect(failure.message == "all 1 stream of pool \(server.hostAndPort) is recording: The News")
            }
            #expect(ContinuousClock.now - asked < .milliseconds(500), "at once, not after a timeout")
            #expect(await headend.poolStatus().first?.holders == ["1 (a recording of The News)"])
            let before = events.newestProgress?.duration ?? 0
            #expect(await eventually(within: 5) { (events.newestProgress?.duration ?? 0) > before + 1.5 }, "the recording goes on")
            #expect(server.openChannels == [0])
            recording.stop()
            #expect(await recording.finished() == .cancelled)
            await events.reading.value
            await headend.shutdown()
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.videoFrames > 25, "\(probe)")
        }

        /// A recording outranks a served client: in a full pool the client's stream ends.
        @Test func aRecordingTakesTheStreamOfAServedClient() async throws {
            let (server, lineup, headend) = try await Self.poolOfOne()
            defer { server.stop() }
            let tap = try await headend.tap(lineup.channels[1], holder: "client 192.168.1.7")
            defer { tap.close() }
            #expect(await eventually(within: 10) { server.openChannels == [1] })
            let file = try Self.directory().appendingPathComponent("Film.ts")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: lineup.channels[0], title: "The Film", until: Date().addingTimeInterval(60), file: file)
            let events = Events(recording)
            var ended: (any Error)?
            do { for try await _ in tap {} } catch { ended = error }
            #expect((ended as? TapEnd) == .preempted(by: "a recording of The Film"))
            #expect(await eventually(within: 15) { events.started != nil }, "\(events.all.map(\.event))")
            recording.stop()
            _ = await recording.finished()
            await events.reading.value
            await headend.shutdown()
        }

        /// A channel that goes silent for 3 s: the gap is reported and the recording goes on in
        /// the same file, which decodes across it.
        @Test func aStallIsAGapAndTheRecordingGoesOn() async throws {
            let clip = try await CodecChange.clip(.h264, colour: 0x00FF00)
            let port = freePort()
            let sender = try TransportStreamSender(clip: clip, port: port)
            defer { sender.stop() }
            let channel = makeChannel(["udp://127.0.0.1:\(port)"])
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: 0, last: nil)
            try #require(await eventually(within: 10) { headend.sources[0].cache.hasKeyframe })
            let file = try Self.directory().appendingPathComponent("Stall.ts")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Stall", until: Date().addingTimeInterval(60), file: file)
            let events = Events(recording)
            try await Task.sleep(for: .seconds(2))
            sender.mode = .silent
            try await Task.sleep(for: .seconds(3))
            sender.mode = .stream
            #expect(await eventually(within: 10) { !events.gaps.isEmpty }, "\(events.all.map(\.event))")
            let gap = try #require(events.gaps.first)
            #expect(gap.to.timeIntervalSince(gap.from) >= 2 && gap.to.timeIntervalSince(gap.from) < 8, "about the 3 s of silence: \(gap)")
            // The progress after the gap counts the gap too: the frames decoded say it went on.
            try await Task.sleep(for: .seconds(2.5))
            recording.stop()
            #expect(await recording.finished() == .cancelled)
            await events.reading.value
            await headend.shutdown()
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.videoFrames >= 75, "both sides of the gap decode: \(probe)")
            #expect(probe.duration >= 6, "the gap is in the file's timeline: \(probe.duration) s")
        }

        /// A disk that fills stops the recording cleanly: the reason names the file, and what was
        /// written plays.
        @Test(.enabled(if: SmallFilesystem.canMount, "mounts a small tmpfs: needs root"))
        func aFullDiskStopsTheRecordingAndKeepsWhatWasWritten() async throws {
            let disk = try SmallFilesystem(bytes: 4 << 20)
            defer { disk.unmount() }
            let channel = Self.testChannel()
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: nil, last: nil)
            try #require(await eventually(within: 10) { headend.sources[0].cache.hasKeyframe })
            let file = disk.directory.appendingPathComponent("Full.ts")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Full", until: Date().addingTimeInterval(60), file: file)
            let events = Events(recording)
            #expect(await eventually(within: 10) { (events.newestProgress?.duration ?? 0) > 2 })
            try disk.fill()
            let reason = await recording.finished()
            await events.reading.value
            await headend.shutdown()
            guard case .diskFull(let message) = reason else {
                Issue.record("stopped for a full disk, not \(reason)")
                return
            }
            #expect(message.contains(file.path) && message.contains("full"), "\(message)")
            disk.free()
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.videoFrames >= 25, "what was written plays: \(probe)")
        }

        /// A recording cut by a restart goes on in the same TS file: the gap is said, the file
        /// plays across it, its timeline spans both parts.
        @Test func aResumedRecordingAppendsItsSecondPartToTheSameFile() async throws {
            let channel = Self.testChannel()
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: nil, last: nil)
            try #require(await eventually(within: 10) { headend.sources[0].cache.hasKeyframe })
            let file = try Self.directory().appendingPathComponent("Twice.ts")
            let recorder = Recorder(headend: headend, logger: testLogger)
            let first = try await recorder.start(channel: channel, title: "Twice", until: Date().addingTimeInterval(2), file: file)
            let firstEvents = Events(first)
            #expect(await first.finished() == .ended)
            await firstEvents.reading.value
            let startedAt = try #require(firstEvents.started)
            let firstBytes = try #require(firstEvents.newestProgress?.bytes)
            try await Task.sleep(for: .seconds(2))
            let second = try await recorder.resume(channel: channel, title: "Twice", until: Date().addingTimeInterval(2), file: file,
                                                   startedAt: startedAt)
            let events = Events(second)
            #expect(await second.finished() == .ended)
            await events.reading.value
            await headend.shutdown()
            #expect(second.file == file)
            let gap = try #require(events.gaps.first)
            #expect(gap.to.timeIntervalSince(gap.from) > 0.5, "the restart's gap: \(gap)")
            // The second part counts its own bytes, appended after the first's.
            let secondBytes = try #require(events.newestProgress?.bytes)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber).intValue
            #expect(secondBytes > 50_000 && secondBytes < size && size == firstBytes + secondBytes,
                    "appended: \(firstBytes) + \(secondBytes) bytes, the file \(size)")
            let probe = try Probe(file)
            #expect(probe.video == 1 && probe.videoFrames >= 75, "both parts decode: \(probe)")
        }
    }
}
