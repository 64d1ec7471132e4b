import FlipboxCore
import Foundation
import GStreamer
import MediaFormats

/// The subtitles a decoder draws into its picture, so they come and go with the channel's own
/// frames and never reach another channel's: DVB subtitle pages of the chosen stream go to
/// `dvbsuboverlay`, the closed captions the video carries (`ccextractor` ahead of the decoder)
/// to `cc708overlay` (CEA-608 text, decoded here, to a `textoverlay`), the chosen teletext
/// page's text (`teletextdec`, in a branch of its own while shown) to a `textoverlay`, and the
/// cues of a WebVTT rendition to a `textoverlay` of their own, set frame by frame from the cue
/// that covers the frame's time. All pass frames through untouched while off (the default).
///
/// Only a decoder with video has them. Where data goes on the picture's timeline is the
/// decoder's `PlayoutClock`'s to say: the decoder asks it, under its own lock, and hands the
/// answer in (`Placement`, the cue's source time). Its own lock is taken after the decoder's,
/// never before, and nothing here calls back into the decoder.
final class DecoderSubtitles: @unchecked Sendable {
    /// A branch decoding one teletext page, and the number that tells its text from that of the
    /// branches before it.
    private typealias TeletextBranch = (bin: Bin, source: AppSource, generation: Int)
    /// Which caption overlay draws.
    private typealias CaptionOverlays = (cc708: Bool, cc608: Bool)

    private let pipeline: Pipeline
    /// The DVB pages' way into `dvbsuboverlay`.
    private let pageSource: AppSource
    private let lock = NSLock()
    /// The subtitles drawn (`show`).
    private var shown: SubtitleTrack?
    /// The newest page of each DVB subtitle stream, so a stream chosen later shows at once.
    private var newestPages: [Int: GOPCache.Entry] = [:]
    /// CEA-608 captions (CC1) as decoded so far, and whether the video carries CEA-708 services
    /// (then `cc708overlay` draws them and the 608 text stays hidden).
    private var captions608 = CEA608Screen()
    private var carries708 = false
    /// The branch decoding the teletext page shown (nil while none is).
    private var teletext: TeletextBranch?
    private var teletextGeneration = 0
    /// What of each teletext stream a page chosen later is built from (each page's newest
    /// transmission and the newest entries).
    private var recentTeletext: [Int: TeletextRetention<GOPCache.Entry>] = [:]
    /// The cues of the WebVTT track shown, and the text on screen now.
    private var webVTT: WebVTTSubtitles?
    private var webVTTText = ""

    /// The decoder pipeline's part ahead of its video sink: the overlays, all off at first; the
    /// caps after them make them blend (an overlay would otherwise hand its drawing on as meta
    /// that the output does not draw).
    static let overlays =
        "dvbsuboverlay name=subtitles enable=false ! cc708overlay name=captions silent=true ! "
        + "textoverlay name=captions608 silent=true wait-text=false valignment=bottom halignment=center line-alignment=left "
        + "font-desc=\"Monospace 18\" shaded-background=true ! "
        + "textoverlay name=teletext silent=true wait-text=false valignment=bottom halignment=center line-alignment=center "
        + "font-desc=\"Sans Bold 18\" shaded-background=true ! "
        + "textoverlay name=webvtt silent=true wait-text=false valignment=bottom halignment=center line-alignment=center "
        + "font-desc=\"Sans 20\" shaded-background=true ! video/x-raw"

    /// The decoder pipeline's sources of the overlays: DVB pages (`ssrc`), and the captions
    /// `ccextractor` (named `ccx`, ahead of the video decoder) finds.
    static let sources = """
        appsrc name=ssrc format=time is-live=true min-latency=0 caps=subpicture/x-dvb ! subtitles.text_sink \
        queue name=ccq max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! captions.cc_sink
        """

    /// Takes the overlays and sources of `pipeline` (built with `overlays` and `sources`) and
    /// reads the captions of the frames going into its video appsrc `vsrc`; nil when they are
    /// not all there.
    init?(pipeline: Pipeline) {
        guard let pages = pipeline.appSource(named: "ssrc"), let extractor = pipeline.child(named: "ccx"),
              let captionQueue = pipeline.child(named: "ccq") else { return nil }
        self.pipeline = pipeline
        pageSource = pages
        // The extractor adds its caption pad with the first captions the video carries.
        extractor.onPadAdded { pad in try? pad.link(to: captionQueue) }
        // CEA-608 captions are read from the frames going in (`cc708overlay` draws only 708).
        pipeline.child(named: "vsrc")?.staticPad("src")?.onBuffer { [weak self] buffer in
            let triplets = buffer.captionTriplets
            if !triplets.isEmpty { self?.takeCaptions(triplets) }
        }
    }

