import FlipboxCore
import Foundation
import GStreamer
import MediaFormats

/// Compressed video, audio and subtitles of one channel since its last keyframe (and the audio
/// that plays from that keyframe on, even when it arrived before it; and the newest subtitle
/// page of each stream), with the caps needed to start a decoder there. The cached entries always start with the keyframe once there is one. Filled on the ingest streaming threads; read by flips.
///
/// Until the newest GOP holds `decoderLead` video frames, the GOP before it is kept as well and
/// a flip starts from that one: a decoder that reorders frames (B-frames) gives out a keyframe
/// only once it has the frames after it, and a flip that landed just after a keyframe would
/// otherwise wait for them to arrive live (2-4 frame periods, past the card delay).
///
/// Thread-safe. Consumers attached with `attach` get the cached GOP and then every new entry,
/// in arrival order, so nothing is lost or doubled between the two: an entry is stored and
/// handed on under the delivery lock, which `attach` takes too. The state lock under it guards
/// the cache alone and calls nothing: what reads the cache (a flip, the warm plan, the status)
/// never waits for a consumer, and a consumer may read the cache.
public final class GOPCache: @unchecked Sendable {
    public enum Track: Sendable { case video, audio
        /// A subtitle stream (DVB `subpicture/x-dvb`, or teletext `application/x-teletext`): only
        /// decoders get it, not ingest taps.
        case subtitle
    }

    /// One compressed buffer with its running time in the ingest pipeline.
    public struct Entry: Sendable {
        public var track: Track
        public var buffer: Buffer
        /// Presentation running time.
        public var pts: ClockTime
        /// Decode running time (equals `pts` without B-frames; `.none` when unknown).
        public var dts: ClockTime
        public var isKeyframe: Bool
        /// The stream's caps: on every video keyframe, and on the first audio buffer after the
        /// audio format changed. A consumer sees a codec change here.
        public var caps: Caps?
        /// Which of the channel's audio (or subtitle) streams this is (0 for the first, in the
        /// order the ingest found them); 0 for video.
        public var stream = 0
    }

    /// Video frames the newest GOP needs before the previous GOP is let go (covers the
    /// reordering delay of real decoders, at most a few frames, plus the demuxer's lag).
    public static let decoderLead = 8

    /// Guards the cache's state; held only while it is read or changed, never while calling out.
    private let lock = NSLock()
    /// Orders the handing on of entries: held by `append` from storing an entry until every
    /// consumer has it, and by `attach`, `attachSeeded` and `detach`. Taken before `lock`.
    private let delivery = NSLock()
    private var entries: [Entry] = []
    private var bytes = 0
    /// The GOP before `entries`, kept while `entries` holds fewer than `decoderLead` frames.
    private var previous: [Entry] = []
    private var previousBytes = 0
    private var videoFrames = 0
    private var lastVideoArrival: ContinuousClock.Instant?
    /// The newest video frame's running time and when it arrived (what maps splice cues).
    private var newestVideo: (runningTime: ClockTime, at: Date)?
    /// The same for audio stream 0 (what maps a radio channel's splice cues).
    private var newestAudio: (runningTime: ClockTime, at: Date)?
    private var videoCapsValue: Caps?
    /// The caps of each audio stream, by stream index.
    private var audioCapsByStream: [Int: Caps] = [:]
    /// The caps of each subtitle stream, by stream index.
    private var subtitleCapsByStream: [Int: Caps] = [:]
    /// What of each teletext stream a flip gets (by stream index).
    private var teletextKept: [Int: TeletextRetention<Entry>] = [:]
    /// Whether the video carried closed captions (kept across `reset()`, as the stream caps are).
    private var captionsSeen = false
    private var consumers: [Consumer: @Sendable (Entry) -> Void] = [:]
    private var lastArrival: ContinuousClock.Instant?
    /// When the first data and the first video keyframe arrived since the last `reset()`.
    private var firstArrival: ContinuousClock.Instant?
    private var firstKeyframeArrival: ContinuousClock.Instant?
    private var firstAudioArrival: ContinuousClock.Instant?
    private var startKeyframeChanged: (@Sendable () -> Void)?
    private var overBudgetValue = false
    private var budget: Int
    private var measuredGOPBytes: Int?
    /// The ingest's rate: bytes since `rateSince`, and the last whole window's bits a second.
    private var rateBytes = 0
    private var rateSince: ContinuousClock.Instant?
    private var measuredBitrate: Int?
    /// How long a window the rate is measured over.
    static let rateWindow: Duration = .seconds(3)
    private var lag = DeliveryLag()

