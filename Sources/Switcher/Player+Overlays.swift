import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Output

/// The interactive overlays: the info banner, picture-in-picture and the multiview.
///
/// Each has a pure machine (`BannerMachine`, `PiPMachine`, `MultiviewMachine`) that decides;
/// this file carries out what they return, in order, on the player's actor. Renders run on the
/// render queue as jobs under their purpose (`.banner`, `.multiviewDraw`...): a newer render
/// replaces one under way, and a render that was replaced or cancelled (a hide, a close, a
/// flip) never lands, because landing happens on the actor and checks `Task.isCancelled`.
extension Player {
    // MARK: Info banner

    /// How long the banner stays after a flip: `options.bannerSeconds`. Zero: no banner after
    /// flips (`i` and the API still show it, until dismissed).
    public nonisolated var bannerDuration: Duration { Self.bannerDuration(options: options) }

    static func bannerDuration(options: PlayerOptions) -> Duration {
        .milliseconds(Int64(max(0, options.bannerSeconds) * 1000))
    }

    /// Shows the banner for the channel on screen, for `seconds` (nil: `bannerDuration`; 0, or a
    /// zero `bannerDuration`: until dismissed); `long`: the long form, with the programme's
    /// description.
    @discardableResult
    public func showBanner(seconds: Double? = nil, long: Bool = false) -> BannerStatus {
        guard let index = currentChannelIndex else { return bannerStatus() }
        let hold = seconds.map { Duration.milliseconds(Int64(max(0, $0) * 1000)) } ?? bannerDuration
        carryOut(banner.show(channel: index, hold: hold, long: long))
        return bannerStatus()
    }

    /// Takes the banner down (a key, the API).
    @discardableResult
    public func hideBanner() -> BannerStatus {
        carryOut(banner.hide())
        return bannerStatus()
    }

    /// `i`: shows the banner; again, its long form (when the programme on has a description);
    /// then takes it down.
    @discardableResult
    public func toggleBanner() -> BannerStatus {
        guard let index = currentChannelIndex else { return hideBanner() }
        let described = !(nowNext(lineup.channels[index]).now?.description ?? "").isEmpty
        carryOut(banner.cycle(channel: index, hold: bannerDuration, longHasMore: described))
        return bannerStatus()
    }

    public func bannerStatus() -> BannerStatus {
        BannerStatus(shown: banner.shown, channel: machine.current.map { ChannelSummary(lineup.channels[$0]) },
                     form: banner.shown ? (banner.long ? .long : .short) : nil)
    }

    /// A flip starts: the banner goes (it names the old channel) and comes back with the new one.
    func bannerFlipStarted() {
        carryOut(banner.flipStarted())
    }

    /// A flip completed (from `deliver`): the banner comes up for the new channel.
    func overlaysAfterFlip(_ result: FlipResult) {
        guard let number = result.channel.flatMap({ ChannelNumber($0.number) }), let index = lineup.index(of: number) else { return }
        carryOut(banner.flipCompleted(channel: index))
    }

    private func carryOut(_ actions: [BannerMachine.Action]) {
        for action in actions {
            switch action {
            case .present(let channel, let hold, let long):
                startJob(.banner) { await $0.presentBanner(channel: channel, hold: hold, long: long) }
            case .takeDown:
                cancelJob(.banner)
                output.setLayer(.banner, [])
            }
        }
    }

