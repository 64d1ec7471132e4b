import FlipboxCore
import Foundation
import GStreamer

/// Spare decoders: idle decoder pipelines, built and PLAYING, one per codec family the warm
/// channels use (H.264/AAC, MPEG-2/MP2, H.264/AC-3, HEVC/AAC, radio...), so a warm flip to any
/// of them binds a ready decoder instead of building one (about 15 ms, more for a family whose
/// decoder loads a library). Built one at a time a moment after a flip (so a build never
/// competes with that flip's first frame) and on the once-a-second plan check.
extension Headend {
    /// Most spare decoders kept at once (each holds two idle streaming threads and no decoded
    /// frame): enough for the seven families of a broadcast lineup (H.264 with AAC, AC-3 and
    /// E-AC-3, HEVC, MPEG-2/MP2, radio in MP2 and in LATM).
    static let maxSpares = 8

    /// The families to keep spares for: those of the running channels whose format is known,
    /// the most used first, at most `maxSpares`; H.264/AAC while nothing is known.
    func wantedSpareCodecs() -> [ChannelDecoder.Codec] {
        let wanted = mostUsed(limit: Self.maxSpares) { source -> ChannelDecoder.Codec? in
            let video = source.cache.videoCaps
            guard video != nil || source.cache.isAudioOnly else { return nil }
            return ChannelDecoder.Codec(video: source.cache.isAudioOnly ? nil : video, audio: chosenAudio(source).caps)
        }
        return wanted.isEmpty ? [.common] : wanted
    }

