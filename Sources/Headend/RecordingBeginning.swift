import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging

/// The part of a programme a recording missed (it began before the recording started, and
/// before what the timeshift buffer and the GOP cache hold), fetched from the channel's archive
/// (catch-up) into a file of its own beside the recording: `NAME.beginning.ts`, its times from
/// 0, cut at the first keyframe at or after the missed span of content (not of arrival: an
/// archive may come faster or slower than real time). A note beside it
/// (`NAME.beginning.json`: the span and the bytes) says it is whole; the recording joins it in
/// front of its own file when it ends (`join`), then both go.
///
/// The archive takes a stream of its server's pool for as long as it is read (`holdSlot`), so a
/// source's limit is never passed: when the pool has no stream to give, nothing is fetched and
/// the reason is said.
struct RecordingBeginning {
    /// What a fetched beginning covers, kept beside its file.
    struct Note: Codable, Equatable {
        var from: Date
        var to: Date
        var bytes: Int64
    }

    let channel: Channel
    let title: String
    let from: Date
    let to: Date
    /// The recording's file; the beginning's are named after it.
    let file: URL
    let headend: Headend
    let logger: Logger

    /// How long the archive may stay silent before the fetch is given up.
    static let silence: Duration = .seconds(10)

    static func files(of file: URL) -> (media: URL, partial: URL, note: URL) {
        let stem = file.deletingPathExtension().path
        return (URL(fileURLWithPath: stem + ".beginning.ts"), URL(fileURLWithPath: stem + ".beginning.ts.partial"),
                URL(fileURLWithPath: stem + ".beginning.json"))
    }

    /// Fetches the beginning; nil when it is whole (its note written), else why not.
    func fetch() async -> String? {
        guard let catchup = channel.catchup, let live = headend.source(for: channel)?.addresses.first ?? channel.sources.first else {
            return "the channel has no archive"
        }
        let url: String
        do { url = try catchup.url(channel: live, start: from, end: to, now: Date()) } catch {
            return "its archive's address cannot be made: \(error)"
        }
        let pool: StreamPoolID?
        do { pool = try await headend.holdSlot(for: url) } catch {
            return "its archive has no stream free: \(error.message)"
        }
        let files = Self.files(of: file)
        let outcome = await read(url, into: files.partial)
        await headend.releaseSlot(pool)
        switch outcome {
        case .failed(let reason):
            try? FileManager.default.removeItem(at: files.partial)
            return reason
        case .bytes(let bytes):
            do {
                try? FileManager.default.removeItem(at: files.media)
                try FileManager.default.moveItem(at: files.partial, to: files.media)
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .secondsSince1970
                try encoder.encode(Note(from: from, to: to, bytes: bytes)).write(to: files.note, options: .atomic)
            } catch {
                try? FileManager.default.removeItem(at: files.partial)
                try? FileManager.default.removeItem(at: files.media)
                return "the beginning cannot be kept beside \(file.path): \(error.localizedDescription)"
            }
            logger.notice("recording \(title): its first \(Int(to.timeIntervalSince(from))) s, missed live, fetched from channel \(channel.number)'s archive (\(bytes / 1024) KiB)")
            return nil
        }
    }

    /// What reading the archive gave: the bytes written, or why it failed.
    enum Fetched { case bytes(Int64), failed(String) }

    /// What joining a beginning gave: what it covers, or why it failed.
    enum Joined { case joined(Note), failed(String) }

    /// What the fetch's loop takes, in order.
    private enum Input: Sendable {
        case entry(GOPCache.Entry)
        case archive(SourceArchiveEvent)
        case muxer(BusMessage)
        case tick
    }

