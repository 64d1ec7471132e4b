/// What a feed's machine needs to know of one entry of a channel's ingest (a GOP cache entry):
/// its track, whether it starts a GOP, and its time. Nothing else: no media.
public protocol FeedEntry: Sendable {
    var feedTrack: FeedTrack { get }
    var isKeyframe: Bool { get }
    /// Presentation time in nanoseconds; nil when unknown.
    var presentationNanoseconds: UInt64? { get }
}

public enum FeedTrack: Sendable, Hashable { case video, audio, subtitle }

/// One feed, from the flip that asks for it to its decoder playing live: what it holds until a
/// decoder takes it, when it asks for a decoder, when it shows its keyframe decoded on its own,
/// when a decoder must be swapped. Pure: every input returns the actions to carry out, in order,
/// and the shell (`LiveFeed` in the head-end) carries them out; no clock, no tasks, no locks.
///
/// The rules, as a cold flip meets them:
/// - Before the first keyframe, video is dropped and the last second of audio is held (it may
///   play from the keyframe on). A radio channel starts at any sound.
/// - From the keyframe on, everything is held. The decoder is asked for at once when the sound's
///   format is known (audio came, or the ingest has no audio); else the feed waits for the first
///   sound, `audioWait` at most, and meanwhile has its keyframe decoded on its own and shown.
/// - A decoder built for the feed starts (`decoderReady`) at once, or once the keyframe decoded on
///   its own is out (`earlyPictureOver`) or the first-picture deadline passed: its backlog and the
///   held entries are pushed keyframe first, then it is fed live.
/// - Live, a keyframe in another video format, a sound the decoder does not decode, or a failed
///   decoder has the feed hold from that keyframe (radio: that sound) and ask for a new decoder.
/// A warm feed starts with its decoder at once (its cached GOP is the backlog).
public struct FeedMachine<Entry: FeedEntry>: Sendable {
    /// A decoder bound to the feed, by number (the shell maps numbers to decoders): a failure
    /// report of an older decoder than the one bound is stale and ignored.
    public typealias Decoder = Int

    /// What the shell knows of an entry that the machine cannot: asked of the cache and of the
    /// bound decoder just before the entry is given.
    public struct Facts: Sendable, Hashable {
        /// The channel has no video (the cache knows it): any sound starts a feed.
        public var radio: Bool
        /// The ingest has an audio stream at all.
        public var hasAudioStream: Bool
        /// The bound decoder decodes only sound (it swaps at a sound, having no keyframes).
        public var decoderIsRadio: Bool
        /// Why the bound decoder cannot take this entry: a keyframe in another video format
        /// ("the picture changed to HEVC"), a sound it does not decode ("the sound changed to
        /// AC-3"); nil when it can, or when no decoder is bound.
        public var videoChange: String?
        public var audioChange: String?
        /// The entry carries its stream's format (every video keyframe; the first sound after a
        /// change; a subtitle stream's first page).
        public var carriesFormat: Bool

        public init(radio: Bool = false, hasAudioStream: Bool = true, decoderIsRadio: Bool = false,
                    videoChange: String? = nil, audioChange: String? = nil, carriesFormat: Bool = false) {
            self.radio = radio
            self.hasAudioStream = hasAudioStream
            self.decoderIsRadio = decoderIsRadio
            self.videoChange = videoChange
            self.audioChange = audioChange
            self.carriesFormat = carriesFormat
        }
    }

    public enum Input: Sendable {
        /// An entry of the ingest, live, with what the shell knows of it.
        case entry(Entry, Facts)
        /// `audioWait` passed since the keyframe came without the sound's format.
        case audioWaitOver
        /// A decoder was built and bound for the feed; `backlog` is a warm flip's cached GOP.
        /// `afterEarlyPicture`: it starts once the keyframe decoded on its own is out (or the
        /// first-picture deadline passed), so the two do not share the processor meanwhile.
        case decoderReady(Decoder, backlog: [Entry], afterEarlyPicture: Bool)
        /// No decoder could be built: hold from the next keyframe and ask again.
        case decoderUnavailable
        /// The decoder stopped with an error: a new one starts at the next keyframe.
        case decoderFailed(Decoder)
        /// The keyframe began to be decoded on its own, its picture came out, or that decode
        /// finished (with or without one).
        case earlyPictureBegan
        case earlyPictureOut
        case earlyPictureOver
        /// The first-picture deadline of decoder `Decoder` passed.
        case firstPictureDeadline(Decoder)
        /// The feed goes on from elsewhere (the timeshift buffer), or ends.
        case suspend
        case cancel
    }