    public init(budgetBytes: Int = WarmBudget.defaultChannelBytes) {
        self.budget = budgetBytes
    }

    /// Bytes a GOP may take before the cache gives up on it (keyframe interval too long).
    public var budgetBytes: Int {
        get { lock.withLock { budget } }
        set { lock.withLock { budget = newValue } }
    }

    /// The bytes one GOP of this channel takes: the last whole GOP (keyframe to keyframe), or
    /// the size at which a GOP outgrew `budgetBytes`, or the one filling now when that is
    /// larger. Nil until a whole GOP was seen. Kept across `reset()` (the stream is the same
    /// one when the channel is started again).
    public var gopBytes: Int? {
        lock.withLock {
            guard let measuredGOPBytes else { return nil }
            return entries.first?.isKeyframe == true ? max(measuredGOPBytes, bytes) : measuredGOPBytes
        }
    }

    /// The bits a second the ingest takes from its source (audio, video and subtitles as
    /// demuxed, over the last `rateWindow`); nil until one window was measured. Kept across
    /// `reset()`: what the channel takes when it is started again.
    public var bitrate: Int? { lock.withLock { measuredBitrate } }

    public var videoCaps: Caps? { lock.withLock { videoCapsValue } }
    /// The newest video frame's running time and the moment it arrived; nil before the first.
    public var newestVideoTime: (runningTime: ClockTime, at: Date)? { lock.withLock { newestVideo } }
    /// The newest frame of audio stream 0: its running time and the moment it arrived.
    public var newestAudioTime: (runningTime: ClockTime, at: Date)? { lock.withLock { newestAudio } }
    /// The caps of the first audio stream.
    public var audioCaps: Caps? { lock.withLock { audioCapsByStream[0] } }
    /// The caps of audio stream `stream` (nil until it delivered).
    public func audioCaps(stream: Int) -> Caps? { lock.withLock { audioCapsByStream[stream] } }

    /// The channel's audio streams that delivered, in stream order, with their languages.
    public var audioTracks: [AudioTrack] {
        let caps = lock.withLock { audioCapsByStream }
        let languages = streamLock.withLock { languageByStream }
        let describing = streamLock.withLock { describingStreams }
        return caps.keys.sorted().map {
            AudioTrack(index: $0, caps: caps[$0]!, language: languages[$0], describesPicture: describing.contains($0))
        }
    }
    /// The channel's subtitle streams that delivered, in stream order, with their languages (a
    /// teletext stream as the subtitle pages its programme table names, in the table's order);
    /// then the closed captions of its video, when it carries them.
    public var subtitleTracks: [SubtitleTrack] {
        let (caps, captions) = lock.withLock { (subtitleCapsByStream, captionsSeen) }
        let (languages, pages) = streamLock.withLock { (subtitleLanguageByStream, teletextPagesByStream) }
        return caps.keys.sorted().flatMap { stream -> [SubtitleTrack] in
            guard caps[stream]?.mediaType == Self.teletextMediaType else {
                return [SubtitleTrack(index: stream, kind: .dvb, language: languages[stream])]
            }
            var seen: Set<Int> = []
            return (pages[stream] ?? []).compactMap { page in
                guard page.isSubtitles, let number = page.number, seen.insert(number).inserted else { return nil }
                return SubtitleTrack(index: SubtitleTrack.teletextIndex(stream: stream, page: number), kind: .teletext(page: number, stream: stream),
                                     language: page.language.flatMap(LanguageCode.normalized))
            }
        } + (captions ? [SubtitleTrack.closedCaptions] : [])
    }