    /// Reads the archive at `url` into `partial`: its bytes, or why it failed.
    private func read(_ url: String, into partial: URL) async -> Fetched {
        let source = ChannelSource(channel: channel, logger: logger, stallTimeout: Self.silence) { _ in }
        let (inputs, input) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
        source.archiveEvents.set { input.yield(.archive($0)) }
        let start = source.cache.attach(.tap(TapID(value: .max))) { input.yield(.entry($0)) }
        for entry in start.entries { input.yield(.entry(entry)) }
        await source.play(archive: url, start: true)
        let ticks = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                input.yield(.tick)
            }
        }
        var writer = Writer(duration: ClockTime(max(0, to.timeIntervalSince(from)) * 1e9))
        var muxer: RecordingMuxer?
        var lastInput = ContinuousClock.now
        var failure: String?
        var finishing: ContinuousClock.Instant?
        loop: for await next in inputs {
            switch next {
            case .entry(let entry):
                lastInput = .now
                guard finishing == nil else { continue }
                if muxer == nil {
                    guard entry.track == .video, entry.isKeyframe, entry.pts.isValid,
                          let caps = entry.caps ?? source.cache.videoCaps else { continue }
                    do {
                        muxer = try await RecordingMuxer.start(file: partial, append: false, container: .mpegts, video: caps,
                                                               audio: source.cache.audioFormats)
                        writer.videoCaps = caps
                    } catch {
                        failure = error.message
                        break loop
                    }
                    if let messages = muxer?.pipeline.messages {
                        Task { for await message in messages { input.yield(.muxer(message)) } }
                    }
                }
                if let muxer, !writer.write(entry, to: muxer) {
                    muxer.finish()
                    finishing = .now + .seconds(10)
                }
            case .archive(let event):
                guard finishing == nil else { continue }
                guard let muxer, writer.written else {
                    failure = { if case .failed(let why) = event { why } else { "it ended before its first picture" } }()
                    break loop
                }
                // An archive that ends early gives what it had: the recording says the rest is missing.
                muxer.finish()
                finishing = .now + .seconds(10)
            case .muxer(let message):
                switch message {
                case .error(_, let text, let debug):
                    failure = RecordingMuxer.writeFailure(file: partial, message: text, debug: debug).text
                    break loop
                case .endOfStream:
                    break loop
                default:
                    break
                }
            case .tick:
                if let finishing, ContinuousClock.now >= finishing { break loop }
                if finishing == nil, ContinuousClock.now - lastInput > Self.silence {
                    failure = "its archive sent nothing for \(Int(Self.silence.seconds)) s"
                    break loop
                }
            }
        }
        ticks.cancel()
        input.finish()
        source.cache.detach(.tap(TapID(value: .max)))
        await source.stop()
        await muxer?.shutdown()
        if let failure { return .failed(failure) }
        // Cut short (the recording was stopped): not the span its note would claim.
        if Task.isCancelled { return .failed("the recording stopped before its beginning was fetched") }
        guard writer.written else { return .failed("its archive gave no picture") }
        let size = ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size]) as? NSNumber)?.int64Value ?? 0
        return .bytes(size)
    }

    /// Places the archive's entries from 0 and says when the span is written.
    struct Writer {
        let duration: ClockTime
        private var base: ClockTime?
        /// The caps the muxer's video track has now.
        var videoCaps: Caps?
        private(set) var written = false

        init(duration: ClockTime) { self.duration = duration }

        /// Writes `entry`; false at the first keyframe at or after the span (not written).
        mutating func write(_ entry: GOPCache.Entry, to muxer: RecordingMuxer) -> Bool {
            guard entry.pts.isValid else { return true }
            let keyframe = entry.track == .video && entry.isKeyframe
            if base == nil {
                guard keyframe else { return true }
                base = entry.dts.isValid ? min(entry.dts, entry.pts) : entry.pts
            }
            guard let base, entry.pts >= base else { return true }
            let pts = entry.pts - base
            if keyframe, written, pts >= duration { return false }
            let dts = entry.dts.isValid && entry.dts >= base ? entry.dts - base : ClockTime.none
            if muxer.push(entry, pts: pts, dts: dts, videoCaps: &videoCaps) { written = true }
            return true
        }
    }

    /// The note of a beginning fetched whole beside `file`, not joined yet.
    static func note(beside file: URL) -> Note? {
        guard let data = try? Data(contentsOf: files(of: file).note) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Note.self, from: data)
    }

    /// Joins a fetched beginning (its note beside `file`) in front of `file`: both written to a
    /// new file, which then takes `file`'s place; the beginning's files go. The note, or nil
    /// when there is none, or why the join failed (the recording is then left as it was, the
    /// beginning's file kept beside it).
    static func join(into file: URL) -> Joined? {
        let files = files(of: file)
        try? FileManager.default.removeItem(at: files.partial)
        guard FileManager.default.fileExists(atPath: files.note.path) else { return nil }
        guard let note = note(beside: file) else {
            try? FileManager.default.removeItem(at: files.note)
            return .failed("the note of its beginning (\(files.note.path)) cannot be read")
        }
        let joined = URL(fileURLWithPath: file.path + ".joining")
        do {
            FileManager.default.createFile(atPath: joined.path, contents: nil)
            let out = try FileHandle(forWritingTo: joined)
            defer { try? out.close() }
            for part in [files.media, file] {
                let input = try FileHandle(forReadingFrom: part)
                defer { try? input.close() }
                while let chunk = try input.read(upToCount: 4 << 20), !chunk.isEmpty { try out.write(contentsOf: chunk) }
            }
            try out.synchronize()
            // rename(2) puts the joined file in the recording's place in one step.
            guard rename(joined.path, file.path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path]) }
        } catch {
            try? FileManager.default.removeItem(at: joined)
            return .failed("its beginning could not be joined in front of it: \(error.localizedDescription)")
        }
        try? FileManager.default.removeItem(at: files.media)
        try? FileManager.default.removeItem(at: files.note)
        return .joined(note)
    }
}
