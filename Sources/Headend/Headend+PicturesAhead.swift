import FlipboxCore
import Foundation
import GStreamer

/// Pictures decoded ahead for the flips a viewer is most likely to make next: channel up, channel
/// down and back to the last channel. For each of those channels the keyframe a flip would start
/// from is decoded as soon as it is cached (one `FirstPictureDecoder` per video family, apart from
/// the ones flips use), so a flip there shows its first picture at once, whatever the codec, and
/// the channel's decoder starts behind it. Nothing else is decoded: the cost is one keyframe per
/// GOP for each of at most three channels (an HEVC 10-bit 720p keyframe takes about 25 ms of a
/// core, every 2 s), and one picture at the output's size for each.
extension Headend {
    /// The channels a flip is likely to go to next (plan positions, see `PlanSpace`): the neighbours of
    /// `current` (wrapping, as channel up and down do) and `last`; never `current`.
    static func likelyNext(current: Int?, last: Int?, count: Int) -> [Int] {
        guard let current, count > 1 else { return [] }
        var likely = [(current + 1) % count, (current + count - 1) % count]
        if let last, last != current, last < count { likely.append(last) }
        var seen = Set<Int>()
        return likely.filter { $0 != current && seen.insert($0).inserted }
    }

    /// Has the newest keyframe of each channel next in line decoded, and drops the pictures of
    /// channels no longer next in line (media thread). Runs on every flip (the channels next in
    /// line change), whenever one of them caches a newer keyframe to start from (their caches
    /// call back), when a decoder is free again, and on the once-a-second plan check (a channel
    /// that turned warm).
    func refreshPicturesAhead() {
        guard !isShutDown else { return }
        let (lineup, sources) = (self.lineup, self.sources)
        let space = PlanSpace(lineup: lineup, keeping: Set([around?.current].compactMap { $0 }))
        let likely = Self.likelyNext(current: around?.current.flatMap(space.position), last: around?.last.flatMap(space.position),
                                     count: space.slots.count).map { space.slots[$0] }
        picturesAhead = picturesAhead.filter { likely.contains($0.key) }
        aheadTried = aheadTried.filter { likely.contains($0.key) }
        watchStartKeyframes(of: Set(likely))
        for index in likely {
            let source = sources[index]
            guard source.state == .warm, let (keyframe, caps) = source.cache.startKeyframe() else { continue }
            // Each keyframe is tried once (one that gives no picture is not tried again).
            if picturesAhead[index]?.keyframe === keyframe.buffer || aheadTried[index] === keyframe.buffer { continue }
            let family = VideoFamily(caps: caps)
            guard let decoder = aheadDecoder(for: family), decoder.isReady else { continue }
            let key = keyframe.buffer
            aheadTried[index] = key
            _ = decoder.decode(key, more: [], caps: caps, deliver: { [weak self] picture in
                self?.onMediaThread { $0.keepAhead(picture, of: key, channel: index) }
            }, finished: {})
        }
    }

    private func keepAhead(_ picture: Buffer, of keyframe: Buffer, channel index: Int) {
        guard aheadTried[index] === keyframe else { return }
        picturesAhead[index] = (keyframe, picture)
    }

    /// The decoder for `family`'s pictures ahead, built when first needed; nil for a family it
    /// cannot decode alone (or whose decoder could not be built).
    private func aheadDecoder(for family: VideoFamily) -> FirstPictureDecoder? {
        guard family != .none, family != .other, !aheadFailures.contains(family) else { return nil }
        if let built = aheadDecoders[family] { return built }
        do {
            let built = try FirstPictureDecoder(family: family, target: target, logger: logger)
            // Ready again: the next channel waiting for this family's decoder goes now, not at
            // the next check (flipping up at key-repeat speed, the next HEVC picture is needed
            // within 150 ms).
            built.whenReady { [weak self] in self?.onMediaThread { $0.refreshPicturesAhead() } }
            aheadDecoders[family] = built
            return built
        } catch {
            logger.warning("cannot prepare a \(family.displayName) decoder for the channels next in line (flips there show their first picture a little later): \(error)")
            aheadFailures.insert(family)
            return nil
        }
    }

    /// The picture decoded ahead of `source`'s keyframe `keyframe`, if there is one.
    func pictureAhead(of source: ChannelSource, keyframe: Buffer) -> Buffer? {
        guard let index = sources.firstIndex(where: { $0 === source }), let ahead = picturesAhead[index],
              ahead.keyframe === keyframe else { return nil }
        return ahead.picture
    }