    /// The banner job: renders, puts it up, and takes it down after `hold`.
    private func presentBanner(channel index: Int, hold: Duration?, long: Bool) async {
        let channel = lineup.channels[index]
        let output = self.output
        let logoPath: String? = if let logo = channel.logo { try? await logoCache.localPath(for: logo) } else { nil }
        let on = nowNext(channel)
        let guide = on.now.map {
            BannerContent.Guide(now: "\(ProgrammeSummary.time($0.start))–\(ProgrammeSummary.time($0.end))  \($0.title)",
                                next: on.next.map { "\(ProgrammeSummary.time($0.start))  \($0.title)" },
                                progress: on.progress(at: Date()), rating: $0.rating, description: $0.description)
        }
        let content = BannerContent(number: channel.number.description, name: channel.name, group: channel.group,
                                    logoPath: logoPath, clock: BannerContent.clock(), guide: guide, long: long)
        let overlay = await Self.render { try InfoBanner.overlay(content, width: output.width, height: output.height) }
        guard !Task.isCancelled else { return }
        guard let overlay else {
            banner.renderFailed()
            return
        }
        output.setLayer(.banner, [overlay])
        guard let hold else { return }
        try? await Task.sleep(for: hold)
        guard !Task.isCancelled else { return }
        carryOut(banner.holdEnded())
    }

    // MARK: Picture-in-picture

    /// Opens (or moves, resizes, retunes) the picture-in-picture window: channel `number` (nil:
    /// the channel already in the window, else the last channel, else the next one), in `corner`,
    /// `size` wide (a fraction of the output width). The channel decodes in a decoder of its own
    /// (one extra decode); its sound is not played. Closes the multiview.
    public func openPiP(number: ChannelNumber? = nil, corner: PictureInPicturePlacement.Corner? = nil,
                        size: Double? = nil) async throws(OverlayError) -> PiPStatus {
        if let size, !PictureInPicturePlacement.sizes.contains(size) {
            throw OverlayError(.badValue, "size must be from \(PictureInPicturePlacement.sizes.lowerBound) to \(PictureInPicturePlacement.sizes.upperBound) of the output width")
        }
        let index: Int
        if let number {
            guard let i = lineup.index(of: number) else { throw OverlayError(.unknownChannel, "there is no channel \(number)") }
            index = i
        } else {
            index = pip.channel ?? machine.previous ?? listedSlot((currentChannelIndex.flatMap(listedPosition) ?? -1) + 1)
        }
        closeMultiview()
        if let corner { pip.placement.corner = corner }
        if let size { pip.placement = PictureInPicturePlacement(corner: pip.placement.corner, size: size) }
        let window = pipWindow ?? PictureInPictureWindow(output: output, placement: pip.placement)
        pipWindow = window
        do {
            try await window.configure(pip.placement)
        } catch {
            throw OverlayError(.failed, "cannot build the picture-in-picture window: \(error)")
        }
        if pip.isOpen, pip.channel == index { return pipStatus() }
        return try await tunePiP(index)
    }

    /// Flips the picture-in-picture window on its own (it opens if closed).
    public func tunePiP(number: ChannelNumber) async throws(OverlayError) -> PiPStatus {
        guard let index = lineup.index(of: number) else { throw OverlayError(.unknownChannel, "there is no channel \(number)") }
        guard pip.isOpen else { return try await openPiP(number: number) }
        return try await tunePiP(index)
    }

    /// Starts `index` in the window; the previous PiP decoder stops once the new one runs (the
    /// window keeps the old picture until the first new frame, never black).
    private func tunePiP(_ index: Int) async throws(OverlayError) -> PiPStatus {
        if isLocked(lineup.channels[index].number) {
            throw OverlayError(.locked, "channel \(lineup.channels[index].number) \(lineup.channels[index].name) is locked")
        }
        guard let window = pipWindow else { throw OverlayError(.notOpen, "the picture-in-picture window is closed") }
        let channel = lineup.channels[index]
        let request = pip.tune(index)
        // The window takes the new feed's frames from its first (it keeps the old picture until then).
        let feed = FeedID.next()
        let before = window.shownFeed
        window.show(feed: feed)
        do {
            _ = try await headend.activate(channel, feed: feed, sink: window, role: .window("picture-in-picture"))
        } catch {
            if let before, window.shownFeed == feed { window.show(feed: before) }
            await carryOut(pip.failed(request: request))
            throw OverlayError(.failed, "cannot show channel \(channel.number) \(channel.name) in the window: \(error)")
        }
        await carryOut(pip.activated(request: request, feed: feed))
        return pipStatus()
    }

