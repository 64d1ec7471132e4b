/// When each compressed entry of a channel plays in its decoder: the playout rule of one
/// decoder bound to one feed. Pure: the decoder reads its pipeline's running time and the arrival
/// clock once per entry and gives them in (`Now`); out comes the offset to shift the entry's
/// timestamps by (source running time to decoder running time), or nothing when the entry is
/// left out. No GStreamer, no clock, no locks: `ChannelDecoder` keeps it under its own lock.
/// Every time is in nanoseconds.
///
/// The rules:
/// - Anchor. The first keyframe (a radio channel: the first sound) is timed "now": its
///   presentation time maps to the running time it is given at, and everything after it keeps
///   its distance from it, so a channel plays in real time from its cached keyframe and stays
///   that far behind live (it never fast-forwards). Entries before it are left out.
/// - Delivery lag hold. With the channel's lag known when the decoder was bound
///   (`bind(channelLag:)`, the GOP cache's `DeliveryLag`), what comes after the keyframe plays
///   later by the lag the channel had beyond the keyframe's own, plus `playoutMargin` for a
///   channel with pictures, `longestSettle` at most; the keyframe itself still leaves at once,
///   and its picture stands still meanwhile.
/// - Settle. For `settleTime` after the anchor, a live entry later than due (by more than
///   `settleTolerance`) puts the playing of both tracks back by its lateness and the margin,
///   `longestSettle` in all: a channel whose lag grew past what was seen before the flip stands
///   still once instead of moving in jerks with its sound behind.
/// - Jumps. A step in a track's source time back by more than `jump`, or forward by more than
///   `jump` beyond the time that passed, is a discontinuity in the source's clock: that track
///   carries on one frame after its last entry. Nothing else ever moves a track's timing back.
/// - LATM preroll. Sound from before the anchor is left out, but for AAC in LATM within
///   `latmPrerollLimit` of it: decoded for the stream's configuration, so the sound starts with
///   the picture, and never played (`playsDecodedAudio(at:)`).
/// - Lateness. How late frames and sound leave the decoder (`noteLateness`), and how long the
///   decoder held its playing back (the hold and the settling), for the bench's lip sync.
public struct PlayoutClock: Sendable {
    public enum Track: Sendable, Hashable { case video, audio }

    /// What the clock needs of an entry: its track, its times in the source's running time (nil
    /// when unknown), and whether it is a keyframe.
    public struct Timing: Sendable, Hashable {
        public var track: Track
        public var pts: Int64?
        public var dts: Int64?
        public var isKeyframe: Bool

        public init(track: Track, pts: Int64?, dts: Int64? = nil, isKeyframe: Bool = false) {
            self.track = track
            self.pts = pts
            self.dts = dts
            self.isKeyframe = isKeyframe
        }
    }

    /// The moment an entry is given: the decoder pipeline's running time (nil while it has no
    /// clock), and the instant on the arrival clock that the channel's lag was measured on (any
    /// fixed origin: only differences count).
    public struct Now: Sendable, Hashable {
        public var runningTime: Int64?
        public var instant: Int64

        public init(runningTime: Int64?, instant: Int64) {
            self.runningTime = runningTime
            self.instant = instant
        }
    }

    /// An entry to push: shifted by `offset`, and what the clock did at it.
    public struct Push: Sendable, Hashable {
        public var offset: Int64
        public var event: Event?

        public init(offset: Int64, event: Event? = nil) {
            self.offset = offset
            self.event = event
        }
    }

    public enum Event: Sendable, Hashable {
        /// The entry anchored the clock; what follows it is held back by `hold`.
        case anchored(hold: Int64)
        /// The source's clock jumped at the entry: its track carries on after its last entry.
        case jumped
        /// The entry came late: the playing of both tracks was put back by `by`.
        case settled(by: Int64)
        /// LATM sound from before the anchor: decoded, not played.
        case preroll
    }

    /// Where data timed on the picture's timeline goes (subtitle pages, teletext): `past`, more
    /// than `jump` before the newest frame (stale, or from before a jump in the source's clock);
    /// else `at` a running time, that of the newest frame for data more than `jump` after it (a
    /// jump the picture has not made yet).
    public enum Placement: Sendable, Hashable {
        case past
        case at(Int64)
    }

