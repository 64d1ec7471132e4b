import FlipboxCore
import Testing

/// An ingest entry as the machine sees it: a number in ingest order, its track, keyframe, time.
struct TestEntry: FeedEntry, Hashable, CustomStringConvertible {
    var n: Int
    var feedTrack: FeedTrack
    var isKeyframe = false
    var ms: UInt64
    var presentationNanoseconds: UInt64? { ms * 1_000_000 }
    var description: String { "\(n)\(feedTrack == .video ? (isKeyframe ? "K" : "v") : feedTrack == .audio ? "a" : "s")" }

    static func video(_ n: Int, key: Bool = false, ms: UInt64 = 0) -> TestEntry { TestEntry(n: n, feedTrack: .video, isKeyframe: key, ms: ms) }
    static func audio(_ n: Int, ms: UInt64 = 0) -> TestEntry { TestEntry(n: n, feedTrack: .audio, ms: ms) }
}

typealias Machine = FeedMachine<TestEntry>

/// What the actions did: what each decoder got, in order, and the requests made.
struct Outcome {
    var pushed: [Int: [TestEntry]] = [:]
    var requests = 0
    var audioWaits = 0
    var earlyDecodes = 0
    var presented = 0
    var presentedAfterStart = false
    var started: Set<Int> = []
    var swaps: [String] = []
    var deadlines: [Int] = []

    mutating func record(_ actions: [Machine.Action], live: Int?) {
        for action in actions {
            switch action {
            case .forward(let e): pushed[live ?? -1, default: []].append(e)
            case .start(let d, let entries):
                started.insert(d)
                pushed[d, default: []].append(contentsOf: entries)
            case .requestDecoder: requests += 1
            case .armAudioWait: audioWaits += 1
            case .armFirstPictureDeadline(let d): deadlines.append(d)
            case .decodeEarlyPicture: earlyDecodes += 1
            case .presentEarlyPicture:
                presented += 1
                if !started.isEmpty { presentedAfterStart = true }
            case .swapDecoder(_, let reason): swaps.append(reason)
            case .subtitleStreamAppeared: break
            }
        }
    }
}

/// A feed's machine (`FeedMachine`) without GStreamer, clocks or sleeps: the rules one by one,
/// then random interleavings of an ingest with the decoder's and the early picture's events.
@Suite struct FeedMachineTests {
    @Test func aWarmFeedStartsFromItsBacklogKeyframeFirstThenGoesLive() {
        var m = Machine(warm: true, audioKnown: true)
        var out = Outcome()
        // Entries arriving between the attach and the decoder are held.
        out.record(m.step(.entry(.audio(10), .init())), live: nil)
        out.record(m.step(.entry(.video(11), .init())), live: nil)
        #expect(out.requests == 0, "a warm feed's decoder comes with the flip")
        let backlog: [TestEntry] = [.audio(1), .video(2, key: true), .video(3)]
        out.record(m.step(.decoderReady(1, backlog: backlog, afterEarlyPicture: false)), live: nil)
        #expect(out.pushed[1]?.map(\.n) == [2, 1, 3, 10, 11])
        #expect(m.liveDecoder == 1)
        out.record(m.step(.entry(.video(12), .init())), live: 1)
        #expect(out.pushed[1]?.last?.n == 12)
        #expect(m.lastVideo?.n == 12)
    }

    @Test func aColdFeedDropsVideoBeforeItsKeyframeKeepsASecondOfSoundAndAsksOnce() {
        var m = Machine(warm: false, audioKnown: false)
        var out = Outcome()
        out.record(m.step(.entry(.video(1), .init())), live: nil)
        out.record(m.step(.entry(.audio(2, ms: 0), .init())), live: nil)
        out.record(m.step(.entry(.audio(3, ms: 600), .init())), live: nil)
        out.record(m.step(.entry(.audio(4, ms: 1200), .init())), live: nil)  // 2 is over a second older
        #expect(out.requests == 0)
        out.record(m.step(.entry(.video(5, key: true, ms: 1250), .init(carriesFormat: true))), live: nil)
        #expect(out.requests == 1, "the sound's format is known: the decoder is asked for at the keyframe")
        #expect(m.heldFromKeyframe.map(\.n) == [5])
        out.record(m.step(.entry(.video(6), .init())), live: nil)
        out.record(m.step(.audioWaitOver), live: nil)
        #expect(out.requests == 1, "asked once")
        out.record(m.step(.decoderReady(1, backlog: [], afterEarlyPicture: false)), live: nil)
        #expect(out.pushed[1]?.map(\.n) == [5, 3, 4, 6])
    }