    /// Swaps the main picture and the window: the main output flips to the window's channel (warm:
    /// from its cached keyframe, within an output frame or two, the old picture staying until then)
    /// and the window takes the main channel. Returns the main flip's result.
    public func swapPiP() async throws(OverlayError) -> FlipResult {
        guard pip.isOpen, let inWindow = pip.channel else {
            throw OverlayError(.notOpen, "there is no picture-in-picture window to swap with; open one with p")
        }
        guard let main = currentChannelIndex else { throw OverlayError(.notOpen, "no channel is on screen yet") }
        let number = lineup.channels[inWindow].number
        async let flip = self.flip(.tune(number))
        _ = try await tunePiP(main)
        return await flip
    }

    /// Closes the window and stops its decoder.
    @discardableResult
    public func closePiP() async -> PiPStatus {
        await carryOut(pip.close())
        return pipStatus()
    }

    /// `p`: opens the window with the last channel, or closes it.
    @discardableResult
    public func togglePiP() async throws(OverlayError) -> PiPStatus {
        if pip.isOpen { return await closePiP() }
        return try await openPiP()
    }

    public func pipStatus() -> PiPStatus {
        PiPStatus(open: pip.isOpen, channel: pip.isOpen ? pip.channel.map { ChannelSummary(lineup.channels[$0]) } : nil,
                  corner: pip.placement.corner.rawValue, size: pip.placement.size)
    }

    /// Carries out the window's actions in order; a stopped decoder is stopped before this returns.
    private func carryOut(_ actions: [PiPMachine.Action]) async {
        for action in actions {
            switch action {
            case .show(let feed): pipWindow?.show(feed: feed)
            case .closeWindow: pipWindow?.close()
            case .stop(let feed): await headend.deactivate(feed: feed)
            }
        }
    }

    // MARK: Multiview

    /// How often the multiview's pictures are refreshed (each channel's picture changes at most once per keyframe).
    public static var multiviewRefresh: Duration { .seconds(1) }

    /// Opens the multiview: a `grid` x `grid` mosaic of the page of channels holding the current
    /// one, highlighted. Pictures are the channels' latest keyframes (`Thumbnailer`: one keyframe
    /// decode per channel per GOP, nothing decodes continuously), refreshed every second. Closes
    /// the picture-in-picture window.
    @discardableResult
    public func openMultiview(grid: Int) async throws(OverlayError) -> MultiviewStatus {
        guard MultiviewMachine.grids.contains(grid) else {
            throw OverlayError(.badValue, "grid must be 2, 3 or 4 (a 2x2, 3x3 or 4x4 mosaic)")
        }
        await closePiP()
        closeGuide()
        carryOut(multiview.open(grid: grid, current: currentChannelIndex.flatMap(listedPosition) ?? 0, channelCount: lineup.listed.count))
        return multiviewStatus()
    }

    /// Closes the multiview (the picture underneath never stopped).
    @discardableResult
    public func closeMultiview() -> MultiviewStatus {
        carryOut(multiview.close())
        return multiviewStatus()
    }

    /// `m`: opens a 3x3 multiview (or `grid`), or closes it.
    @discardableResult
    public func toggleMultiview(grid: Int = 3) async throws(OverlayError) -> MultiviewStatus {
        if multiview.isOpen { return closeMultiview() }
        return try await openMultiview(grid: grid)
    }

    /// Moves the highlight (wrapping around the grid).
    @discardableResult
    public func moveMultiview(_ move: MultiviewMove) throws(OverlayError) -> MultiviewStatus {
        guard let actions = multiview.move(move) else { throw OverlayError(.notOpen, "the multiview is not open; open it with m") }
        carryOut(actions)
        return multiviewStatus()
    }