    /// Time a decoder is given to have a frame out by when it is due.
    public static let playoutMargin: Int64 = 30_000_000
    /// Lateness that settling lets pass.
    public static let settleTolerance: Int64 = 10_000_000
    /// How long after the anchor a late entry may still put the playing back.
    public static let settleTime: Int64 = 3_000_000_000
    /// The most a decoder plays behind its first keyframe's arrival for its data to come in time
    /// (the hold), and the most it puts its playing back after that (settling).
    public static let longestSettle: Int64 = 1_000_000_000
    /// How far before the first keyframe LATM sound is taken for its configuration.
    public static let latmPrerollLimit: Int64 = 1_000_000_000
    /// A step in a source's timeline larger than this (beyond the time that passed) is a jump.
    public static let jump: Int64 = 1_000_000_000
    /// Where a track carries on after a jump: one frame (video at 30, audio at 50 a second)
    /// after its last entry.
    public static let videoStep: Int64 = 1_000_000_000 / 30
    public static let audioStep: Int64 = 1_000_000_000 / 50

    /// A decoder without video: it starts at the first sound, without the margin.
    public let radio: Bool
    /// The sound played is AAC in LATM (it prerolls); follows `selectAudio(latm:)`.
    public private(set) var latm: Bool
    /// Source running time to decoder running time, per track (nil until the anchor).
    public private(set) var offsets: (video: Int64, audio: Int64)?
    /// How late the bound feed's frames and sound left the decoder, and how long it held.
    public private(set) var lateness = PlayoutLateness()
    private var anchorPTS: Int64 = 0
    /// The channel's largest lag when the decoder was bound (nil: play without waiting, for data
    /// that is all there: a timeshift buffer).
    private var channelLag: Int64?
    /// Until when, and by how much more at most, a late entry may still put the playing back.
    private var settling: (until: Int64, left: Int64)?
    private var audioJumped = false
    /// Decoded sound timed before this (the anchor's running time) is LATM preroll: not played.
    private var prerollBefore: Int64?
    /// Each track's last entry pushed: its source time, the running time it was shifted to, and
    /// the instant it came.
    private var lastVideo: (source: Int64, shifted: Int64, at: Int64)?
    private var lastAudio: (source: Int64, shifted: Int64, at: Int64)?

    public init(radio: Bool, latm: Bool) {
        self.radio = radio
        self.latm = latm
    }

    /// The decoder is dedicated to a feed whose data lags by `channelLag` at most: its lateness
    /// starts over.
    public mutating func bind(channelLag: Int64?) {
        self.channelLag = channelLag
        lateness = PlayoutLateness()
    }

    /// Another audio stream plays from now on (`latm`: AAC in LATM): it keeps the sound's
    /// timing, and its first entry is no jump from the last one's.
    public mutating func selectAudio(latm: Bool) {
        self.latm = latm
        lastAudio = nil
    }

