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
        var counts: [ChannelDecoder.Codec: Int] = [:]
        for source in sources {
            switch source.state {
            case .warm, .hot: break
            default: continue
            }
            let video = source.cache.videoCaps
            guard video != nil || source.cache.isAudioOnly else { continue }
            let codec = ChannelDecoder.Codec(video: source.cache.isAudioOnly ? nil : video, audio: chosenAudio(source).caps)
            counts[codec, default: 0] += 1
        }
        if counts.isEmpty { return [.common] }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.description < $1.key.description }
            .prefix(Self.maxSpares).map(\.key)
    }

    /// A spare that can play `codec`, taken out of the spares; nil when none is ready.
    func takeSpare(serving codec: ChannelDecoder.Codec) -> ChannelDecoder? {
        guard let i = spares.firstIndex(where: { $0.codec.serves(codec) }) else { return nil }
        return spares.remove(at: i)
    }

    /// Builds the next missing spare 250 ms from now, unless one is on its way.
    func scheduleSpares() {
        guard !spareScheduled, !isShutDown, somethingMissing else { return }
        spareScheduled = true
        Task {
            try? await Task.sleep(for: .milliseconds(250))
            self.buildSpare()
        }
    }

    /// Whether a spare decoder or a first-picture decoder is still to be built.
    private var somethingMissing: Bool { missingSpare() != nil || missingFirstPicture() != nil }

    private func missingSpare() -> ChannelDecoder.Codec? {
        wantedSpareCodecs().first { wanted in !spareFailures.contains(wanted) && !spares.contains { $0.codec.serves(wanted) } }
    }

    /// A video family the running channels use whose flips would gain from a first-picture
    /// decoder that is not built yet.
    private func missingFirstPicture() -> VideoFamily? {
        wantedSpareCodecs().lazy.map(\.video).first { family in
            family.hasReorderDelay && firstPictures[family] == nil && !firstPictureFailures.contains(family)
        }
    }

    private func buildFirstPicture(_ family: VideoFamily) {
        do {
            firstPictures[family] = try FirstPictureDecoder(family: family, target: target, logger: logger)
            logger.debug("first-picture \(family.displayName) decoder ready")
        } catch {
            logger.warning("cannot prepare a first-picture \(family.displayName) decoder (flips to such channels show their first picture a little later): \(error)")
            firstPictureFailures.insert(family)
        }
    }

    private func buildSpare() {
        spareScheduled = false
        guard !isShutDown else { return }
        // Spare decoders first (a flip without one waits for a whole pipeline), then one
        // first-picture decoder per family.
        guard let codec = missingSpare() else {
            if let family = missingFirstPicture() {
                buildFirstPicture(family)
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