    /// The caps of a teletext stream's data (as `tsdemux` names them).
    public static let teletextMediaType = "application/x-teletext"
    /// The caps of subtitle stream `stream` (nil until it delivered).
    public func subtitleCaps(stream: Int) -> Caps? { lock.withLock { subtitleCapsByStream[stream] } }
    /// True when a keyframe is cached (a flip here is a warm flip).
    public var hasKeyframe: Bool { lock.withLock { entries.first?.isKeyframe == true } }
    // Before the first keyframe, `entries` may hold audio only (carried forward at the keyframe).
    public var byteCount: Int { lock.withLock { bytes + previousBytes } }
    /// True when the last GOP outgrew `budgetBytes` and was dropped.
    public var isOverBudget: Bool { lock.withLock { overBudgetValue } }
    private let streamLock = NSLock()
    private var audioStream = false
    private var videoStream = false
    private var streamsComplete = false
    /// What the demuxer's stream collection says, nil until it says it.
    private var collectionHasVideo: Bool?
    private var languageByStream: [Int: String] = [:]
    private var subtitleLanguageByStream: [Int: String] = [:]
    private var teletextPagesByStream: [Int: [TeletextPage]] = [:]
    private var describingStreams: Set<Int> = []

    /// Called by the ingest when audio stream `stream` is audio description (its programme
    /// table says so).
    public func markAudioDescription(stream: Int) { _ = streamLock.withLock { describingStreams.insert(stream) } }

    /// True once the ingest routed an audio stream here (its format may not be known yet).
    /// Takes only the stream lock.
    public var hasAudioStream: Bool { streamLock.withLock { audioStream } }

    /// Called by the ingest when it routes an audio stream to this cache.
    public func markAudioStream() { streamLock.withLock { audioStream = true } }

    /// True once the ingest routed a video stream here.
    public var hasVideoStream: Bool { streamLock.withLock { videoStream } }

    /// Called by the ingest when it routes a video stream to this cache.
    public func markVideoStream() { streamLock.withLock { videoStream = true } }

    /// Called when all the channel's streams are known without a demuxer saying so (a test
    /// source, a lineup that says the channel is radio).
    public func markStreamsComplete() { streamLock.withLock { streamsComplete = true } }

    /// Called by the ingest when its demuxer lists its streams (a stream collection): whether
    /// one is video.
    public func markStreamKinds(video: Bool) { streamLock.withLock { collectionHasVideo = video } }

    /// Called by the ingest when audio (or subtitle) stream `stream` says its language (ISO 639-2, `deu`).
    public func setLanguage(_ language: String, stream: Int, track: Track = .audio) {
        streamLock.withLock {
            if track == .subtitle { subtitleLanguageByStream[stream] = language } else { languageByStream[stream] = language }
        }
    }

    /// Called by the ingest when subtitle stream `stream` is teletext: the pages its programme
    /// table names.
    public func setTeletextPages(_ pages: [TeletextPage], stream: Int) {
        streamLock.withLock { teletextPagesByStream[stream] = pages }
    }

    /// A radio channel: audio and no video stream, as the demuxer lists them (or the lineup
    /// says), or when `radioAfter` of audio came without a video stream. Takes only the stream
    /// lock.
    public var isAudioOnly: Bool {
        streamLock.withLock {
            audioStream && !videoStream && (collectionHasVideo.map { !$0 } ?? (streamsComplete || audioOnlyByTime))
        }
    }

    /// Audio without a video stream for this long makes a channel radio even when its demuxer
    /// never said it had all its streams (longer than any keyframe interval a parser waits for).
    public static let radioAfter = 12 * ClockTime.second
    /// Where a flip to a radio channel starts: this much before the newest audio.
    public static let radioLead = 300 * ClockTime.millisecond
    private var firstAudioPTS: ClockTime = .none
    /// Under `streamLock`.
    private var audioOnlyByTime = false

    /// True when a flip here is a warm flip: a keyframe is cached, or audio of a radio channel.
    public var canStartWarm: Bool { hasKeyframe || (isAudioOnly && lock.withLock { !entries.isEmpty }) }

    private var firstDelivery: (@Sendable () -> Void)?

    /// Calls `handler` (on the streaming thread, under the delivery lock: it must only post)
    /// when the first data arrives after the last `reset()`. Nil removes it: no call comes
    /// after this returns.
    public func onFirstDelivery(_ handler: (@Sendable () -> Void)?) {
        delivery.withLock { lock.withLock { firstDelivery = handler } }
    }