    /// Times `entry` given `now`; nil: it is left out. `live`: it arrived just now (not cached,
    /// nor held while the decoder was built), so it may settle the playing when it comes late.
    public mutating func take(_ entry: Timing, live: Bool = false, at now: Now) -> Push? {
        var event: Event?
        // The keyframe a channel with pictures starts from leaves as soon as it is decoded.
        var keyframeOffset: Int64?
        if offsets == nil {
            let starts = radio ? entry.track == .audio : entry.isKeyframe
            guard starts, let pts = entry.pts, let runningTime = now.runningTime else { return nil }
            let anchor = runningTime - pts
            // What comes after it is played late enough that what the channel sends is there
            // when due: the keyframe's picture stands still meanwhile. (A radio channel's first
            // sound waits only for sound that came later than it before: no margin, no gap.)
            var wait: Int64 = 0
            if let channelLag {
                let lag = now.instant - pts
                wait = min(max(0, channelLag + (radio ? 0 : Self.playoutMargin) - lag), Self.longestSettle)
                settling = (now.instant + Self.settleTime, Self.longestSettle)
            }
            offsets = (anchor + wait, anchor + wait)
            lateness.heldMs = Double(wait) / 1e6
            anchorPTS = pts
            if !radio { keyframeOffset = anchor }
            event = .anchored(hold: wait)
        }
        guard var (videoOffset, audioOffset) = offsets, let pts = entry.pts else { return nil }
        let isVideo = entry.track == .video
        // Decode order is monotonic for video; presentation order is, for audio.
        let t = isVideo ? entry.dts ?? pts : pts
        var jumped = false
        if let last = isVideo ? lastVideo : lastAudio {
            let sourceStep = t - last.source
            if sourceStep < -Self.jump || sourceStep > now.instant - last.at + Self.jump {
                // The source's clock jumped: carry on one frame after the last entry.
                let carryOn = last.shifted + (isVideo ? Self.videoStep : Self.audioStep) - t
                if isVideo { videoOffset = carryOn } else { audioOffset = carryOn; audioJumped = true }
                offsets = (videoOffset, audioOffset)
                jumped = true
                event = .jumped
            }
        }
        if live, !jumped, keyframeOffset == nil, isVideo || pts >= anchorPTS,
           let shift = settle(t, offset: isVideo ? videoOffset : audioOffset, at: now) {
            videoOffset += shift
            audioOffset += shift
            event = .settled(by: shift)
        }
        if !isVideo && pts < anchorPTS && !audioJumped {
            // (Not in a pipeline started less than that ago: its running time cannot go below 0,
            // and sound clamped there would throw the decoder's timestamps off.)
            guard latm, anchorPTS - pts <= Self.latmPrerollLimit, pts + audioOffset >= 0 else { return nil }
            prerollBefore = anchorPTS + audioOffset
            event = .preroll
        }
        let offset = keyframeOffset ?? (isVideo ? videoOffset : audioOffset)
        if isVideo { lastVideo = (t, t + offset, now.instant) } else { lastAudio = (t, t + offset, now.instant) }
        return Push(offset: offset, event: event)
    }

    /// Puts the playing back when a live entry comes later than it is due: by its lateness and
    /// `playoutMargin`, picture and sound together, for `settleTime` after the anchor and
    /// `longestSettle` in all. `time` is the entry's decode time (video) or presentation time
    /// (audio), `offset` its track's. Returns how far the offsets moved, nil when they did not.
    private mutating func settle(_ time: Int64, offset: Int64, at now: Now) -> Int64? {
        guard let (until, left) = settling else { return nil }
        guard now.instant < until, left > 0, let (videoOffset, audioOffset) = offsets else {
            settling = nil
            return nil
        }
        guard let runningTime = now.runningTime else { return nil }
        let late = runningTime - (time + offset)
        guard late > Self.settleTolerance else { return nil }
        let shift = min(late + Self.playoutMargin, left)
        offsets = (videoOffset + shift, audioOffset + shift)
        lateness.heldMs += Double(shift) / 1e6
        settling = (until, left - shift)
        return shift
    }

    /// The source time a track is at when the decoder's running time is `runningTime` (where the
    /// sound is now, for another stream to take over from; which cue covers a frame); nil before
    /// the anchor.
    public func sourceTime(atRunningTime runningTime: Int64, of track: Track) -> Int64? {
        offsets.map { runningTime - (track == .video ? $0.video : $0.audio) }
    }

    /// Where data at source time `pts` goes on the picture's timeline: as far from the newest
    /// frame as the source has it (see `Placement`); nil before a frame was pushed.
    public func placeOnPicture(_ pts: Int64) -> Placement? {
        guard let last = lastVideo else { return nil }
        let distance = pts - last.source
        guard distance >= -Self.jump else { return .past }
        return .at(last.shifted + (distance > Self.jump ? 0 : distance))
    }

    /// Whether decoded sound timed `pts` (the decoder's running time) is played: not when it is
    /// LATM preroll.
    public func playsDecodedAudio(at pts: Int64) -> Bool {
        prerollBefore.map { pts >= $0 } ?? true
    }

    /// Notes that a frame (`video`) or sound timed `pts` left the decoder at `runningTime`.
    public mutating func noteLateness(of pts: Int64, at runningTime: Int64, video: Bool) {
        lateness.note(runningTime - pts, video: video)
    }

    /// A timestamp shifted by `offset`, never below 0 (a pipeline's running time starts there);
    /// nil for nil.
    public static func shifted(_ time: Int64?, by offset: Int64) -> Int64? {
        time.map { max(0, $0 + offset) }
    }
}
