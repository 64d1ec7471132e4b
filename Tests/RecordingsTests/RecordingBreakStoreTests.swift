import Foundation
import Testing
@testable import Recordings

/// The ad breaks kept with a recording (migration v3, table `break`): merged as the recorder
/// reports them again, bounded, deleted with the recording, in the sidecar.
@Suite struct RecordingBreakStoreTests {
    static func cue(_ start: String, seconds: Double, _ origin: RecordingBreak.Origin = .scte35) -> RecordingBreak {
        RecordingBreak(start: at(start), end: at(start).addingTimeInterval(seconds), origin: origin)
    }

    @Test func breaksAreKeptMergedAndDeletedWithTheirRecording() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(RecordingStore.migrator.migrations == ["v1", "v2", "v3"])
        let store = try RecordingStore(directory: dir.path)
        let r = recording("a", "2026-11-27T20:00:00Z")
        try store.save(Schedule(recordings: [r, recording("b", "2026-11-27T21:00:00Z")]))
        try store.appendPart(to: r.id, at: r.paddedStart)

        // An open break reported as it grows, then ended early by a splice back in; a lineup one.
        #expect(try store.addBreaks([Self.cue("2026-11-27T20:10:00Z", seconds: 5)], to: r.id) == 1)
        #expect(try store.addBreaks([Self.cue("2026-11-27T20:10:00Z", seconds: 60)], to: r.id) == 1)
        let early = RecordingBreak(start: at("2026-11-27T20:10:00Z").addingTimeInterval(0.4),
                                   end: at("2026-11-27T20:10:30Z"), origin: .scte35)
        let lineup = Self.cue("2026-11-27T20:10:00Z", seconds: 120, .lineup)
        #expect(try store.addBreaks([early, lineup], to: r.id) == 2)
        // A later report that no longer holds the first break (the channel forgot it) keeps it.
        #expect(try store.addBreaks([Self.cue("2026-11-27T20:40:00Z", seconds: 90)], to: r.id) == 3)

        let reopened = try RecordingStore(directory: dir.path)
        let kept = try reopened.breaks(of: r.id)
        #expect(kept == [Self.cue("2026-11-27T20:10:00Z", seconds: 120, .lineup), Self.cue("2026-11-27T20:10:00Z", seconds: 30),
                         Self.cue("2026-11-27T20:40:00Z", seconds: 90)], "\(kept)")
        #expect(try reopened.breaks(of: RecordingID("b")).isEmpty)
        let sidecar = try RecordingSidecar.decoded(from: try RecordingSidecar(try #require(try reopened.recording(r.id)), breaks: kept).encoded())
        #expect(sidecar.breaks == kept)
        #expect(try RecordingSidecar.decoded(from: try RecordingSidecar(r).encoded()).breaks == nil, "no breaks: none in the sidecar")

        #expect(throws: RecordingError.self) { try reopened.addBreaks([Self.cue("2026-11-27T20:10:00Z", seconds: 1)], to: RecordingID("none")) }
        #expect(try reopened.remove(r.id))
        #expect(try reopened.breaks(of: r.id).isEmpty, "deleted with the recording")
        try reopened.save(Schedule(recordings: [r]))
        #expect(try reopened.breaks(of: r.id).isEmpty, "a recording made again with the same id has none")
    }

    @Test func breaksFromOutsideAreBoundedAndChecked() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        let r = recording("a", "2026-11-27T20:00:00Z", minutes: 24 * 60)
        try store.save(Schedule(recordings: [r]))
        let start = at("2026-11-27T20:00:00Z")
        let many = (0..<700).map { RecordingBreak(start: start.addingTimeInterval(Double($0) * 10), end: start.addingTimeInterval(Double($0) * 10 + 5), origin: .scte35) }
        #expect(try store.addBreaks(Array(many.prefix(300)), to: r.id) == 300)
        #expect(try store.addBreaks(many, to: r.id) == RecordingBreak.limit)
        let kept = try store.breaks(of: r.id)
        #expect(kept.count == 500 && kept == Array(many.prefix(500)), "the first 500 are kept, the rest refused")

        let insane = [
            RecordingBreak(start: start, end: start.addingTimeInterval(-1), origin: .scte35),
            RecordingBreak(start: Date(timeIntervalSince1970: .infinity), end: Date(timeIntervalSince1970: .infinity), origin: .scte35),
            RecordingBreak(start: Date(timeIntervalSince1970: .nan), end: start, origin: .lineup),
            RecordingBreak(start: Date(timeIntervalSince1970: -1e12), end: start, origin: .lineup),
            RecordingBreak(start: start, end: Date(timeIntervalSince1970: 1e13), origin: .lineup),
        ]
        #expect(RecordingBreak.merged([], insane).isEmpty, "backwards, not finite, outside 1970–2200: left out")
        let other = recording("b", "2026-11-28T20:00:00Z")
        try store.save(Schedule(recordings: [other]))
        #expect(try store.addBreaks(insane, to: other.id) == 0)
        #expect(RecordingBreak.merged(many, many, limit: -3).isEmpty)
    }
}