    /// The subtitles drawn.
    var shownTrack: SubtitleTrack? { lock.withLock { shown } }

    /// Whether a subtitle entry is teletext: EBU data in PES (ETSI EN 300 472) opens with a
    /// data identifier 0x10-0x1F; DVB subtitles with 0x20.
    static func isTeletext(_ entry: GOPCache.Entry) -> Bool {
        entry.buffer.withBytes { $0.first.map { (0x10...0x1F).contains($0) } } == true
    }

    /// Whether the element named `name` belongs to a teletext branch (its errors stop that
    /// branch, not the decoder).
    static func isTeletextElement(_ name: String) -> Bool { name.hasPrefix("ttx") }

    /// Takes a subtitle entry of the channel (the decoder's lock held, so entries keep their
    /// order): keeps it for a stream chosen later, and pushes it when its stream shows.
    /// `placed`: where the decoder's clock places it on the picture's timeline; `runningTime`:
    /// the decoder's now.
    func take(_ entry: GOPCache.Entry, placed: PlayoutClock.Placement?, runningTime: Int64?) {
        lock.withLock {
            if Self.isTeletext(entry) {
                recentTeletext[entry.stream, default: TeletextRetention()].take(entry, headers: TeletextHeader.headers(in: entry.buffer.bytes()))
                if case .teletext(_, entry.stream) = shown?.kind { pushTeletextLocked(entry, placed: placed, runningTime: runningTime) }
                return
            }
            newestPages[entry.stream] = entry
            if shown?.kind == .dvb, shown?.index == entry.stream { pushPageLocked(entry, placed: placed) }
        }
    }

    /// Draws `track` from now on (nil: none; media thread): DVB stream `track.index`, a teletext
    /// page, the closed captions, or a WebVTT rendition whose cues `cues` has. A DVB stream shows
    /// its newest page at once (while its time-out lasts); a teletext page as soon as what was
    /// kept of its stream completes it; a WebVTT cue from the next frame on. `timing` gives the
    /// decoder's clock and running time as they are once the choice is set up (where kept data
    /// goes). Returns why a teletext page cannot be decoded, nil when it can (or none is asked
    /// for).
    func show(_ track: SubtitleTrack?, webVTT cues: WebVTTSubtitles?, timing: () -> (PlayoutClock, Int64?)) -> String? {
        pipeline.child(named: "subtitles")?.set("enable", track?.kind == .dvb)
        // A teletext page is decoded by a fresh branch (a decoder of its own page and stream,
        // without what it held of another), fed with what was kept of its stream.
        let (stale, generation) = lock.withLock {
            let stale = teletext
            teletext = nil
            teletextGeneration += 1
            return (stale, teletextGeneration)
        }
        if let stale { pipeline.removeStopped(stale.bin) }
        let overlay = pipeline.child(named: "teletext")
        overlay?.set("text", string: "")
        overlay?.set("silent", track?.page == nil)
        var fresh: TeletextBranch?
        var problem: String?
        if case .teletext(let page, _) = track?.kind {
            do { fresh = try addTeletextBranch(page: page, generation: generation) } catch { problem = "\(error)" }
        }
        let (clock, runningTime) = timing()
        func placed(_ entry: GOPCache.Entry) -> PlayoutClock.Placement? { entry.pts.nanoseconds.flatMap(clock.placeOnPicture) }
        let overlays = lock.withLock {
            shown = track
            webVTT = track?.kind == .webVTT ? cues : nil
            if let track, track.kind == .dvb, let page = newestPages[track.index] { pushPageLocked(page, placed: placed(page)) }
            if let fresh, case .teletext(_, let stream) = track?.kind, teletextGeneration == generation {
                teletext = fresh
                for entry in recentTeletext[stream]?.kept ?? [] {
                    pushTeletextLocked(entry, placed: placed(entry), runningTime: runningTime)
                }
            }
            return captionOverlays
        }
        showCaptions(overlays)
        return problem
    }

    /// Takes the teletext branch out and hides its text (media thread); the choice stays, and
    /// showing it again builds a new branch.
    func stopTeletext() {
        let stale = lock.withLock {
            defer { teletext = nil; teletextGeneration += 1 }
            return teletext
        }
        pipeline.child(named: "teletext")?.set("silent", true)
        if let stale { pipeline.removeStopped(stale.bin) }
    }