    public enum Action: Sendable {
        /// Push a live entry to the bound decoder.
        case forward(Entry)
        /// Push these to decoder `Decoder`, in order, before anything live: it takes the feed.
        case start(Decoder, [Entry])
        /// Ask for a decoder (the head-end reads the formats and builds or takes one).
        case requestDecoder
        /// Give `audioWaitOver` after `audioWait`.
        case armAudioWait
        /// Give `firstPictureDeadline(decoder)` after `firstPictureWait`.
        case armFirstPictureDeadline(Decoder)
        /// Have the held keyframe decoded on its own for the screen.
        case decodeEarlyPicture
        /// Show the keyframe's picture decoded on its own (no decoder has taken the feed yet).
        case presentEarlyPicture
        /// Replace the decoder: the feed holds from `at` (a keyframe; radio: a sound).
        case swapDecoder(at: Entry, reason: String)
        /// A subtitle stream's first page reached the bound decoder.
        case subtitleStreamAppeared
    }

    /// How long a cold feed waits for the audio format after its first keyframe.
    public static var audioWait: Duration { .milliseconds(300) }
    /// How long a decoder waits for the keyframe decoded on its own at most.
    public static var firstPictureWait: Duration { .milliseconds(80) }

    private enum Phase: Sendable {
        /// No decoder: holding.
        case holding
        /// Decoder ready, waiting for the early picture (or its deadline) before it starts.
        case starting(Decoder, backlog: [Entry])
        /// Fed live.
        case live(Decoder)
        /// Suspended or cancelled: nothing more.
        case ended
    }

    private var phase = Phase.holding
    private var warm: Bool
    private var held: [Entry] = []
    private var haveKeyframe = false
    private var sawAudio: Bool
    private var audioWaitArmed = false
    private var requested = false
    /// Set when the decoder failed or the sound changed codec: swap at the next keyframe.
    private var renewReason: String?
    /// The last video entry a decoder got (where a paused picture stopped).
    public private(set) var lastVideo: Entry?
    /// Whether the keyframe's picture was shown before a decoder took the feed, and whether its
    /// decode is over.
    public private(set) var showedEarlyPicture = false
    private var earlyOver = true

    /// `warm`: the feed starts from a cached GOP (its decoder comes at once). `audioKnown`: the
    /// cache already had the sound's format when the feed attached.
    public init(warm: Bool, audioKnown: Bool) {
        self.warm = warm
        self.sawAudio = audioKnown
    }

    /// The decoder fed live, if any.
    public var liveDecoder: Decoder? {
        if case .live(let d) = phase { return d }
        return nil
    }

    /// Whether the feed ended (suspended or cancelled).
    public var hasEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// What a cold feed holds from its first keyframe on (empty before it).
    public var heldFromKeyframe: [Entry] { Array(held.drop { !$0.isKeyframe }) }

