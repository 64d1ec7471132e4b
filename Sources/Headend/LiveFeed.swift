import FlipboxCore
import Foundation
import GStreamer

extension GOPCache.Entry: FeedEntry {
    public var feedTrack: FeedTrack {
        switch track {
        case .video: .video
        case .audio: .audio
        case .subtitle: .subtitle
        }
    }

    public var presentationNanoseconds: UInt64? { pts.isValid ? UInt64(pts) : nil }
}

/// The shell of one feed's `FeedMachine`: a GOP cache consumer connected to a decoder that may
/// not exist yet. It gives the machine its inputs (the cache's entries, the head-end's decoder,
/// the early picture, the deadlines) and carries out its actions:
/// - pushes to the decoder (what the machine orders, in its order): a decoder's start under the
///   feed's lock, so no live entry overtakes its backlog; live entries on the ingest's thread;
/// - presenting the keyframe decoded on its own, under the lock, so it never follows one of the
///   decoder's frames;
/// - everything that needs the head-end (a decoder asked for or swapped, the early picture's
///   decode, a subtitle stream) and both deadlines run on the media thread, in the order the
///   machine gave them (`MediaExecutor.schedule`, FIFO), never from tasks of their own.
/// Any thread; the head-end's parts on the media thread.
final class LiveFeed: @unchecked Sendable {
    let feed: FeedID
    private let cache: GOPCache
    private weak var headend: Headend?
    private(set) weak var sink: DecodedFrameSink?
    private let lock = NSLock()
    private var machine: FeedMachine<GOPCache.Entry>
    /// The decoder the machine knows by `decoderNumber`, and the next number.
    private var decoder: ChannelDecoder?
    private var decoderNumber = 0
    /// The keyframe decoded on its own, while it waits to be presented.
    private var earlyPicture: Buffer?

    /// `audioKnown`: the cache already had the audio format when the feed attached.
    init(feed: FeedID, warm: Bool, cache: GOPCache, audioKnown: Bool, headend: Headend, sink: DecodedFrameSink) {
        self.feed = feed
        self.cache = cache
        self.headend = headend
        self.sink = sink
        machine = FeedMachine(warm: warm, audioKnown: audioKnown)
    }

    /// Ingest streaming thread, under the cache's delivery lock: forward, hold, or skip.
    func receive(_ entry: GOPCache.Entry) {
        let (actions, live) = lock.withLock {
            let live = machine.liveDecoder != nil ? decoder : nil
            // (An entry gives no action done under the lock: no start, no early picture.)
            var facts = FeedMachine<GOPCache.Entry>.Facts(radio: cache.isAudioOnly, hasAudioStream: cache.hasAudioStream,
                                                          carriesFormat: entry.caps != nil)
            if let live, let caps = entry.caps {
                facts.decoderIsRadio = live.isRadio
                if entry.track == .audio, !live.decodes(audio: caps, stream: entry.stream) {
                    facts.audioChange = "the sound changed to \(caps.mediaType)"
                }
                if entry.isKeyframe { facts.videoChange = live.change(toVideo: caps) }
            } else if let live {
                facts.decoderIsRadio = live.isRadio
            }
            return (machine.step(.entry(entry, facts)), live)
        }
        carryOut(actions, live: live)
    }

    /// A decoder was bound to the feed (media thread): it takes the feed now, or once the
    /// keyframe decoded on its own is out (`afterEarlyPicture`, `firstPictureWait` at most).
    func decoderReady(_ decoder: ChannelDecoder, backlog: [GOPCache.Entry], afterEarlyPicture: Bool) {
        step { feed in
            feed.decoderNumber += 1
            feed.decoder = decoder
            return .decoderReady(feed.decoderNumber, backlog: backlog, afterEarlyPicture: afterEarlyPicture)
        }
    }

    /// No decoder could be built for the current format: hold from the next keyframe and ask again.
    func decoderUnavailable() {
        step { feed in
            feed.decoder = nil
            return .decoderUnavailable
        }
    }

    /// The decoder `failed` stopped with an error: a new one starts at the next keyframe.
    func decoderFailed(_ failed: ChannelDecoder) {
        step { feed in
            guard feed.decoder === failed else { return nil }
            return .decoderFailed(feed.decoderNumber)
        }
    }

    /// A keyframe is about to be decoded on its own for the feed: a decoder ready meanwhile with
    /// `afterEarlyPicture` waits for it.
    func earlyPictureBegins() { step { _ in .earlyPictureBegan } }

