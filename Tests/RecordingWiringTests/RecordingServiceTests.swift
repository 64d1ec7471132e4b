import FlipboxCore
import Foundation
import GStreamer
import Guide
@testable import Headend
import Lineup
import Logging
import LoopbackStreams
import Recordings
@testable import RecordingWiring
import Synchronization
import Testing
import TestSupport

/// The recording service on a real head-end with a test channel: a time range, a rule on a
/// made-up guide, a recording stopped while it runs; each file read back by ffprobe.
@Suite(.serialized, .heavy) struct RecordingServiceTests {
    init() throws { try GStreamer.initialize() }

    static let logger: Logger = {
        var l = Logger(label: "flipbox.recording-wiring-tests")
        l.logLevel = ProcessInfo.processInfo.environment["FLIPBOX_TEST_LOG"] != nil ? .debug : .critical
        return l
    }()
    /// One GOP of the test channel, and the slack a loaded 2-core machine is given.
    static let gop = 1.0
    static let slack = 0.8

    /// A box with one test channel (GOP of 1 s) and the service over it, its loop running.
    struct Box {
        let channel: Channel
        let headend: Headend
        let service: RecordingService
        let state: URL
        let loop: Task<Void, Never>
        let notices: Notices

        init(programmes: [GuideProgramme] = [], retention: Retention.Policy = .init(), pools: PoolLimits = PoolLimits(),
             more: Set<ChannelNumber> = [], channel given: Channel? = nil, headendPools: PoolSettings = PoolSettings()) async throws {
            let channel = given ?? Channel(id: "ch1", number: ChannelNumber(1), name: "Ball",
                                           sources: ["test://ball?size=320x180&fps=25&gop=25&tone=440&bitrate=400"])
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: RecordingServiceTests.logger, pools: headendPools)
            await headend.applyPolicy(current: nil, last: nil)
            let source = headend.sources[0]
            let deadline = Date().addingTimeInterval(10)
            while !(source.cache.hasKeyframe && source.cache.audioCaps != nil) && Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-recwire-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            let service = try RecordingService(
                stateDirectory: state.path, directory: state.appendingPathComponent("recordings"), headend: headend,
                sources: .init(channel: { $0 == channel.number ? channel : nil }, channels: { more.union([channel.number]) },
                               programmes: { _, _ in programmes }, pools: { pools }),
                timeZone: TimeZone(identifier: "UTC")!, logger: RecordingServiceTests.logger, retention: retention, tick: .milliseconds(200))
            self.channel = channel
            self.headend = headend
            self.service = service
            self.state = state
            let notices = Notices()
            notices.follow(service)
            self.notices = notices
            loop = Task { await service.run() }
        }

        /// Ends the loop (once more is harmless) and the head-end.
        func close() async {
            service.shutdown()
            await loop.value
            await headend.shutdown()
        }

        /// Removes the state directory and the recordings (after the files were read).
        func clean() { try? FileManager.default.removeItem(at: state) }

        /// Waits for the recording's end notice (stopped or failed).
        func ended(_ id: RecordingID, within seconds: Double) async throws -> Recording {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let r = notices.ended(id) { return r }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("recording \(id) did not end within \(seconds) s: \(notices.all)")
            throw CancellationError()
        }

        func file(_ r: Recording) throws -> URL {
            service.directory.appendingPathComponent(try #require(r.filePath, "no file for \(r.id)"))
        }
    }

    /// The service's notices as they come.
    final class Notices: Sendable {
        private let list = Mutex<[RecordingService.Notice]>([])
        func follow(_ service: RecordingService) {
            Task { [self] in for await n in service.notices { list.withLock { $0.append(n) } } }
        }
        var all: [RecordingService.Notice] { list.withLock { $0 } }
        func ended(_ id: RecordingID) -> Recording? {
            all.lazy.compactMap { n -> Recording? in
                switch n {
                case .stopped(let r) where r.id == id, .failed(let r) where r.id == id: r
                default: nil
                }
            }.first
        }
        func started(_ id: RecordingID) -> Recording? {
            all.lazy.compactMap { n -> Recording? in if case .started(let r) = n, r.id == id { r } else { nil } }.first
        }
    }