    public mutating func step(_ input: Input) -> [Action] {
        switch input {
        case .entry(let entry, let facts): return receive(entry, facts)
        case .audioWaitOver:
            guard case .holding = phase, !requested else { return [] }
            requested = true
            return [.requestDecoder]
        case .decoderReady(let decoder, let backlog, let afterEarly):
            guard !hasEnded else { return [] }
            if afterEarly && !earlyOver {
                phase = .starting(decoder, backlog: backlog)
                return [.armFirstPictureDeadline(decoder)]
            }
            return start(decoder, backlog: backlog)
        case .decoderUnavailable:
            guard !hasEnded else { return [] }
            phase = .holding
            held = []
            warm = false
            haveKeyframe = false
            requested = false
            return []
        case .decoderFailed(let failed):
            if case .live(let d) = phase, d == failed, renewReason == nil { renewReason = "its decoder failed" }
            return []
        case .earlyPictureBegan:
            earlyOver = false
            return []
        case .earlyPictureOut:
            switch phase {
            case .holding, .starting:
                // No decoder has taken the feed (one may wait for this picture): shown.
                showedEarlyPicture = true
                return [.presentEarlyPicture] + earlyPictureOver()
            case .live, .ended:
                // A decoder took the feed: its own frames come, never after this one.
                return earlyPictureOver()
            }
        case .earlyPictureOver:
            return earlyPictureOver()
        case .firstPictureDeadline(let decoder):
            guard case .starting(let d, let backlog) = phase, d == decoder else { return [] }
            return start(decoder, backlog: backlog)
        case .suspend, .cancel:
            phase = .ended
            held = []
            return []
        }
    }

    private mutating func earlyPictureOver() -> [Action] {
        earlyOver = true
        guard case .starting(let decoder, let backlog) = phase else { return [] }
        return start(decoder, backlog: backlog)
    }

    /// Decoder `decoder` takes the feed: the backlog and what is held, keyframe first (the
    /// decoder times everything from it; audio held from before it follows and plays if it is
    /// not older).
    private mutating func start(_ decoder: Decoder, backlog: [Entry]) -> [Action] {
        var ordered = backlog + held
        if let k = ordered.firstIndex(where: \.isKeyframe), k > 0 {
            ordered.insert(ordered.remove(at: k), at: 0)
        }
        if let video = ordered.last(where: { $0.feedTrack == .video }) { lastVideo = video }
        held = []
        phase = .live(decoder)
        return [.start(decoder, ordered)]
    }

    private mutating func receive(_ entry: Entry, _ facts: Facts) -> [Action] {
        switch phase {
        case .ended:
            return []
        case .live:
            return forward(entry, facts)
        case .holding, .starting:
            break
        }
        if entry.feedTrack == .audio { sawAudio = true }
        // A radio channel starts at any sound.
        let radioStart = entry.feedTrack == .audio && facts.radio
        if !warm && !haveKeyframe && !entry.isKeyframe && !radioStart {
            // Before the first keyframe: keep the last second of audio, drop video.
            if entry.feedTrack == .audio {
                held.append(entry)
                if let pts = entry.presentationNanoseconds, let first = held.first?.presentationNanoseconds,
                   pts > first, pts - first > 1_000_000_000 {
                    held.removeFirst()
                }
            }
            return []
        }
        if entry.isKeyframe || radioStart { haveKeyframe = true }
        held.append(entry)
        guard !warm, !requested, case .holding = phase else { return [] }
        if sawAudio || !facts.hasAudioStream {
            requested = true
            return [.requestDecoder]
        }
        guard !audioWaitArmed else { return [] }
        audioWaitArmed = true
        // The keyframe came before the sound: its picture is shown while the decoder waits.
        return [.armAudioWait, .decodeEarlyPicture]
    }

    /// Live: forward, or hold from here and ask for a new decoder.
    private mutating func forward(_ entry: Entry, _ facts: Facts) -> [Action] {
        if entry.feedTrack == .audio, let change = facts.audioChange, renewReason == nil {
            renewReason = change
        }
        var swapReason: String?
        if entry.isKeyframe, facts.carriesFormat {
            swapReason = facts.videoChange ?? renewReason
        } else if facts.decoderIsRadio, entry.feedTrack == .audio {
            // Radio has no keyframes: a new decoder takes over at the next sound.
            swapReason = renewReason
        }
        if let swapReason {
            phase = .holding
            renewReason = nil
            held = [entry]
            warm = true  // what follows is held whole until the new decoder takes it
            return [.swapDecoder(at: entry, reason: swapReason)]
        }
        if entry.feedTrack == .video { lastVideo = entry }
        var actions: [Action] = [.forward(entry)]
        if entry.feedTrack == .subtitle, facts.carriesFormat { actions.append(.subtitleStreamAppeared) }
        return actions
    }
}