    @Test func aKeyframeBeforeTheSoundWaitsForItAndShowsItsPictureMeanwhile() {
        var m = Machine(warm: false, audioKnown: false)
        var out = Outcome()
        out.record(m.step(.entry(.video(1, key: true), .init(carriesFormat: true))), live: nil)
        #expect(out.audioWaits == 1 && out.earlyDecodes == 1 && out.requests == 0)
        out.record(m.step(.earlyPictureBegan), live: nil)
        out.record(m.step(.earlyPictureOut), live: nil)
        #expect(out.presented == 1 && m.showedEarlyPicture)
        // The sound comes before the wait is over: asked for then, and not again at the end.
        out.record(m.step(.entry(.audio(2), .init())), live: nil)
        #expect(out.requests == 1)
        out.record(m.step(.audioWaitOver), live: nil)
        #expect(out.requests == 1)
        // Without any sound: the wait's end asks.
        var silent = Machine(warm: false, audioKnown: false)
        var quiet = Outcome()
        quiet.record(silent.step(.entry(.video(1, key: true), .init(carriesFormat: true))), live: nil)
        quiet.record(silent.step(.audioWaitOver), live: nil)
        #expect(quiet.requests == 1)
        // No audio stream at all: at once.
        var mute = Machine(warm: false, audioKnown: false)
        var none = Outcome()
        none.record(mute.step(.entry(.video(1, key: true), .init(hasAudioStream: false, carriesFormat: true))), live: nil)
        #expect(none.requests == 1 && none.audioWaits == 0)
    }

    @Test func aDecoderReadyAfterTheEarlyPictureWaitsForItOrItsDeadline() {
        var m = Machine(warm: false, audioKnown: true)
        var out = Outcome()
        out.record(m.step(.entry(.video(1, key: true), .init(carriesFormat: true))), live: nil)
        out.record(m.step(.earlyPictureBegan), live: nil)
        out.record(m.step(.decoderReady(1, backlog: [], afterEarlyPicture: true)), live: nil)
        #expect(out.started.isEmpty && out.deadlines == [1])
        out.record(m.step(.entry(.video(2), .init())), live: nil)
        out.record(m.step(.earlyPictureOut), live: nil)
        #expect(out.presented == 1 && out.started == [1], "the picture first, then the decoder takes the feed")
        #expect(out.pushed[1]?.map(\.n) == [1, 2])
        out.record(m.step(.firstPictureDeadline(1)), live: 1)
        #expect(out.pushed[1]?.count == 2, "the deadline after the start does nothing")

        // The deadline first: the decoder starts; a late picture is not shown over its frames.
        var late = Machine(warm: false, audioKnown: true)
        var lateOut = Outcome()
        lateOut.record(late.step(.entry(.video(1, key: true), .init(carriesFormat: true))), live: nil)
        lateOut.record(late.step(.earlyPictureBegan), live: nil)
        lateOut.record(late.step(.decoderReady(1, backlog: [], afterEarlyPicture: true)), live: nil)
        lateOut.record(late.step(.firstPictureDeadline(1)), live: nil)
        #expect(lateOut.started == [1])
        lateOut.record(late.step(.earlyPictureOut), live: 1)
        #expect(lateOut.presented == 0)
    }