    /// The keyframe decoded on its own (any thread): shown unless a decoder took the feed meanwhile.
    func presentEarly(_ picture: Buffer) {
        step { feed in
            feed.earlyPicture = picture
            return .earlyPictureOut
        }
    }

    /// The keyframe's decode on its own finished, with or without a picture (any thread).
    func earlyPictureOver() { step { _ in .earlyPictureOver } }

    /// Whether the keyframe's picture was shown before the decoder took the feed.
    var showedEarlyPicture: Bool { lock.withLock { machine.showedEarlyPicture } }

    /// What a cold feed holds from its first keyframe on (a copy); empty before that keyframe.
    func heldFromKeyframe() -> [GOPCache.Entry] { lock.withLock { machine.heldFromKeyframe } }

    /// Stops forwarding (the feed goes on from the timeshift buffer) and returns the last video
    /// entry the decoder got.
    func suspend() -> GOPCache.Entry? {
        lock.withLock {
            _ = machine.step(.suspend)
            decoder = nil
            return machine.lastVideo
        }
    }

    func cancel() {
        lock.withLock {
            _ = machine.step(.cancel)
            decoder = nil
            earlyPicture = nil
        }
    }

    /// Steps the machine with the input `make` gives (under the lock; nil: nothing) and carries
    /// out its actions.
    private func step(_ make: (LiveFeed) -> FeedMachine<GOPCache.Entry>.Input?) {
        let (actions, live) = lock.withLock {
            guard let input = make(self) else { return ([FeedMachine<GOPCache.Entry>.Action](), ChannelDecoder?.none) }
            // A decoder's start and the early picture are carried out in the same hold of the
            // lock as the step that gave them: no entry stepped after can be pushed before them.
            return (machine.step(input).filter(carryOutLocked), decoder)
        }
        carryOut(actions, live: live)
    }

    /// Carries out `action` if it is one done under the lock (the lock is held) and says whether
    /// it is left to do.
    private func carryOutLocked(_ action: FeedMachine<GOPCache.Entry>.Action) -> Bool {
        switch action {
        case .start(let number, let entries):
            if number == decoderNumber, let decoder {
                for e in entries { decoder.push(e) }
            }
            earlyPicture = nil  // the decoder's own frames come now
            return false
        case .presentEarlyPicture:
            if let picture = earlyPicture, let sink {
                earlyPicture = nil
                sink.presentVideo(picture, feed: feed)
            }
            return false
        default:
            return true
        }
    }

    /// Carries out `actions` in order, with the lock released.
    private func carryOut(_ actions: [FeedMachine<GOPCache.Entry>.Action], live: ChannelDecoder?) {
        for action in actions {
            switch action {
            case .forward(let entry):
                live?.push(entry, live: true)
            case .start, .presentEarlyPicture:
                break  // carried out under the lock
            case .armAudioWait:
                MediaExecutor.shared.schedule(after: FeedMachine<GOPCache.Entry>.audioWait) { [weak self] in
                    self?.step { _ in .audioWaitOver }
                }
            case .armFirstPictureDeadline(let number):
                MediaExecutor.shared.schedule(after: FeedMachine<GOPCache.Entry>.firstPictureWait) { [weak self] in
                    self?.step { _ in .firstPictureDeadline(number) }
                }
            case .requestDecoder:
                onMediaThread { headend, feed in headend.requestDecoder(for: feed) }
            case .decodeEarlyPicture:
                onMediaThread { headend, feed in headend.showEarlyPicture(feed: feed.feed) }
            case .swapDecoder(let entry, let reason):
                // The caps of a keyframe (a radio channel's swap, at a sound, has none).
                let video = entry.track == .video ? entry.caps : nil
                onMediaThread { headend, feed in headend.swapDecoder(feed: feed.feed, videoCaps: video, reason: reason) }
            case .subtitleStreamAppeared:
                onMediaThread { headend, feed in headend.subtitleStreamAppeared(feed: feed.feed) }
            }
        }
    }

    /// Runs `body` on the media thread, after what was scheduled before it, with the head-end's
    /// isolation (the media thread is its executor).
    private func onMediaThread(_ body: @escaping @Sendable (isolated Headend, LiveFeed) -> Void) {
        headend?.onMediaThread { [weak self] headend in
            guard let self else { return }
            body(headend, self)
        }
    }
}