    /// Sets the WebVTT overlay's text to the cue at `source`, the source time of the frame about
    /// to be drawn (streaming thread, before the overlay draws it; nil: the decoder has no
    /// timing yet); silent when no cue shows.
    func showCue(at source: Int64?) {
        let change: String?? = lock.withLock {
            var text = ""
            if let webVTT, let track = shown, let source, source >= 0 {
                text = webVTT.text(track: track.index, at: ClockTime(nanoseconds: source)) ?? ""
            }
            guard text != webVTTText else { return nil }
            webVTTText = text
            return .some(text.isEmpty ? nil : text)
        }
        guard let change, let overlay = pipeline.child(named: "webvtt") else { return }
        if let text = change { overlay.set("text", string: text) }
        overlay.set("silent", change == nil)
    }

    /// Adds and starts a branch that decodes teletext page `page` (`888`) to text and shows it
    /// in the `teletext` overlay while `generation` is the newest (media thread).
    private func addTeletextBranch(page: Int, generation: Int) throws -> TeletextBranch {
        let bin = try pipeline.addBranch("""
            appsrc name=ttxsrc format=time is-live=true min-latency=0 caps=\(GOPCache.teletextMediaType) ! \
            teletextdec name=ttxdec page=\(min(max(page, 100), 899)) subtitles-mode=true ! text/x-raw,format=utf-8 ! \
            appsink name=ttxout sync=true async=false qos=false max-buffers=8
            """)
        guard let source = bin.appSource(named: "ttxsrc"), let out = bin.appSink(named: "ttxout") else {
            pipeline.removeStopped(bin)
            throw GStreamerError(.pipelineDescription, "internal: teletext branch incomplete")
        }
        // One line of text per row of the page (the default template writes a backslash and an n).
        bin.child(named: "ttxdec")?.set("subtitles-template", string: "%s\n")
        out.onSample { [weak self] sample in
            guard let self, let text = sample.buffer?.bytes() else { return }
            let shown = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard self.lock.withLock({ self.teletext?.generation == generation }) else { return }
            self.pipeline.child(named: "teletext")?.set("text", string: shown)
        }
        bin.syncStateWithParent()
        return (bin, source, generation)
    }

    /// Pushes a DVB subtitle page on the picture's timeline (lock held): as far from the newest
    /// frame as the source has it (`PlayoutClock.placeOnPicture`). A page more than a second
    /// before that frame is stale (or from before a jump in the source's clock) and dropped; one
    /// more than a second after it (a jump the picture has not made yet) shows now. A page held
    /// back in the overlay's queue would hold every later page behind it.
    private func pushPageLocked(_ page: GOPCache.Entry, placed: PlayoutClock.Placement?) {
        guard let pts = page.pts.nanoseconds, case .at(let at) = placed else { return }
        pageSource.push(page.retimed(by: at - pts))
    }

    /// Pushes teletext data to the shown page's branch on the picture's timeline (lock held): as
    /// far from the newest frame as the source has it (so with the frame of its moment, or at
    /// once when that frame has played or never will: kept data fed to a new branch); data more
    /// than a second before that frame (or before a jump in the source's clock) is due at once,
    /// and data more than a second after it with that frame. What is due at once goes in the
    /// order it came, so the page on screen ends up the newest one sent.
    private func pushTeletextLocked(_ entry: GOPCache.Entry, placed: PlayoutClock.Placement?, runningTime: Int64?) {
        guard let branch = teletext, let placed else { return }
        let at: Int64 = switch placed {
        case .past: runningTime ?? 0
        case .at(let at): at
        }
        branch.source.push(entry.buffer.retimed(pts: ClockTime(nanoseconds: at), dts: .none))
    }

    /// Decodes the CEA-608 pairs of one frame's `cc_data` (streaming thread) and shows the text
    /// they leave on screen; notes CEA-708 service data.
    private func takeCaptions(_ triplets: [UInt8]) {
        let (text, overlays): (String?, CaptionOverlays?) = lock.withLock {
            let before = captions608.text, had708 = carries708
            if captions608.take(ccData: triplets) { carries708 = true }
            let after = captions608.text
            return (after == before ? nil : after, carries708 == had708 ? nil : captionOverlays)
        }
        if let text { pipeline.child(named: "captions608")?.set("text", string: text) }
        if let overlays { showCaptions(overlays) }
    }

    /// Which caption overlay draws (lock held): none unless captions are chosen; CEA-708 when
    /// the video carries it, else the CEA-608 text.
    private var captionOverlays: CaptionOverlays {
        let on = shown?.kind == .closedCaptions
        return (on, on && !carries708)
    }

    private func showCaptions(_ overlays: CaptionOverlays) {
        pipeline.child(named: "captions")?.set("silent", !overlays.cc708)
        pipeline.child(named: "captions608")?.set("silent", !overlays.cc608)
    }
}
