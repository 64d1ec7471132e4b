import Foundation
import GStreamer
import Headend
import Lineup
import Output

/// The interactive overlays: the info banner, picture-in-picture and the multiview.
///
/// State lives in `screen` (`ScreenOverlays`, lock-guarded); pictures are rendered on a queue of
/// their own (SVG rendering and scaling block), and land on the output only if no newer request
/// (a hide, a close, a flip) came meanwhile.
extension Player {
    // MARK: Info banner

    /// How long the banner stays after a flip: `options.bannerSeconds`, else the lineup's
    /// `banner-seconds`, else 4 s. Zero: no banner after flips (`i` and the API still show it,
    /// until dismissed).
    public nonisolated var bannerDuration: Duration {
        let seconds = options.bannerSeconds ?? lineup.settings["banner-seconds"].flatMap(Double.init) ?? 4
        return .milliseconds(Int64(max(0, seconds) * 1000))
    }

    /// Shows the banner for the channel on screen, for `seconds` (nil: `bannerDuration`; 0, or a
    /// zero `bannerDuration`: until dismissed).
    @discardableResult
    public func showBanner(seconds: Double? = nil) -> BannerStatus {
        guard let index = currentChannelIndex else { return bannerStatus() }
        let duration = seconds.map { Duration.milliseconds(Int64(max(0, $0) * 1000)) } ?? bannerDuration
        presentBanner(channel: index, duration: duration > .zero ? duration : nil)
        return BannerStatus(shown: true, channel: ChannelSummary(lineup.channels[index]))
    }

    /// Takes the banner down (a key, the API).
    @discardableResult
    public func hideBanner() -> BannerStatus {
        let screen = self.screen, output = self.output
        screen.lock.withLock {
            screen.bannerGeneration += 1
            screen.bannerShown = false
            screen.bannerResume = false
            output.setLayer(.banner, [])
        }
        return bannerStatus()
    }

    /// `i`: shows the banner, or takes it down when it is up.
    @discardableResult
    public func toggleBanner() -> BannerStatus {
        screen.lock.withLock { screen.bannerShown } ? hideBanner() : showBanner()
    }

    public func bannerStatus() -> BannerStatus {
        BannerStatus(shown: screen.lock.withLock { screen.bannerShown }, channel: machine.current.map { ChannelSummary(lineup.channels[$0]) })
    }

    /// A flip starts: the banner goes (it names the old channel) and comes back with the new one.
    func bannerFlipStarted() {
        let screen = self.screen, output = self.output
        screen.lock.withLock {
            screen.bannerGeneration += 1
            if screen.bannerShown {
                screen.bannerResume = true
                screen.bannerShown = false
                output.setLayer(.banner, [])
            }
        }
    }

    /// A flip completed (from `deliver`): remembers the last channel, shows the banner.
    func overlaysAfterFlip(_ result: FlipResult) {
        guard let number = result.channel.flatMap({ ChannelNumber($0.number) }), let index = lineup.index(of: number) else { return }
        screen.flipped(to: index)
        let resume = screen.lock.withLock {
            defer { screen.bannerResume = false }
            return screen.bannerResume
        }
        let duration = bannerDuration
        if duration > .zero {
            presentBanner(channel: index, duration: duration)
        } else if resume {
            presentBanner(channel: index, duration: nil)
        }
    }