    /// When the source first delivered anything, its first video keyframe and its first sound,
    /// since the last `reset()` (what a cold flip waited for: the connection, then the source's
    /// next keyframe, and the sound's format).
    public var firstDeliveries: (any: ContinuousClock.Instant?, keyframe: ContinuousClock.Instant?, audio: ContinuousClock.Instant?) {
        lock.withLock { (firstArrival, firstKeyframeArrival, firstAudioArrival) }
    }

    /// Calls `handler` (on the streaming thread, under the delivery lock: it must only post)
    /// whenever the keyframe a flip would start from (`startKeyframe()`) changes to a newer one.
    /// Nil removes it: no call comes after this returns.
    public func onStartKeyframeChange(_ handler: (@Sendable () -> Void)?) {
        delivery.withLock { lock.withLock { startKeyframeChanged = handler } }
    }

    /// Calls `handler` (on the ingest's streaming thread: it must only post) when the ingest
    /// plugs a parser for a video stream, once its programme table says what the stream is:
    /// before the stream's first keyframe, so a cold flip's first-picture decoder can be
    /// made ready by then. Nil removes it.
    public func onVideoAnnounced(_ handler: (@Sendable (VideoFamily) -> Void)?) {
        streamLock.withLock { videoAnnounced = handler }
    }

    /// Called by the ingest when it plugs the parser of a video stream of `family`.
    func announceVideo(_ family: VideoFamily) {
        streamLock.withLock { videoAnnounced }?(family)
    }

    /// Under `streamLock`.
    private var videoAnnounced: (@Sendable (VideoFamily) -> Void)?

    /// When the source last delivered anything.
    public var lastDelivery: ContinuousClock.Instant? { lock.withLock { lastArrival } }

    /// When the source last delivered video; nil until it did (since the last `reset()`).
    public var lastVideoDelivery: ContinuousClock.Instant? { lock.withLock { lastVideoArrival } }

    /// When the source last delivered what a viewer needs: video, once it has sent any (sound
    /// alone does not keep a picture channel alive: `tsdemux` in a streams-aware `parsebin`
    /// keeps a stream whose video codec changed on the same PID on its old parser, which passes
    /// nothing while the sound goes on); anything, for a channel without video.
    public var lastUsefulDelivery: ContinuousClock.Instant? { lock.withLock { lastVideoArrival ?? lastArrival } }

    /// Video frames in the newest GOP (0 before the first keyframe).
    public var newestGOPVideoFrames: Int { lock.withLock { entries.first?.isKeyframe == true ? videoFrames : 0 } }

    /// Whether a LOAS frame (AAC in LATM, ISO 14496-3 1.7.2) carries its StreamMuxConfig: the
    /// 11-bit sync word 0x2B7, 13 bits of length, then `useSameStreamMux` 0.
    static func carriesLATMConfiguration(_ buffer: Buffer) -> Bool {
        buffer.withBytes { b in b.count > 3 && b[0] == 0x56 && b[1] & 0xE0 == 0xE0 && b[3] & 0x80 == 0 } == true
    }

    /// AAC in LATM sends its configuration only every few hundred milliseconds, and a decoder
    /// can play nothing before it: the sound of each LATM stream from the frame that last carried
    /// it before `keyframe` (within `ChannelDecoder.latmPrerollLimit`), so a flip starts with
    /// sound. The decoder decodes it and does not play it. Empty for other streams. Lock held.
    private func latmLead(before keyframe: ClockTime) -> [Entry] {
        var lead: [Entry] = []
        for (stream, caps) in audioCapsByStream where caps.string("stream-format") == "loas" {
            let before = entries.filter { $0.track == .audio && $0.stream == stream && $0.pts.isValid && $0.pts < keyframe }
            guard let configured = before.last(where: { Self.carriesLATMConfiguration($0.buffer) }),
                  keyframe - configured.pts <= ChannelDecoder.latmPrerollLimit else { continue }
            lead += before.filter { $0.pts >= configured.pts }
        }
        return lead.sorted { $0.pts < $1.pts }
    }