    @Test func aNewFormatOrAFailedDecoderSwapsAtTheNextKeyframe() {
        var m = Machine(warm: true, audioKnown: true)
        var out = Outcome()
        out.record(m.step(.decoderReady(1, backlog: [.video(1, key: true)], afterEarlyPicture: false)), live: nil)
        // A stale failure (another decoder's) changes nothing.
        out.record(m.step(.decoderFailed(7)), live: 1)
        out.record(m.step(.entry(.video(2, key: true), .init(carriesFormat: true))), live: 1)
        #expect(out.swaps.isEmpty)
        out.record(m.step(.decoderFailed(1)), live: 1)
        out.record(m.step(.entry(.video(3), .init())), live: 1)
        #expect(out.swaps.isEmpty, "not before a keyframe")
        out.record(m.step(.entry(.video(4, key: true), .init(carriesFormat: true))), live: 1)
        #expect(out.swaps == ["its decoder failed"])
        out.record(m.step(.entry(.audio(5), .init())), live: nil)
        #expect(out.requests == 0, "the swap asks for the decoder")
        out.record(m.step(.decoderReady(2, backlog: [], afterEarlyPicture: false)), live: nil)
        #expect(out.pushed[2]?.map(\.n) == [4, 5])
        // A keyframe in another format swaps at once.
        out.record(m.step(.entry(.video(6, key: true), .init(videoChange: "the picture changed to HEVC", carriesFormat: true))), live: 2)
        #expect(out.swaps.last == "the picture changed to HEVC")
        // No decoder can be built: held from the next keyframe on, asked for again there.
        out.record(m.step(.decoderUnavailable), live: nil)
        out.record(m.step(.entry(.video(7), .init())), live: nil)
        out.record(m.step(.entry(.video(8, key: true), .init(carriesFormat: true))), live: nil)
        #expect(out.requests == 1 && m.heldFromKeyframe.map(\.n) == [8])
    }

    @Test func radioStartsAtASoundAndSwapsAtOne() {
        var m = Machine(warm: false, audioKnown: false)
        var out = Outcome()
        out.record(m.step(.entry(.audio(1), .init(radio: true))), live: nil)
        #expect(out.requests == 1)
        out.record(m.step(.decoderReady(1, backlog: [], afterEarlyPicture: false)), live: nil)
        #expect(out.pushed[1]?.map(\.n) == [1])
        out.record(m.step(.entry(.audio(2), .init(radio: true, decoderIsRadio: true, audioChange: "the sound changed to AC-3", carriesFormat: true))), live: 1)
        #expect(out.swaps == ["the sound changed to AC-3"], "radio has no keyframes: the swap is at the sound itself")
    }

    @Test func nothingHappensAfterACancel() {
        var m = Machine(warm: false, audioKnown: true)
        _ = m.step(.entry(.video(1, key: true), .init(carriesFormat: true)))
        _ = m.step(.cancel)
        for input: Machine.Input in [.entry(.video(2, key: true), .init(carriesFormat: true)), .audioWaitOver,
                                     .decoderReady(1, backlog: [], afterEarlyPicture: false), .earlyPictureOut, .firstPictureDeadline(1)] {
            #expect(m.step(input).isEmpty, "\(input)")
        }
    }