    private func presentBanner(channel index: Int, duration: Duration?) {
        let screen = self.screen, output = self.output, logoCache = self.logoCache
        let generation = screen.lock.withLock {
            screen.bannerGeneration += 1
            screen.bannerShown = true
            return screen.bannerGeneration
        }
        let channel = lineup.channels[index]
        Task {
            let logoPath: String? = if let logo = channel.logo { try? await logoCache.localPath(for: logo) } else { nil }
            let on = self.nowNext(channel)
            let guide = on.now.map {
                BannerContent.Guide(now: "\(ProgrammeSummary.time($0.start))–\(ProgrammeSummary.time($0.end))  \($0.title)",
                                    next: on.next.map { "\(ProgrammeSummary.time($0.start))  \($0.title)" },
                                    progress: on.progress(at: Date()))
            }
            let content = BannerContent(number: channel.number.description, name: channel.name, group: channel.group,
                                        logoPath: logoPath, clock: BannerContent.clock(), guide: guide)
            let overlay = await Self.render { try InfoBanner.overlay(content, width: output.width, height: output.height) }
            let shown = screen.lock.withLock { () -> Bool in
                guard screen.bannerGeneration == generation else { return false }
                guard let overlay else {
                    screen.bannerShown = false
                    return false
                }
                output.setLayer(.banner, [overlay])
                return true
            }
            guard shown, let duration else { return }
            try? await Task.sleep(for: duration)
            screen.lock.withLock {
                guard screen.bannerGeneration == generation else { return }
                screen.bannerShown = false
                output.setLayer(.banner, [])
            }
        }
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
            let current = currentChannelIndex ?? 0
            let known = self.screen.lock.withLock { self.screen.pipChannel ?? self.screen.previousChannel }
            index = known ?? (current + 1) % lineup.channels.count
        }
        closeMultiview()
        let screen = self.screen, output = self.output
        let (window, placement) = screen.lock.withLock { () -> (PictureInPictureWindow, PictureInPicturePlacement) in
            if let corner { screen.pipPlacement.corner = corner }
            if let size { screen.pipPlacement = PictureInPicturePlacement(corner: screen.pipPlacement.corner, size: size) }
            let window = screen.pipWindow ?? PictureInPictureWindow(output: output, placement: screen.pipPlacement)
            screen.pipWindow = window
            return (window, screen.pipPlacement)
        }
        do {
            try await window.configure(placement)
        } catch {
            throw OverlayError(.failed, "cannot build the picture-in-picture window: \(error)")
        }
        if screen.lock.withLock({ screen.pipChannel == index && screen.pipFeed != nil }) { return pipStatus() }
        return try await tunePiP(index)
    }

    /// Flips the picture-in-picture window on its own (it opens if closed).
    public func tunePiP(number: ChannelNumber) async throws(OverlayError) -> PiPStatus {
        guard let index = lineup.index(of: number) else { throw OverlayError(.unknownChannel, "there is no channel \(number)") }
        if screen.lock.withLock({ screen.pipFeed == nil }) { return try await openPiP(number: number) }
        return try await tunePiP(index)
    }

    /// Starts `index` in the window; the previous PiP decoder stops once the new one runs (the
    /// window keeps the old picture until the first new frame, never black).
    private func tunePiP(_ index: Int) async throws(OverlayError) -> PiPStatus {
        if isLocked(lineup.channels[index].number) {
            throw OverlayError(.locked, "channel \(lineup.channels[index].number) \(lineup.channels[index].name) is locked")
        }
        let screen = self.screen
        let (generation, window) = screen.lock.withLock { () -> (Int, PictureInPictureWindow?) in
            screen.pipGeneration += 1
            return (screen.pipGeneration, screen.pipWindow)
        }
        guard let window else { throw OverlayError(.notOpen, "the picture-in-picture window is closed") }
        let channel = lineup.channels[index]
        let feed: UInt
        do {
            feed = try await headend.activate(channel, sink: window) { feed, _ in window.show(feed: feed) }.feed
        } catch {
            throw OverlayError(.failed, "cannot show channel \(channel.number) \(channel.name) in the window: \(error)")
        }
        let stale: UInt? = screen.lock.withLock {
            guard screen.pipGeneration == generation else {
                // Closed or retuned meanwhile: this decoder is not wanted.
                if let current = screen.pipFeed { window.show(feed: current) } else { window.close() }
                return feed
            }
            defer {
                screen.pipFeed = feed
                screen.pipChannel = index
                // The newest tune wins, whatever order the activations' `prepare` ran in.
                window.show(feed: feed)
            }
            return screen.pipFeed
        }
        if let stale { await headend.deactivate(feed: stale) }
        return pipStatus()
    }

    /// Swaps the main picture and the window: the main output flips to the window's channel (warm:
    /// from its cached keyframe, within an output frame or two, the old picture staying until then)
    /// and the window takes the main channel. Returns the main flip's result.
    public func swapPiP() async throws(OverlayError) -> FlipResult {
        guard let pip = screen.lock.withLock({ screen.pipFeed == nil ? nil : screen.pipChannel }) else {
            throw OverlayError(.notOpen, "there is no picture-in-picture window to swap with; open one with p")
        }
        guard let main = currentChannelIndex else { throw OverlayError(.notOpen, "no channel is on screen yet") }
        let number = lineup.channels[pip].number
        let flip = Task { await self.flip(.tune(number)) }
        _ = try await tunePiP(main)
        return await flip.value
    }

    /// Closes the window and stops its decoder.
    @discardableResult
    public func closePiP() async -> PiPStatus {
        let screen = self.screen
        let feed: UInt? = screen.lock.withLock {
            screen.pipGeneration += 1
            defer {
                screen.pipFeed = nil
                screen.pipChannel = nil
            }
            // Nothing to take down when no window is open.
            if screen.pipFeed != nil { screen.pipWindow?.close() }
            return screen.pipFeed
        }
        if let feed { await headend.deactivate(feed: feed) }
        return pipStatus()
    }

    /// `p`: opens the window with the last channel, or closes it.
    @discardableResult
    public func togglePiP() async throws(OverlayError) -> PiPStatus {
        if screen.lock.withLock({ screen.pipFeed != nil }) { return await closePiP() }
        return try await openPiP()
    }

    public nonisolated func pipStatus() -> PiPStatus {
        screen.lock.withLock {
            PiPStatus(open: screen.pipFeed != nil, channel: screen.pipChannel.map { ChannelSummary(lineup.channels[$0]) },
                      corner: screen.pipPlacement.corner.rawValue, size: screen.pipPlacement.size)
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
        guard MultiviewGrid.grids.contains(grid) else {
            throw OverlayError(.badValue, "grid must be 2, 3 or 4 (a 2x2, 3x3 or 4x4 mosaic)")
        }
        await closePiP()
        closeGuide()
        let current = currentChannelIndex ?? 0
        let perPage = grid * grid
        let first = (current / perPage) * perPage
        let count = min(perPage, lineup.channels.count - first)
        let screen = self.screen
        let generation = screen.lock.withLock {
            screen.multiviewGeneration += 1
            screen.multiview = ScreenOverlays.Multiview(grid: grid, first: first, count: count, highlight: current)
            return screen.multiviewGeneration
        }
        Task { [weak self] in
            while screen.lock.withLock({ screen.multiviewGeneration == generation }) {
                guard let self else { return }
                await self.refreshMultiview(generation)
                try? await Task.sleep(for: Self.multiviewRefresh)
            }
        }
        return multiviewStatus()
    }

    /// Closes the multiview (the picture underneath never stopped).
    @discardableResult
    public func closeMultiview() -> MultiviewStatus {
        let screen = self.screen, output = self.output
        screen.lock.withLock {
            guard screen.multiview != nil else { return }
            screen.multiviewGeneration += 1
            screen.multiview = nil
            output.setCover(nil)
        }
        return multiviewStatus()
    }

    /// `m`: opens a 3x3 multiview (or `grid`), or closes it.
    @discardableResult
    public func toggleMultiview(grid: Int = 3) async throws(OverlayError) -> MultiviewStatus {
        if screen.lock.withLock({ screen.multiview != nil }) { return closeMultiview() }
        return try await openMultiview(grid: grid)
    }

    /// Moves the highlight (wrapping around the grid).
    @discardableResult
    public func moveMultiview(_ move: MultiviewMove) throws(OverlayError) -> MultiviewStatus {
        let screen = self.screen
        let moved = screen.lock.withLock { () -> Bool in
            guard var mv = screen.multiview else { return false }
            mv.highlight = Self.moved(mv.highlight - mv.first, move, grid: mv.grid, count: mv.count) + mv.first
            screen.multiview = mv
            return true
        }
        guard moved else { throw OverlayError(.notOpen, "the multiview is not open; open it with m") }
        drawMultiview(screen.lock.withLock { screen.multiviewGeneration })
        return multiviewStatus()
    }

    /// Cell `i` moved once in a `grid` of `count` cells, wrapping.
    public static func moved(_ i: Int, _ move: MultiviewMove, grid: Int, count: Int) -> Int {
        let rows = (count + grid - 1) / grid
        var (row, column) = (i / grid, i % grid)
        switch move {
        case .up: row = (row - 1 + rows) % rows
        case .down: row = (row + 1) % rows
        case .left: column = (column - 1 + grid) % grid
        case .right: column = (column + 1) % grid
        }
        return min(count - 1, row * grid + column)
    }

    /// Enter: tunes the highlighted channel and closes the multiview.
    public func selectMultiview() async throws(OverlayError) -> FlipResult {
        guard let highlight = screen.lock.withLock({ screen.multiview?.highlight }) else {
            throw OverlayError(.notOpen, "the multiview is not open; open it with m")
        }
        closeMultiview()
        return await flip(.tune(lineup.channels[highlight].number))
    }

    public nonisolated func multiviewStatus() -> MultiviewStatus {
        screen.lock.withLock {
            guard let mv = screen.multiview else { return MultiviewStatus(open: false, grid: 0, channels: [], highlight: nil) }
            return MultiviewStatus(open: true, grid: mv.grid,
                                   channels: (mv.first..<(mv.first + mv.count)).map { ChannelSummary(lineup.channels[$0]) },
                                   highlight: ChannelSummary(lineup.channels[mv.highlight]))
        }
    }

    /// Takes each channel's latest picture, then draws.
    private func refreshMultiview(_ generation: Int) async {
        guard let mv = self.screen.lock.withLock({ self.screen.multiviewGeneration == generation ? self.screen.multiview : nil }) else { return }
        let width = MultiviewGrid.tileWidth(grid: mv.grid, width: output.width, height: output.height)
        let channels = Array(lineup.channels[mv.first..<(mv.first + mv.count)])
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
        let screen = self.screen
        screen.lock.withLock {
            guard screen.multiviewGeneration == generation else { return }
            screen.multiview?.tiles = tiles
        }
        drawMultiview(generation)
    }

    /// Renders the grid as it stands and puts it on the output, unless a newer draw landed first.
    private func drawMultiview(_ generation: Int) {
        let screen = self.screen, output = self.output
        guard let (mv, draw) = screen.lock.withLock({ () -> (ScreenOverlays.Multiview, Int)? in
            guard screen.multiviewGeneration == generation, let mv = screen.multiview else { return nil }
            screen.multiviewDraws += 1
            return (mv, screen.multiviewDraws)
        }) else { return }
        Task {
            let frame = await Self.render {
                try MultiviewGrid.frame(tiles: mv.tiles, grid: mv.grid, highlight: mv.highlight - mv.first, format: output.videoFormat)
            }
            screen.lock.withLock {
                guard let frame, screen.multiviewGeneration == generation, screen.multiview != nil, draw > screen.multiviewLanded else { return }
                screen.multiviewLanded = draw
                output.setCover(frame)
            }
        }
    }

    /// Closes the overlays and stops the window's scaler (from `shutdown`).
    func shutdownOverlays() async {
        closeMultiview()
        await closePiP()
        await screen.lock.withLock { screen.pipWindow }?.shutdown()
    }

    // MARK: Helpers

    /// The lineup index of the channel on screen.
    var currentChannelIndex: Int? {
        machine.current
    }

    private static var overlayQueue: DispatchQueue { overlayRenderQueue }

    /// Runs blocking rendering on the overlay queue (not the cooperative pool, not the media thread).
    static func render<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> T? {
        await withCheckedContinuation { continuation in
            overlayQueue.async { continuation.resume(returning: try? work()) }
        }
    }
}

private let overlayRenderQueue = DispatchQueue(label: "flipbox-overlays")