    /// Enter: tunes the highlighted channel and closes the multiview.
    public func selectMultiview() async throws(OverlayError) -> FlipResult {
        guard let highlight = multiview.page?.highlight else {
            throw OverlayError(.notOpen, "the multiview is not open; open it with m")
        }
        closeMultiview()
        return await flip(.tune(lineup.channels[listedSlot(highlight)].number))
    }

    public func multiviewStatus() -> MultiviewStatus {
        guard let page = multiview.page else { return MultiviewStatus(open: false, grid: 0, channels: [], highlight: nil) }
        return MultiviewStatus(open: true, grid: page.grid, channels: page.channels.map { ChannelSummary(lineup.channels[listedSlot($0)]) },
                               highlight: ChannelSummary(lineup.channels[listedSlot(page.highlight)]))
    }

    private func carryOut(_ actions: [MultiviewMachine.Action]) {
        for action in actions {
            switch action {
            case .startRefreshing:
                startJob(.multiviewRefresh) { player in
                    while !Task.isCancelled {
                        await player.refreshMultiview()
                        try? await Task.sleep(for: Self.multiviewRefresh)
                    }
                }
            case .stopRefreshing:
                cancelJob(.multiviewRefresh)
                cancelJob(.multiviewDraw)
            case .draw(let page):
                startJob(.multiviewDraw) { await $0.drawMultiview(page) }
            case .uncover:
                output.setCover(nil)
            }
        }
    }

    /// Takes each channel's latest picture, then hands them to the machine (from the refresh job).
    private func refreshMultiview() async {
        guard let page = multiview.page else { return }
        let width = MultiviewGrid.tileWidth(grid: page.grid, width: output.width, height: output.height)
        let channels = page.channels.map { lineup.channels[listedSlot($0)] }
        let tiles = await withTaskGroup(of: (Int, MultiviewTile).self) { group in
            for (i, channel) in channels.enumerated() {
                group.addTask {
                    do {
                        let jpeg = try await self.thumbnail(number: channel.number, width: width).jpeg
                        return (i, MultiviewTile(number: channel.number.description, name: channel.name, jpeg: jpeg))
                    } catch {
                        if await self.isLocked(channel.number) {
                            return (i, MultiviewTile(number: channel.number.description, name: channel.name, jpeg: nil, note: "Locked"))
                        }
                        let state = self.headend.source(for: channel).map { "\($0.state)" } ?? "no source"
                        return (i, MultiviewTile(number: channel.number.description, name: channel.name, jpeg: nil,
                                                 note: String(state.prefix(40))))
                    }
                }
            }
            var all: [(Int, MultiviewTile)] = []
            for await t in group { all.append(t) }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
        guard !Task.isCancelled else { return }
        carryOut(multiview.refreshed(tiles))
    }

    /// The draw job: renders `page` and covers the output with it, unless replaced meanwhile.
    private func drawMultiview(_ page: MultiviewMachine.Page) async {
        let output = self.output
        let frame = await Self.render {
            try MultiviewGrid.frame(tiles: page.tiles, grid: page.grid, highlight: page.highlight - page.first, format: output.videoFormat)
        }
        guard !Task.isCancelled, multiview.isOpen, let frame else { return }
        output.setCover(frame)
    }

    /// Closes the overlays and stops the window's scaler (from `shutdown`).
    func shutdownOverlays() async {
        closeMultiview()
        await closePiP()
        await pipWindow?.shutdown()
    }

    // MARK: Helpers

    /// The lineup index of the channel on screen.
    var currentChannelIndex: Int? {
        machine.current
    }

    /// Runs blocking rendering (SVG, text, scaling) on the still-image thread: not the
    /// cooperative pool, not the media thread. A flip's card goes before it (InterstitialCards).
    static func render<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> T? {
        await StillImageExecutor.shared.perform { try? work() }
    }
}