    /// Random ingests (GOPs of video with sound between, the sound first or late) met by the
    /// decoder's and the early picture's events at random moments: whatever the order, the
    /// decoder gets the feed from a keyframe on with no video frame lost, repeated or out of
    /// order, the decoder is asked for once, and the early picture never follows its frames.
    @Test(arguments: 0..<400)
    func randomInterleavingsKeepTheFeedWhole(_ seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let warm = rng.next() % 3 == 0
        let audioKnown = rng.next() % 2 == 0
        let hasAudio = rng.next() % 4 != 0
        // The ingest: 0-3 frames before the first keyframe, then GOPs of 1-6 frames.
        var ingest: [TestEntry] = []
        var n = 0, ms: UInt64 = 0
        func add(_ track: FeedTrack, key: Bool = false) {
            n += 1; ms += 40
            ingest.append(TestEntry(n: n, feedTrack: track, isKeyframe: key, ms: ms))
        }
        for _ in 0..<Int(rng.next() % 4) { add(.video) }
        for _ in 0..<(2 + Int(rng.next() % 4)) {
            add(.video, key: true)
            for _ in 0..<Int(rng.next() % 6) {
                if hasAudio && rng.next() % 2 == 0 { add(.audio) }
                add(.video)
            }
        }
        // Warm: the backlog is a cached GOP that ends where the ingest begins.
        let backlog: [TestEntry] = warm ? [TestEntry(n: 0, feedTrack: .video, isKeyframe: true, ms: 0)] : []
        var m = Machine(warm: warm, audioKnown: audioKnown)
        var out = Outcome()
        var decoderAt = warm ? Int(rng.next() % UInt64(ingest.count)) : Int.max
        var earlyBegan = false, earlyOutAt = Int.max, deadlineAt = Int.max, waitOverAt = Int.max
        let facts = Machine.Facts(hasAudioStream: hasAudio)
        for (i, entry) in ingest.enumerated() {
            let live = m.liveDecoder
            var f = facts
            f.carriesFormat = entry.isKeyframe
            let before = out.requests + out.audioWaits
            out.record(m.step(.entry(entry, f)), live: live)
            if out.requests + out.audioWaits > before {
                if out.audioWaits > 0 && waitOverAt == Int.max { waitOverAt = i + 1 + Int(rng.next() % 8) }
                if out.requests > 0 && decoderAt == Int.max { decoderAt = i + Int(rng.next() % 5) }
            }
            if out.earlyDecodes > 0 && !earlyBegan {
                earlyBegan = true
                out.record(m.step(.earlyPictureBegan), live: m.liveDecoder)
                earlyOutAt = i + Int(rng.next() % 6)
            }
            if i == waitOverAt {
                out.record(m.step(.audioWaitOver), live: m.liveDecoder)
                if out.requests > 0 && decoderAt == Int.max { decoderAt = i + Int(rng.next() % 5) }
            }
            if i == decoderAt {
                out.record(m.step(.decoderReady(1, backlog: backlog, afterEarlyPicture: earlyBegan && earlyOutAt > i)), live: m.liveDecoder)
                if !out.deadlines.isEmpty { deadlineAt = i + Int(rng.next() % 6) }
            }
            if i == earlyOutAt { out.record(m.step(.earlyPictureOut), live: m.liveDecoder) }
            if i == deadlineAt { out.record(m.step(.firstPictureDeadline(1)), live: m.liveDecoder) }
        }
        // The events that were due after the ingest's end come then, in a random order.
        var rest: [Machine.Input] = []
        if waitOverAt >= ingest.count && out.audioWaits > 0 { rest.append(.audioWaitOver) }
        if earlyOutAt >= ingest.count && earlyBegan { rest.append(.earlyPictureOut) }
        rest.shuffle(using: &rng)
        for input in rest { out.record(m.step(input), live: m.liveDecoder) }
        if out.requests > 0 && decoderAt >= ingest.count {
            out.record(m.step(.decoderReady(1, backlog: backlog, afterEarlyPicture: false)), live: m.liveDecoder)
        }
        if !out.deadlines.isEmpty { out.record(m.step(.firstPictureDeadline(1)), live: m.liveDecoder) }

        let context = "seed \(seed) warm \(warm) audioKnown \(audioKnown) hasAudio \(hasAudio) ingest \(ingest)"
        #expect(out.requests <= 1 && (!warm || out.requests == 0), "asked once, never when warm: \(context)")
        #expect(!out.presentedAfterStart, "the early picture never follows the decoder's frames: \(context)")
        #expect(out.pushed[-1] == nil, "nothing forwarded without a decoder: \(context)")
        guard let got = out.pushed[1] else {
            #expect(out.requests == 0 && !warm, "a decoder asked for took the feed: \(context)")
            return
        }
        // From a keyframe on, every video frame once and in order.
        #expect(got.first?.isKeyframe == true, "starts at a keyframe: \(got) \(context)")
        let firstKey = (backlog + ingest).first { $0.isKeyframe }!
        let expectedVideo = (backlog + ingest).filter { $0.feedTrack == .video && $0.n >= firstKey.n }
        #expect(got.filter { $0.feedTrack == .video } == expectedVideo, "video whole: \(got) \(context)")
        // Sound in order, none twice.
        let sound = got.filter { $0.feedTrack == .audio }.map(\.n)
        #expect(sound == sound.sorted() && Set(sound).count == sound.count, "sound in order: \(got) \(context)")
    }
}
