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
    /// A recording asked to start before anything the box holds of its channel: the part that
    /// aired before comes from the channel's archive (catch-up), within the pool's limit, and is
    /// joined in front of the file. A real HTTP provider on loopback: live red, archive green.
    @Suite(.serialized, .heavy) struct RecordingBeginningMedia {
        init() throws { try GStreamer.initialize() }

        static func clip(colour: UInt32) async throws -> TransportStreamClip {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 300, colour: colour)
            return try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
        }

        /// The archive times a provider was asked for, in order.
        final class Asked: Sendable {
            let times = Mutex<[Int]>([])
        }

        /// `/live.ts` red, `/archive/UTC.ts` green; `streams` at once; the archive times asked; a
        /// head-end with the channel warm.
        static func provider(streams: Int, archiveKeeps: Bool = true) async throws -> (LivePoolServer, Asked, Channel, Headend) {
            let asked = Asked()
            let server = try LivePoolServer(clips: [try await clip(colour: 0xFF0000), try await clip(colour: 0x00FF00)],
                                            streams: streams, whenFull: .refuse, route: { path in
                if path == "/live.ts" { return 0 }
                guard path.hasPrefix("/archive/"), path.hasSuffix(".ts"), let utc = Int(path.dropFirst(9).dropLast(3)) else { return nil }
                asked.times.withLock { $0.append(utc) }
                return archiveKeeps ? 1 : nil
            })
            let channel = Channel(id: "seven", number: ChannelNumber(7), name: "Seven", sources: [server.base + "/live.ts"],
                                  attributes: ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "1"])
            var map = StreamPoolMap()
            map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=\(streams)"))]
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger, pools: PoolSettings(map: map))
            // The channel warm, its live picture cached.
            await headend.applyPolicy(current: nil, last: nil)
            let source = try #require(headend.source(for: channel))
            try #require(await eventually(within: 10) { source.cache.hasKeyframe })
            return (server, asked, channel, headend)
        }

        /// The mean colour of the frame at `seconds` into `file` (ffmpeg).
        static func colour(_ file: URL, at seconds: Double) throws -> (r: Int, g: Int, b: Int) {
            let data = try output(of: "ffmpeg", ["-v", "error", "-ss", String(format: "%.2f", seconds), "-i", file.path, "-frames:v", "1",
                                                 "-vf", "scale=32:18", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            let pixels = data.count / 3
            guard pixels > 0 else { return (0, 0, 0) }
            var sum = (0, 0, 0)
            for i in 0..<pixels { sum = (sum.0 + Int(data[3 * i]), sum.1 + Int(data[3 * i + 1]), sum.2 + Int(data[3 * i + 2])) }
            return (sum.0 / pixels, sum.1 / pixels, sum.2 / pixels)
        }

        @Test func theBeginningMissedLiveComesFromTheArchiveAndIsJoinedInFront() async throws {
            let (server, asked, channel, headend) = try await Self.provider(streams: 2)
            defer { server.stop() }
            let directory = try RecorderMedia.directory()
            let file = directory.appendingPathComponent("Missed.ts")
            let startAt = Date().addingTimeInterval(-10)
            let until = Date().addingTimeInterval(4)
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Missed", until: until, file: file, startAt: startAt)
            let events = RecorderMedia.Events(recording)
            #expect(await recording.finished() == .ended)
            await events.reading.value
            await headend.shutdown()

            let started = try #require(events.started)
            let beginning = events.all.compactMap { if case .beginning(let from, let to, let bytes) = $0.event { (from, to, bytes) } else { nil } }
            let (from, to, bytes) = try #require(beginning.first, "a beginning was joined: \(events.all.map(\.event))")
            #expect(abs(from.timeIntervalSince(startAt)) < 0.01 && abs(to.timeIntervalSince(started)) < 0.01 && bytes > 50_000, "\(from) \(to) \(bytes)")
            let utc = try #require(asked.times.withLock { $0 }.first)
            #expect(abs(utc - Int(startAt.timeIntervalSince1970)) <= 1, "the archive is asked from the start: \(utc)")
            #expect(server.maxOpen <= 2, "never more streams than the pool's 2: \(server.maxOpen)")

            let probe = try RecorderMedia.Probe(file)
            let span = until.timeIntervalSince(startAt)
            #expect(probe.video == 1 && probe.duration >= span - 1.5 && probe.duration <= span + RecorderMedia.gop + 1.5,
                    "the file spans from the programme's start: \(probe.duration) s for \(span) s asked")
            let first = try Self.colour(file, at: 1)
            let last = try Self.colour(file, at: probe.duration - 1)
            #expect(first.g > 150 && first.r < 100, "it starts with the archive (green): \(first)")
            #expect(last.r > 150 && last.g < 100, "it ends live (red): \(last)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left == ["Missed.ts"], "the beginning's files are gone: \(left)")
        }

        /// A beginning fetched whole before the box stopped (its note beside the file) is joined
        /// in front when the resumed recording ends.
        @Test func aBeginningLeftWholeByARestartIsJoinedWhenTheResumedRecordingEnds() async throws {
            let (server, _, channel, headend) = try await Self.provider(streams: 2)
            defer { server.stop() }
            let directory = try RecorderMedia.directory()
            let file = directory.appendingPathComponent("Cut.ts")
            let recorder = Recorder(headend: headend, logger: testLogger)
            let first = try await recorder.start(channel: channel, title: "Cut", until: Date().addingTimeInterval(2), file: file)
            let firstEvents = RecorderMedia.Events(first)
            #expect(await first.finished() == .ended)
            await firstEvents.reading.value
            let startedAt = try #require(firstEvents.started)
            // What the first run's fetch left, as it leaves it: the beginning and its note.
            let fetch = RecordingBeginning(channel: channel, title: "Cut", from: startedAt.addingTimeInterval(-4), to: startedAt,
                                           file: file, headend: headend, logger: testLogger)
            #expect(await fetch.fetch() == nil)
            let note = try #require(RecordingBeginning.note(beside: file))
            let before = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber).int64Value

            let second = try await recorder.resume(channel: channel, title: "Cut", until: Date().addingTimeInterval(2), file: file,
                                                   startedAt: startedAt)
            let events = RecorderMedia.Events(second)
            #expect(await second.finished() == .ended)
            await events.reading.value
            await headend.shutdown()
            let joined = events.all.compactMap { if case .beginning(let from, _, let bytes) = $0.event { (from, bytes) } else { nil } }
            #expect(joined.count == 1 && joined.first?.1 == note.bytes, "\(events.all.map(\.event))")
            let secondBytes = Int64(try #require(events.newestProgress?.bytes))
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber).int64Value
            #expect(size == note.bytes + before + secondBytes, "\(note.bytes) + \(before) + \(secondBytes) = \(size)")
            let start = try Self.colour(file, at: 1)
            #expect(start.g > 150 && start.r < 100, "the file starts with the beginning (green): \(start)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Cut.ts"])
        }

        /// What a recording asked to start 10 s ago, for 3 s from now, gave on a provider of
        /// `streams` streams whose archive keeps that time or not (404).
        struct AskedEarlier {
            var events: RecorderMedia.Events
            var archiveAsked: [Int]
            var maxOpen: Int, refusals: Int
            var slotsHeldAfter: Int
            var probe: RecorderMedia.Probe
            var left: [String]
            var joined: Bool { events.all.contains { if case .beginning = $0.event { true } else { false } } }
        }

        static func recordAskedEarlier(streams: Int, archiveKeeps: Bool) async throws -> AskedEarlier {
            let (server, asked, channel, headend) = try await Self.provider(streams: streams, archiveKeeps: archiveKeeps)
            defer { server.stop() }
            let directory = try RecorderMedia.directory()
            let file = directory.appendingPathComponent("Earlier.ts")
            let recording = try await Recorder(headend: headend, logger: testLogger)
                .start(channel: channel, title: "Earlier", until: Date().addingTimeInterval(3), file: file,
                       startAt: Date().addingTimeInterval(-10))
            let events = RecorderMedia.Events(recording)
            #expect(await recording.finished() == .ended)
            await events.reading.value
            let held = await headend.reservedSlots.values.reduce(0, +)
            await headend.shutdown()
            return AskedEarlier(events: events, archiveAsked: asked.times.withLock { $0 }, maxOpen: server.maxOpen,
                                refusals: server.refusals, slotsHeldAfter: held, probe: try RecorderMedia.Probe(file),
                                left: try FileManager.default.contentsOfDirectory(atPath: directory.path))
        }

        /// An archive that answers 404: the recording is the live part, whole and as asked, and
        /// nothing of the fetch is left beside it; the stream it held is given back.
        @Test func anArchiveThatAnswers404LeavesTheRecordingAsItIs() async throws {
            let run = try await Self.recordAskedEarlier(streams: 2, archiveKeeps: false)
            #expect(run.archiveAsked.count == 1, "asked once, not retried")
            #expect(!run.joined && run.slotsHeldAfter == 0, "the archive's stream is given back")
            #expect(run.probe.video == 1 && run.probe.duration < 6, "live only: \(run.probe.duration) s")
            #expect(run.left == ["Earlier.ts"])
        }

        /// A pool of one stream, which the recording's live stream takes: the archive has no
        /// stream, so nothing is fetched (never a second stream), and the recording is as before.
        @Test func noBeginningWhenThePoolHasNoStreamForTheArchive() async throws {
            let run = try await Self.recordAskedEarlier(streams: 1, archiveKeeps: true)
            #expect(!run.joined && run.archiveAsked.isEmpty, "the archive was never asked")
            #expect(run.maxOpen <= 1 && run.refusals == 0, "open \(run.maxOpen), refused \(run.refusals)")
            #expect(run.probe.video == 1 && run.probe.duration < 6, "live only: \(run.probe.duration) s")
        }
    }
}