    /// What a flip starts from: the cached GOP, preceded by the previous one while the newest
    /// is too short for a decoder to give out its keyframe (see `decoderLead`).
    private func startEntries() -> [Entry] {
        if entries.first?.isKeyframe != true, isAudioOnly, let last = entries.last(where: { $0.pts.isValid }) {
            // Radio: the newest moment of sound; for AAC in LATM, from the frame that last
            // carried the stream's configuration (sent every few hundred milliseconds: the
            // decoder can play nothing before it).
            var from = last.pts > Self.radioLead ? last.pts - Self.radioLead : 0
            let latm = audioCapsByStream.filter { $0.value.string("stream-format") == "loas" }.keys
            for stream in latm {
                let configured = entries.filter { $0.track == .audio && $0.stream == stream && $0.pts.isValid && Self.carriesLATMConfiguration($0.buffer) }
                if let start = configured.last(where: { $0.pts <= from }) ?? configured.first { from = min(from, start.pts) }
            }
            return entries.filter { $0.pts.isValid && $0.pts >= from }
        }
        guard !previous.isEmpty, let key = entries.first, key.isKeyframe else { return entries }
        // Audio that plays from the newest keyframe on is in both (carried forward): once.
        // Subtitle pages: the newest of each stream is carried forward already.
        // (So is LATM sound carried from before the keyframe for its configuration.)
        var carriedFrom: [Int: ClockTime] = [:]
        for e in entries where e.track == .audio && e.pts.isValid { carriedFrom[e.stream] = min(carriedFrom[e.stream] ?? e.pts, e.pts) }
        return previous.filter {
            $0.track == .video || ($0.track == .audio && (!$0.pts.isValid || $0.pts < min(key.pts, carriedFrom[$0.stream] ?? key.pts)))
        } + entries
    }