    /// A time range that began 8 s ago on a channel whose archive keeps it (live red, archive
    /// green, two streams): recorded from its start, the beginning from the archive stored as
    /// part 0 in front of the live part, no gap, and the file's first bytes are the beginning's.
    @Test func aRangeThatBeganBeforeIsRecordedFromItsStartOutOfTheArchive() async throws {
        func clip(_ colour: UInt32) async throws -> TransportStreamClip {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 300, colour: colour)
            return try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
        }
        let server = try LivePoolServer(clips: [try await clip(0xFF0000), try await clip(0x00FF00)], streams: 2, whenFull: .refuse,
                                        route: { $0 == "/live.ts" ? 0 : $0.hasPrefix("/archive/") ? 1 : nil })
        defer { server.stop() }
        let channel = Channel(id: "ch1", number: ChannelNumber(1), name: "Seven", sources: [server.base + "/live.ts"],
                              attributes: ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "1"])
        var map = StreamPoolMap()
        map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=2"))]
        let box = try await Box(channel: channel, headendPools: PoolSettings(map: map))
        defer { box.clean() }
        let start = Date().addingTimeInterval(-8), end = Date().addingTimeInterval(4)
        let asked = try await box.service.add(OneOffRequest(id: RecordingID("began"),
                                                            target: .timeRange(channel: ChannelNumber(1), start: start, end: end, title: "Began")))
        let done = try await box.ended(asked.id, within: 60)
        let stored = try #require(try box.service.store.recording(asked.id))
        let file = try box.file(stored)
        await box.close()

        #expect(done.state == .done && stored.gaps.isEmpty, "\(done.state): \(done.error ?? "") \(stored.gaps)")
        #expect(stored.parts.map(\.number) == [0, 1], "\(stored.parts)")
        let (beginning, live) = (stored.parts[0], stored.parts[1])
        #expect(abs(beginning.start.timeIntervalSince(start)) < 0.01 && beginning.end == live.start, "\(stored.parts)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber).int64Value
        #expect(beginning.bytes > 50_000 && beginning.bytes + live.bytes == size, "\(beginning.bytes) + \(live.bytes) of \(size)")
        let timeline = RecordingTimeline(parts: stored.parts.map { .init(start: $0.start, end: $0.end ?? $0.lastWrite, bytes: $0.bytes) },
                                         fileSize: size)
        #expect(timeline.offset(at: start.addingTimeInterval(1)) < beginning.bytes, "a seek into the first seconds lands in the beginning")
        let probe = try FileReading(file)
        #expect(probe.duration >= end.timeIntervalSince(start) - 1.5, "from the range's start: \(probe.duration) s")
    }

    @Test func aTimeRangeIsRecordedToAFileWithinOneGOPOfTheAskedLength() async throws {
        let box = try await Box()
        defer { box.clean() }
        let start = Date().addingTimeInterval(1), end = start.addingTimeInterval(6)
        let asked = try await box.service.add(OneOffRequest(id: RecordingID("range-1"),
                                                            target: .timeRange(channel: ChannelNumber(1), start: start, end: end, title: "Ball range")))
        #expect(asked.state == .scheduled && asked.isOneOff)
        let done = try await box.ended(asked.id, within: 25)
        let stored = try #require(try box.service.store.recording(asked.id))
        let file = try box.file(stored)
        let sidecar = URL(fileURLWithPath: box.service.directory.appendingPathComponent(RecordingFileName.sidecarPath(for: stored.filePath ?? "")).path)
        await box.close()

        #expect(done.state == .done, "\(done.state): \(done.error ?? "")")
        #expect(stored.state == .done && stored.parts.count == 1 && stored.gaps.isEmpty, "\(stored)")
        #expect(stored.filePath?.hasPrefix("Ball range/Ball range (") == true, "\(stored.filePath ?? "")")
        #expect(FileManager.default.fileExists(atPath: sidecar.path), "the sidecar beside the file")
        let part = try #require(stored.parts.first)
        #expect(part.bytes > 50_000, "bytes counted: \(part.bytes)")
        let probe = try FileReading(file)
        #expect(probe.audioStreams >= 1 && probe.videoFrames > 100, "decodes: \(probe)")
        let span = end.timeIntervalSince(part.start)
        #expect(probe.duration >= span - 0.3 && probe.duration <= span + Self.gop + Self.slack,
                "from its first keyframe to within one GOP after the end: \(probe.duration) s for \(span) s")
        // Its first keyframe is the cached one before the start, or (a loaded machine ticking the
        // service late) the next one: within a GOP of the start either way.
        #expect(probe.duration >= 6 - Self.gop - Self.slack && probe.duration <= 6 + 2 * Self.gop + Self.slack,
                "6 s asked, \(probe.duration) s written (a keyframe by the start, one after the end)")
    }

    /// A rule that keeps its newest recording: when the second episode ends, the first goes,
    /// its file and sidecar with it, and the service says why.
    @Test func aRuleKeepingOneDeletesTheOlderEpisodeWhenTheNextEnds() async throws {
        let now = Date()
        func episode(_ n: Int, at offset: Double) -> GuideProgramme {
            let start = now.addingTimeInterval(offset)
            return GuideProgramme(id: GuideProgramme.derivedID(channel: ChannelNumber(1), start: start), channel: ChannelNumber(1),
                                  programme: Programme(channel: "ball.example", start: start, stop: start.addingTimeInterval(2.5),
                                                       title: "Ball News", episodeXMLTVNS: "0.\(n)."))
        }
        let (first, second) = (episode(0, at: 2), episode(1, at: 6))
        let box = try await Box(programmes: [first, second])
        defer { box.clean() }
        try await box.service.save(RecordingRule(id: RuleID("news"), title: .exact("Ball News"), keepLatest: 1, padding: .none))
        let firstID = RecordingScheduler.recordingID(forProgramme: first.id), secondID = RecordingScheduler.recordingID(forProgramme: second.id)
        let older = try await box.ended(firstID, within: 20)
        let olderFile = try box.file(older)
        #expect(FileManager.default.fileExists(atPath: olderFile.path), "the first is kept while it is the newest")
        let newer = try await box.ended(secondID, within: 20)
        let deadline = Date().addingTimeInterval(5)
        while try box.service.store.recording(firstID) != nil && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let newerFile = try box.file(newer)
        await box.close()

        #expect(try box.service.store.recording(firstID) == nil, "the older episode's entry is gone")
        #expect(!FileManager.default.fileExists(atPath: olderFile.path), "and its file")
        #expect(!FileManager.default.fileExists(atPath: olderFile.deletingPathExtension().appendingPathExtension("json").path), "and its sidecar")
        #expect(FileManager.default.fileExists(atPath: newerFile.path), "the newest stays")
        let said = box.notices.all.compactMap { n -> String? in if case .deleted(let r, let why) = n { "\(r.id): \(why)" } else { nil } }
        #expect(said == ["\(firstID): rule news keeps its newest 1"])
    }

    @Test func aRuleRecordsAProgrammeOfTheGuide() async throws {
        let now = Date()
        let start = now.addingTimeInterval(2), stop = start.addingTimeInterval(4)
        let programme = Programme(channel: "ball.example", start: start, stop: stop, title: "Ball News", subTitle: "Late",
                                  episodeXMLTVNS: "0.1.")
        let id = GuideProgramme.derivedID(channel: ChannelNumber(1), start: start)
        let box = try await Box(programmes: [
            GuideProgramme(id: GuideProgramme.derivedID(channel: ChannelNumber(1), start: start.addingTimeInterval(-60)),
                           channel: ChannelNumber(1),
                           programme: Programme(channel: "ball.example", start: start.addingTimeInterval(-60), stop: start, title: "Before")),
            GuideProgramme(id: id, channel: ChannelNumber(1), programme: programme),
        ])
        defer { box.clean() }
        try await box.service.save(RecordingRule(id: RuleID("news"), title: .exact("ball news"), padding: Padding(before: 0, after: 0)))
        let recordingID = RecordingScheduler.recordingID(forProgramme: id)
        let listed = await box.service.listing().recordings
        #expect(listed.map(\.id) == [recordingID], "only the programme the rule asks for: \(listed.map(\.id))")
        let done = try await box.ended(recordingID, within: 25)
        let file = try box.file(done)
        await box.close()

        #expect(done.state == .done && done.rules == [RuleID("news")], "\(done.state): \(done.error ?? "")")
        #expect(done.filePath?.hasPrefix("Ball News/Ball News - S01E02 - Late (") == true, "\(done.filePath ?? "")")
        let probe = try FileReading(file)
        #expect(probe.audioStreams >= 1 && probe.duration >= 4 - 0.3 && probe.duration <= 4 + 2 * Self.gop + Self.slack,
                "4 s programme, \(probe.duration) s written (a keyframe before its start, one after its end)")
    }

    @Test func removingARecordingInProgressKeepsAPlayableFile() async throws {
        let box = try await Box()
        defer { box.clean() }
        let start = Date(), end = start.addingTimeInterval(60)
        let asked = try await box.service.add(OneOffRequest(id: RecordingID("long"),
                                                            target: .timeRange(channel: ChannelNumber(1), start: start, end: end, title: nil)))
        let deadline = Date().addingTimeInterval(15)
        while box.notices.started(asked.id) == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try #require(box.notices.started(asked.id) != nil, "started: \(box.notices.all)")
        try await Task.sleep(for: .seconds(4))
        #expect(try await box.service.remove(asked.id))
        let stopped = try await box.ended(asked.id, within: 10)
        let file = try box.file(stopped)
        #expect(try await box.service.remove(RecordingID("none")) == false)
        await box.close()

        #expect(stopped.state == .partial && stopped.error?.contains("stopped by request") == true, "\(stopped.state): \(stopped.error ?? "")")
        let probe = try FileReading(file)
        #expect(probe.audioStreams >= 1 && probe.duration >= 3 && probe.duration <= 4 + Self.gop + Self.slack, "\(probe)")
    }

    @Test func aRecordingCutByARestartGoesOnInItsSecondPartWithTheGapStored() async throws {
        let box = try await Box()
        defer { box.clean() }
        let start = Date(), end = start.addingTimeInterval(60)
        let asked = try await box.service.add(OneOffRequest(id: RecordingID("cut"),
                                                            target: .timeRange(channel: ChannelNumber(1), start: start, end: end, title: "Cut")))
        let deadline = Date().addingTimeInterval(15)
        while box.notices.started(asked.id) == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try #require(box.notices.started(asked.id) != nil, "started: \(box.notices.all)")
        try await Task.sleep(for: .seconds(3))
        box.service.shutdown()
        await box.loop.value
        #expect(try box.service.store.recording(asked.id)?.state == .recording, "left recording for the next start")
        // The box is down a while: the next part starts after the cached keyframe of now.
        try await Task.sleep(for: .seconds(2))

        let again = try RecordingService(
            stateDirectory: box.state.path, directory: box.service.directory, headend: box.headend,
            sources: .init(channel: { [channel = box.channel] in $0 == channel.number ? channel : nil }),
            timeZone: TimeZone(identifier: "UTC")!, logger: Self.logger, tick: .milliseconds(200))
        let notices = Notices()
        notices.follow(again)
        let loop = Task { await again.run() }
        let resumed = Date().addingTimeInterval(15)
        while notices.started(asked.id) == nil && Date() < resumed { try await Task.sleep(for: .milliseconds(100)) }
        try #require(notices.started(asked.id) != nil, "resumed: \(notices.all)")
        try await Task.sleep(for: .seconds(2))
        #expect(try await again.remove(asked.id))
        let stopDeadline = Date().addingTimeInterval(10)
        while notices.ended(asked.id) == nil && Date() < stopDeadline { try await Task.sleep(for: .milliseconds(100)) }
        let stored = try #require(notices.ended(asked.id))
        again.shutdown()
        await loop.value
        let file = try box.file(stored)
        await box.close()

        #expect(stored.parts.map(\.number) == [1, 2], "\(stored.parts)")
        #expect(stored.gaps.count == 1 && stored.gaps.first?.reason == "the box restarted", "\(stored.gaps)")
        #expect(stored.state == .partial)
        let probe = try FileReading(file)
        #expect(probe.audioStreams >= 1 && probe.videoFrames > 100, "both parts decode from one file: \(probe)")
    }

    @Test func aScheduledRecordingRemovedIsCancelledAndNeverStarts() async throws {
        let box = try await Box()
        defer { box.clean() }
        let start = Date().addingTimeInterval(3600)
        let asked = try await box.service.add(OneOffRequest(id: RecordingID("later"),
                                                            target: .timeRange(channel: ChannelNumber(1), start: start,
                                                                               end: start.addingTimeInterval(60), title: "Later")))
        #expect(try await box.service.remove(asked.id))
        let stored = try #require(try box.service.store.recording(asked.id))
        await box.close()
        #expect(stored.state == .cancelled)
    }

    /// A pool of one stream, two recordings in it at once: the conflict offers the same programme
    /// on a channel of another pool, and drops. Taking "another channel" schedules it there and
    /// cancels the one it replaces, and the conflict is gone; the same option again is refused
    /// (409), as is one never offered. A drop cancels that recording.
    @Test func aConflictsOptionsCanBeTaken() async throws {
        let start = Date().addingTimeInterval(3600), stop = start.addingTimeInterval(1800)
        func programme(_ number: Int, _ title: String) -> GuideProgramme {
            GuideProgramme(id: GuideProgramme.derivedID(channel: ChannelNumber(number), start: start), channel: ChannelNumber(number),
                           programme: Programme(channel: "c\(number).example", start: start, stop: stop, title: title))
        }
        let pools = PoolLimits(poolOfChannel: [ChannelNumber(1): "tuner", ChannelNumber(3): "tuner", ChannelNumber(2): "other"],
                               limits: ["tuner": 1, "other": 1])
        let box = try await Box(programmes: [programme(1, "News"), programme(2, "News"), programme(3, "Film")], pools: pools,
                                more: [ChannelNumber(2), ChannelNumber(3)])
        defer { box.clean() }
        let news = try await box.service.add(OneOffRequest(id: RecordingID("news"), target: .programmeAt(channel: ChannelNumber(1), start: start)))
        let film = try await box.service.add(OneOffRequest(id: RecordingID("film"), target: .programmeAt(channel: ChannelNumber(3), start: start)))
        let conflict = try #require(box.service.conflicts.first, "two recordings in a pool of one stream")
        #expect(Set(conflict.recordings) == [news.id, film.id] && conflict.pool == "tuner")
        let move = ConflictOption.otherChannel(recording: news.id, channel: ChannelNumber(2), programmeID: programme(2, "News").id)
        #expect(conflict.options.contains(move), "\(conflict.options)")
        #expect(conflict.options.contains(.drop(recording: film.id)))

        let moved = try #require(try await box.service.resolve(move))
        #expect(moved.channel == ChannelNumber(2) && moved.programme.title == "News" && moved.state == .scheduled)
        #expect(try box.service.store.recording(news.id)?.state == .cancelled)
        let listed = await box.service.listing().conflicts
        #expect(box.service.conflicts.isEmpty && listed.isEmpty)
        await #expect(throws: RecordingError.self) { try await box.service.resolve(move) }
        do {
            try await box.service.resolve(.drop(recording: film.id))
            Issue.record("an option no conflict offers was taken")
        } catch {
            #expect(error.kind == .conflict && error.message.contains("not offered"), "\(error.message)")
        }

        // Again in conflict, and a drop.
        let again = try await box.service.add(OneOffRequest(id: RecordingID("again"), target: .programmeAt(channel: ChannelNumber(1), start: start)))
        #expect(box.service.conflicts.first?.options.contains(.drop(recording: film.id)) == true)
        #expect(try await box.service.resolve(.drop(recording: film.id)) == nil)
        #expect(try box.service.store.recording(film.id)?.state == .cancelled)
        #expect(try box.service.store.recording(again.id)?.state == .scheduled)
        #expect(box.service.conflicts.isEmpty)
        await box.close()
    }

    @Test func anUnwritableRecordingsDirectoryIsRefusedSayingHowToFixIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-recwire-file-\(UUID().uuidString)")
        try Data().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            try RecordingService.checkWritable(file.appendingPathComponent("recordings"))
        } throws: { error in
            (error as? RecordingError)?.message.contains("--recordings-dir") == true
        }
    }
}