    /// Has the keyframe `initial` starts with decoded on its own, for `decoder`'s first picture
    /// (media thread); the feed's machine is told when the decode begins and when it is over
    /// (the picture is out, or the first-picture decoder finished without one), so a decoder
    /// ready with `afterEarlyPicture` gets its GOP then, or after `firstPictureWait` at the
    /// latest: the two do not share the processor while the picture the viewer waits for is
    /// decoded. Returns false, and nothing is decoded, when its family gains nothing or its
    /// first-picture decoder is busy. `live`: the frames after the keyframe are still to arrive
    /// (a cold flip), so every family gains (an MPEG-2 decoder gives its keyframe out with the
    /// next reference frame, 1-3 frame periods later live).
    func decodeFirstPicture(feed: LiveFeed, for decoder: ChannelDecoder, videoCaps: Caps, from initial: [GOPCache.Entry],
                            live: Bool) -> Bool {
        let format = PictureFormat(caps: videoCaps)
        guard format.family.hasReorderDelay || live, let first = firstPictureDecoder(for: format),
              let keyframe = initial.first, keyframe.track == .video, keyframe.isKeyframe else { return false }
        let id = feed.feed
        feed.earlyPictureBegins()
        let began = first.decode(keyframe.buffer, more: Self.secondField(of: initial), caps: videoCaps, deliver: { [weak decoder] picture in
            decoder?.showFirstPicture(picture, feed: id)
            feed.earlyPictureOver()
        }, finished: { feed.earlyPictureOver() })
        if !began { feed.earlyPictureOver() }
        return began
    }

    /// The second field of the keyframe `entries` start with, when the frame was sent as two field
    /// pictures (the second has no time of its own, or the keyframe's); else none.
    static func secondField(of entries: [GOPCache.Entry]) -> [Buffer] {
        guard let keyframe = entries.first, let second = entries.dropFirst().first(where: { $0.track == .video }),
              !second.isKeyframe, !second.pts.isValid || second.pts == keyframe.pts else { return [] }
        return [second.buffer]
    }

    /// Shows the first keyframe of the cold feed `feed` decoded on its own while its decoder
    /// waits for the sound's format (the keyframe came first: MPEG-TS muxers send sound in
    /// packets of a few hundred milliseconds), when a first-picture decoder of its format is
    /// ready (media thread). The flip completes with this picture; the decoder starts from the
    /// same keyframe.
    func showEarlyPicture(feed: FeedID) {
        guard let pendingFeed = pending[feed], let entry = decoders[feed], entry.decoder == nil,
              let caps = entry.source.cache.videoCaps else { return }
        _ = showEarlyPicture(feed: feed, from: pendingFeed.heldFromKeyframe(), caps: caps)
    }

    /// Has the keyframe `start` begins with decoded on its own, its picture shown through the
    /// feed's `LiveFeed` unless the decoder took the feed before it was out (media thread).
    /// False, and nothing is decoded, for a sink of its own size, without a ready first-picture
    /// decoder of the format, or without a keyframe.
    func showEarlyPicture(feed: FeedID, from start: [GOPCache.Entry], caps: Caps) -> Bool {
        guard let pendingFeed = pending[feed], let sink = pendingFeed.sink,
              sink.frameSize.map({ $0 == (target.width, target.height) }) ?? true,
              let keyframe = start.first, keyframe.track == .video, keyframe.isKeyframe,
              let first = firstPictureDecoder(for: PictureFormat(caps: keyframe.caps ?? caps)) else { return false }
        pendingFeed.earlyPictureBegins()
        let began = first.decode(keyframe.buffer, more: Self.secondField(of: start), caps: keyframe.caps ?? caps,
                                 deliver: { picture in pendingFeed.presentEarly(picture) },
                                 finished: { pendingFeed.earlyPictureOver() })
        if !began { pendingFeed.earlyPictureOver() }
        return began
    }

    /// A ready first-picture decoder for `format`: its own, else one of its family.
    private func firstPictureDecoder(for format: PictureFormat) -> FirstPictureDecoder? {
        if let own = firstPictures[format], own.isReady { return own }
        return firstPictures.first { $0.key.family == format.family && $0.value.isReady }?.value
    }


    /// Has the caches of `channels` (lineup positions), and of no others, report a newer keyframe
    /// to start from: its picture is decoded as soon as it is cached, not at a later check.
    private func watchStartKeyframes(of channels: Set<Int>) {
        for index in aheadWatched.subtracting(channels) { sources[index].cache.onStartKeyframeChange(nil) }
        for index in channels.subtracting(aheadWatched) {
            sources[index].cache.onStartKeyframeChange { [weak self] in
                self?.onMediaThread { $0.refreshPicturesAhead() }
            }
        }
        aheadWatched = channels
    }

    /// Stops decoding ahead (shut down; media thread).
    func stopPicturesAhead() {
        watchStartKeyframes(of: [])
        picturesAhead = [:]
        aheadTried = [:]
        for decoder in aheadDecoders.values { decoder.shutdown() }
        aheadDecoders = [:]
    }
}