    /// Counts `size` bytes arrived at `now` into the rate (lock held).
    private func measureRate(_ size: Int, at now: ContinuousClock.Instant) {
        guard let since = rateSince else {
            rateSince = now
            rateBytes = size
            return
        }
        rateBytes = rateBytes.addingReportingOverflow(size).overflow ? Int.max : rateBytes + size
        let elapsed = now - since
        guard elapsed >= Self.rateWindow else { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let bits = Double(rateBytes) * 8 / seconds
        // Bounded (a 100 Gb/s link), so sums over a lineup never overflow.
        measuredBitrate = bits.isFinite ? Int(min(bits, 1e11)) : nil
        rateSince = now
        rateBytes = 0
    }

    /// Adds a buffer from the ingest appsink (streaming thread); `stream` numbers the audio streams.
    public func append(_ sample: Sample, track: Track, stream: Int = 0) {
        guard let buffer = sample.buffer else { return }
        let pts = sample.runningTime(buffer.pts)
        let dts = sample.runningTime(buffer.dts)
        var entry = Entry(track: track, buffer: buffer, pts: pts.isValid ? pts : dts, dts: dts,
                          isKeyframe: track == .video && buffer.isKeyframe, stream: track == .video ? 0 : stream)
        delivery.lock()
        defer { delivery.unlock() }
        let (calls, stored) = lock.withLock { store(&entry, sample: sample, buffer: buffer, track: track, stream: stream) }
        for call in calls { call() }
        for (id, consumer) in stored where entry.track != .subtitle || id.takesSubtitles { consumer(entry) }
    }

    /// Stores `entry` (lock held); returns the handlers to call for it and the consumers to hand
    /// it to, both after the lock is let go.
    private func store(_ entry: inout Entry, sample: Sample, buffer: Buffer, track: Track, stream: Int)
        -> (calls: [@Sendable () -> Void], consumers: [Consumer: @Sendable (Entry) -> Void]) {
        var calls: [@Sendable () -> Void] = []
        let now = ContinuousClock.now
        if lastArrival == nil {
            if let firstDelivery { calls.append(firstDelivery) }
            firstArrival = now
        }
        lastArrival = now
        measureRate(buffer.size, at: now)
        let stamp = track == .video && entry.dts.isValid ? entry.dts : entry.pts
        if track != .subtitle, stamp.isValid { lag.record(video: track == .video, time: Int64(bitPattern: UInt64(stamp)), at: now) }
        if track == .video {
            lastVideoArrival = now
            if entry.pts.isValid { newestVideo = (entry.pts, Date()) }
            if let caps = sample.caps, videoCapsValue.map({ !($0 == caps) }) ?? true { videoCapsValue = caps }
            if entry.isKeyframe { entry.caps = videoCapsValue }
            if !captionsSeen && buffer.carriesCaptions { captionsSeen = true }
        } else if track == .subtitle {
            if let caps = sample.caps, subtitleCapsByStream[stream].map({ !($0 == caps) }) ?? true {
                subtitleCapsByStream[stream] = caps
                entry.caps = caps
            }
            if subtitleCapsByStream[stream]?.mediaType == Self.teletextMediaType {
                teletextKept[stream, default: TeletextRetention()].take(entry, headers: TeletextHeader.headers(in: buffer.bytes()))
            }
        } else {
            if firstAudioArrival == nil { firstAudioArrival = now }
            if stream == 0, entry.pts.isValid { newestAudio = (entry.pts, Date()) }
            if let caps = sample.caps, audioCapsByStream[stream].map({ !($0 == caps) }) ?? true {
                audioCapsByStream[stream] = caps
                entry.caps = caps
            }
            if entry.pts.isValid, lastVideoArrival == nil {
                if !firstAudioPTS.isValid || entry.pts < firstAudioPTS { firstAudioPTS = entry.pts }
                if entry.pts >= firstAudioPTS + Self.radioAfter { streamLock.withLock { audioOnlyByTime = true } }
            }
        }
        if entry.isKeyframe {
            // Muxers often send audio ahead of the video of the same moment: keep the audio that
            // plays from the keyframe on, placed after it, so a flip starts with sound.
            let wholeGOP = entries.first?.isKeyframe == true
            if wholeGOP { measuredGOPBytes = bytes }
            var carried = entries.filter { $0.track == .audio && $0.pts.isValid && $0.pts >= entry.pts }
            carried = latmLead(before: entry.pts) + carried
            // A subtitle page stays on screen until the next: the newest of each stream goes on
            // (it may have come GOPs ago; the decoder shows it while its time-out lasts); of a
            // teletext stream, what its `TeletextRetention` keeps (each page's newest
            // transmission and the newest entries), so a page sent once builds after a flip.
            var pages: [Int: [Entry]] = [:]
            for old in previous where old.track == .subtitle && teletextKept[old.stream] == nil { pages[old.stream] = [old] }
            for old in entries where old.track == .subtitle && teletextKept[old.stream] == nil { pages[old.stream] = [old] }
            for (stream, kept) in teletextKept { pages[stream] = kept.kept }
            carried += pages.keys.sorted().flatMap { pages[$0]! }
            // The GOP just completed stays until this one has enough frames for a decoder,
            // unless the format changed (a decoder cannot go from one codec to the next).
            let sameFormat = entries.first?.caps.map { old in entry.caps.map { $0.mediaType == old.mediaType } ?? false } ?? false
            if wholeGOP && sameFormat {
                previous = entries
                previousBytes = bytes
            } else {
                previous = []
                previousBytes = 0
            }
            if firstKeyframeArrival == nil { firstKeyframeArrival = now }
            entries.removeAll(keepingCapacity: true)
            entries.append(entry)
            entries.append(contentsOf: carried)
            bytes = carried.reduce(buffer.size) { $0 + $1.buffer.size }
            videoFrames = 1
            overBudgetValue = false
            if previous.isEmpty, let startKeyframeChanged { calls.append(startKeyframeChanged) }
        } else if entries.isEmpty && entry.track == .video {
            // No video cached until the first keyframe; consumers still see live data.
        } else {
            entries.append(entry)
            bytes += buffer.size
            if entry.track == .video {
                videoFrames += 1
                if videoFrames >= Self.decoderLead && !previous.isEmpty {
                    previous = []
                    previousBytes = 0
                    if let startKeyframeChanged { calls.append(startKeyframeChanged) }
                }
            }
            if entries.first?.isKeyframe != true, entry.pts.isValid, entry.pts > 3 * ClockTime.second {
                // Audio waiting for a keyframe: keep the last 3 s.
                let cut = entry.pts - 3 * ClockTime.second
                while let first = entries.first, first.pts < cut {
                    bytes -= first.buffer.size
                    entries.removeFirst()
                }
            }
            if bytes > budget {
                if entries.first?.isKeyframe == true { measuredGOPBytes = bytes }
                entries.removeAll(keepingCapacity: false)
                bytes = 0
                previous = []
                previousBytes = 0
                overBudgetValue = true
            }
        }
        return (calls, consumers)
    }

    /// Who reads the cache live: a decoder's feed or an ingest tap (separate id spaces).
    public enum Consumer: Hashable, Sendable {
        case feed(FeedID)
        case tap(TapID)

        /// Only decoders get subtitle pages (taps: timeshift, clips, the head-end's streams
        /// carry video and audio).
        var takesSubtitles: Bool { if case .feed = self { true } else { false } }
    }

    /// What a consumer starts from: the cached entries from the keyframe (see `decoderLead`) and
    /// the caps to start there.
    public typealias Start = (entries: [Entry], video: Caps?, audio: Caps?)

    /// Returns what a consumer starts from and registers `consumer` for every later entry (called
    /// on ingest streaming threads in arrival order, one at a time, under the delivery lock: it
    /// must only push and return, and never attach or detach).
    public func attach(_ id: Consumer, consumer: @escaping @Sendable (Entry) -> Void) -> Start {
        delivery.withLock { lock.withLock {
            consumers[id] = consumer
            let start = startEntries()
            return (id.takesSubtitles ? start : start.filter { $0.track != .subtitle }, videoCapsValue, audioCapsByStream[0])
        } }
    }

    /// Registers `consumer` for every later entry after handing it, first, what a consumer
    /// starts from, all under the delivery lock: no live entry comes before or between them. For
    /// a consumer that takes entries where they arrive (a timeshift buffer), with no queue: the
    /// entries carry their caps. `consumer` runs on ingest streaming threads under the delivery
    /// lock, so it must only store and return.
    public func attachSeeded(_ id: Consumer, consumer: @escaping @Sendable (Entry) -> Void) {
        delivery.withLock {
            let start = lock.withLock {
                consumers[id] = consumer
                return startEntries()
            }
            for entry in start where id.takesSubtitles || entry.track != .subtitle { consumer(entry) }
        }
    }

    /// Stops handing entries to `id`: none reaches it once this returns.
    public func detach(_ id: Consumer) {
        _ = delivery.withLock { lock.withLock { consumers.removeValue(forKey: id) } }
    }

    /// What a consumer would start from now, without attaching one.
    public func snapshot() -> Start {
        lock.withLock { (startEntries().filter { $0.track != .subtitle }, videoCapsValue, audioCapsByStream[0]) }
    }

    /// The keyframe a flip would start from now (the first of what `attach` hands over) with
    /// the video format it came in; nil while none is cached. Cheap: for a check many times a
    /// second.
    public func startKeyframe() -> (entry: Entry, caps: Caps)? {
        lock.withLock {
            guard let key = entries.first, key.isKeyframe, let caps = key.caps ?? videoCapsValue else { return nil }
            if let earlier = previous.first(where: { $0.track == .video }), earlier.isKeyframe {
                return (earlier, earlier.caps ?? caps)
            }
            return (key, caps)
        }
    }

    /// How late the channel's data has come, at most, in the last few seconds (`DeliveryLag`):
    /// arrival minus timestamp, in nanoseconds of `DeliveryLag`'s clock; nil when nothing came.
    public var largestLag: Int64? {
        lock.withLock { lag.largest(now: .now) }
    }

    /// Forgets everything (source stopped or restarted).
    public func reset() {
        lock.withLock {
            lag.forget()
            entries.removeAll()
            bytes = 0
            previous = []
            previousBytes = 0
            videoFrames = 0
            lastArrival = nil
            rateSince = nil
            rateBytes = 0
            firstArrival = nil
            firstKeyframeArrival = nil
            firstAudioArrival = nil
            lastVideoArrival = nil
            newestVideo = nil
            newestAudio = nil
            firstAudioPTS = .none
            teletextKept = [:]
            streamLock.withLock {
                subtitleLanguageByStream = [:]
                teletextPagesByStream = [:]
                audioOnlyByTime = false
                audioStream = false
                videoStream = false
                streamsComplete = false
                collectionHasVideo = nil
                languageByStream = [:]
            }
        }
    }
}