    /// What `key` says of the running (warm or hot) channels, the most frequent first (ties by
    /// name), at most `limit`; channels it gives nil for are left out. With `stoppedToo`, what it
    /// says of the other channels follows (a channel's stream format stays known once seen).
    func mostUsed<Key: Hashable & CustomStringConvertible>(limit: Int, stoppedToo: Bool = false, _ key: (ChannelSource) -> Key?) -> [Key] {
        var running: [Key: Int] = [:], stopped: [Key: Int] = [:]
        for source in sources {
            switch source.state {
            case .warm, .hot: if let k = key(source) { running[k, default: 0] += 1 }
            default: if stoppedToo, let k = key(source) { stopped[k, default: 0] += 1 }
            }
        }
        func ranked(_ counts: [Key: Int]) -> [Key] {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.description < $1.key.description }.map(\.key)
        }
        let first = ranked(running)
        return Array((first + ranked(stopped).filter { !first.contains($0) }).prefix(limit))
    }

    /// A spare that can play `codec`, taken out of the spares; nil when none is ready.
    func takeSpare(serving codec: ChannelDecoder.Codec) -> ChannelDecoder? {
        guard let i = spares.firstIndex(where: { $0.codec.serves(codec) }) else { return nil }
        return spares.remove(at: i)
    }

    /// Shuts every spare decoder down (the head-end stops; the next plan check builds them again
    /// for a head-end that goes on).
    func dropSpares() {
        for spare in spares { spare.shutdown() }
        spares = []
    }

    /// Builds the next missing spare 250 ms from now, unless one is on its way.
    func scheduleSpares() {
        guard !spareScheduled, !isShutDown, somethingMissing else { return }
        spareScheduled = true
        onMediaThread(after: .milliseconds(250)) { $0.buildSpare() }
    }

    /// Has the colour tables of each wide-gamut or HDR colorimetry the channels carry built in
    /// the background, once each, so that no decoder's first frame waits for them. On the plan
    /// check, not on a flip: it reads every channel's caps.
    func prepareColourTables() {
        for source in sources {
            guard let caps = source.cache.videoCaps, let colour = DecodeTarget.remapSource(of: caps),
                  colourTablesAsked.insert(colour).inserted else { continue }
            ColourRemap.prepare(from: colour, to: target.colour) { [logger] remap in
                logger.debug("colour tables for \(remap.source) to \(remap.target) ready (built in \(remap.buildTime))")
            }
        }
    }

    /// Whether a spare decoder or a first-picture decoder is still to be built.
    private var somethingMissing: Bool { missingSpare() != nil || missingFirstPicture() != nil }

    private func missingSpare() -> ChannelDecoder.Codec? {
        wantedSpareCodecs().first { wanted in !spareFailures.contains(wanted) && !spares.contains { $0.codec.serves(wanted) } }
    }

    /// Most first-picture decoders kept at once (idle, each holds a streaming thread and, once
    /// used, one decoded picture's buffers).
    static let maxFirstPictureDecoders = 4

    /// The stream formats whose flips gain from a first-picture decoder (`PictureFormat`): of the
    /// running channels, the most used first, then of the channels seen before and stopped now
    /// (a cold flip there decodes its first keyframe on its own too), at most
    /// `maxFirstPictureDecoders`. MPEG-2 too: a warm flip there gains nothing (its decoder
    /// gives the keyframe out at once), but a flip whose decoder is still to be built does.
    func wantedPictureFormats() -> [PictureFormat] {
        mostUsed(limit: Self.maxFirstPictureDecoders, stoppedToo: true) { source in
            guard !source.cache.isAudioOnly, let caps = source.cache.videoCaps else { return nil }
            let format = PictureFormat(caps: caps)
            return format.family.decoderChain != nil && format.family != .other ? format : nil
        }
    }

    /// A stream format whose flips would gain from a first-picture decoder that is not built yet.
    private func missingFirstPicture() -> PictureFormat? {
        wantedPictureFormats().first { firstPictures[$0] == nil && !firstPictureFailures.contains($0.family) }
    }

    /// A channel's ingest plugged a parser for video of `family` (its first keyframe is yet to
    /// come): without a first-picture decoder of that family, one is built now, for any format
    /// of the family, so that a cold flip to the first channel of a family shows its keyframe
    /// decoded on its own too. (The one for the channel's own format follows with the spares,
    /// once the format is known.)
    func videoAnnounced(_ family: VideoFamily) {
        guard !isShutDown, family.decoderChain != nil, family != .other, !firstPictureFailures.contains(family),
              !firstPictures.keys.contains(where: { $0.family == family }) else { return }
        buildFirstPicture(PictureFormat(anyOf: family))
    }

    private func buildFirstPicture(_ format: PictureFormat) {
        let wanted = wantedPictureFormats()
        // Formats no channel uses any more make room.
        for (other, decoder) in firstPictures where !wanted.contains(other) && firstPictures.count >= Self.maxFirstPictureDecoders {
            decoder.shutdown()
            firstPictures[other] = nil
        }
        guard firstPictures.count < Self.maxFirstPictureDecoders else { return }
        do {
            firstPictures[format] = try FirstPictureDecoder(family: format.family, target: target, logger: logger)
            logger.debug("first-picture decoder for \(format) ready")
        } catch {
            logger.warning("cannot prepare a first-picture \(format.family.displayName) decoder (flips to such channels show their first picture a little later): \(error)")
            firstPictureFailures.insert(format.family)
        }
    }

    private func buildSpare() {
        spareScheduled = false
        guard !isShutDown else { return }
        // Spare decoders first (a flip without one waits for a whole pipeline), then one
        // first-picture decoder per stream format.
        guard let codec = missingSpare() else {
            if let format = missingFirstPicture() {
                buildFirstPicture(format)
                scheduleSpares()
            }
            return
        }
        let wanted = wantedSpareCodecs()
        // Families no channel uses any more make room.
        while spares.count >= Self.maxSpares, let i = spares.firstIndex(where: { s in !wanted.contains { s.codec.serves($0) } }) {
            spares.remove(at: i).shutdown()
        }
        guard spares.count < Self.maxSpares else { return }
        do {
            spares.append(try ChannelDecoder(codec: codec, target: target, logger: logger))
            logger.debug("spare \(codec) decoder ready")
        } catch {
            logger.warning("cannot prepare a spare \(codec) decoder: \(error)")
            spareFailures.insert(codec)
            return
        }
        scheduleSpares()
    }
}

extension Headend {
    /// The decoder playing `feed`, if it has one yet.
    func decoder(feed: FeedID) -> ChannelDecoder? { decoders[feed]?.decoder }
}
