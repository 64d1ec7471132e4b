import Foundation
import GStreamer
import Lineup
import Logging
import Output
import Switcher
import TestSupport
import Testing

/// Cards on the real output, checked by the pixels of the snapshot.
@Suite(.serialized, .heavy) struct InterstitialTests {
    static let logger = Logger(label: "test")
    static let cardsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interstitials").path

    func makePlayer(_ channels: [(String, String)], timeout: Duration = .seconds(8), stateFile: String? = nil,
                    cards: String = Self.cardsDirectory, card: String? = nil, programmes: (any ProgrammeGuide)? = nil) throws -> Player {
        try GStreamer.initialize()
        let lineup = Lineup(channels: channels.enumerated().map { i, c in
            var channel = Channel(id: "c\(i + 1)", number: ChannelNumber(i + 1), name: c.0, sources: [c.1], group: "Tests")
            channel.interstitial = card
            return channel
        })
        var options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all, tuneTimeout: timeout,
                                    interstitials: cards, stateFile: stateFile)
        options.bannerSeconds = 0  // the pixels checked here are the card's and the messages', not the banner's
        return try Player(lineup: lineup, options: options, programmes: programmes, logger: Self.logger)
    }

    func snapshot(_ player: Player) async throws -> BGRAImage {
        try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
    }

    /// Columns of bright (near-white) pixels in rows `rows`: the extent of rendered text.
    /// (Not for red pictures: pure red has a luma of 76, so red stays dark here.)
    func brightColumns(_ image: BGRAImage, rows: ClosedRange<Int>) -> [Int] {
        var columns: Set<Int> = []
        for y in rows {
            for x in 0..<image.width {
                let p = image.rgba(x: x, y: y)
                // Luma, not each channel: thin white strokes pick up the background's colour
                // through 4:2:0 chroma subsampling.
                let luma = 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
                if luma > 170 { columns.insert(x) }
            }
        }
        return columns.sorted()
    }

    @Test func aSlowFlipShowsTheCardWithTheChannelNameThenThePicture() async throws {
        let port = Int.random(in: 41000...45000)
        let player = try makePlayer([
            ("Red", "test://color/ff0000?size=160x90&gop=15"),
            ("Slow Channel Two", "udp://127.0.0.1:\(port)"),
        ])
        let events = EventLog(player.events())
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })

        let flip = Task { await player.flip(.tune(ChannelNumber(2))) }
        // The 80 ms delay itself is the machine's rule (SwitcherMachineTests); here the card must
        // come up at all, which on a loaded machine (rendering the SVG) can take seconds.
        #expect(await events.waitFor(15) { if case .cardShown(_, let c, "tuning") = $0 { c.number == "2" } else { false } },
                "the card goes up when the channel has no picture after 80 ms")
        let card = try await snapshot(player)
        let corner = card.meanRGB(x: 4, y: 4, width: 24, height: 24)
        #expect(abs(corner.r - 20) < 7 && abs(corner.g - 33) < 7 && abs(corner.b - 61) < 7, "the default card's background, not the red channel: \(corner)")
        // The name line (y 470...515 of 720 in the template) holds a long centred line of white text.
        let name = brightColumns(card, rows: 232...258)
        #expect(name.count > 120, "the channel name is drawn (\(name.count) bright columns)")
        if let first = name.first, let last = name.last {
            #expect(first < 250 && last > 390, "centred and about 16 characters wide: \(first)...\(last)")
        }
        // The number line holds a short one.
        let number = brightColumns(card, rows: 180...208)
        #expect(!number.isEmpty && number.count < 60, "the number 2 is drawn: \(number.count) columns")

        // The source comes alive: its picture replaces the card and the flip completes.
        let sender = try BlueSender(port: port)
        defer { sender.stop() }
        let result = await flip.value
        // (Cold as a rule; warm when, under a parallel run's load, the activation came only after
        // the sender had started: the media thread is shared by every player of the run.)
        #expect(result.ok && result.interstitialShown, "\(result)")
        let picture = try await snapshot(player)
        let centre = picture.meanRGB(x: 300, y: 160, width: 40, height: 40)
        #expect(centre.b > 180 && centre.r < 60, "the channel's blue picture, no card: \(centre)")
        #expect(await events.contains { if case .cardHidden(let id, _) = $0 { id == result.requestID } else { false } })
        await player.shutdown()
    }

    /// Channel c2 has a programme on now (with a description and a rating) and one next; c3 has none.
    struct TwoProgrammes: ProgrammeGuide {
        let now: ProgrammeSummary, next: ProgrammeSummary
        func nowNext(channelID: String, at instant: Date) -> NowNext {
            channelID == "c2" ? NowNext(now: now, next: next) : .unknown
        }
    }

    /// The programme placeholders, one a line (design y of the baseline), in a card of their own.
    static let programmeLines: [(placeholder: String, baseline: Int)] = [
        ("now.title", 90), ("now.start", 180), ("now.end", 270), ("now.description", 360),
        ("now.rating", 450), ("next.title", 540), ("next.start", 630),
    ]

    @Test func cardTemplatesShowWhatIsOnNowAndNext() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-guide-card-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: Self.cardsDirectory + "/default.svg", toPath: dir.appendingPathComponent("default.svg").path)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="{{width}}" height="{{height}}" viewBox="0 0 1280 720">
            <rect width="1280" height="720" fill="#101018"/>

            """
        for line in Self.programmeLines {
            svg += "<text x=\"40\" y=\"\(line.baseline)\" font-family=\"DejaVu Sans\" font-size=\"36\" fill=\"#ffffff\">{{\(line.placeholder)}}</text>\n"
        }
        svg += "</svg>\n"
        try svg.write(to: dir.appendingPathComponent("programmes.svg"), atomically: true, encoding: .utf8)

        let start = Date().addingTimeInterval(-600)
        let guide = TwoProgrammes(
            now: ProgrammeSummary(title: "Evening News", start: start, end: start.addingTimeInterval(1800),
                                  description: "Storms in the north and a late goal in the derby", rating: "TV-PG"),
            next: ProgrammeSummary(title: "The Late Film", start: start.addingTimeInterval(1800), end: start.addingTimeInterval(7200)))
        let ports = (Int.random(in: 41000...43000), Int.random(in: 43001...45000))
        let player = try makePlayer([("Red", "test://color/ff0000?size=160x90&gop=15"),
                                     ("Silent Two", "udp://127.0.0.1:\(ports.0)"), ("Silent Three", "udp://127.0.0.1:\(ports.1)")],
                                    timeout: .seconds(30), cards: dir.path, card: "programmes", programmes: guide)
        let events = EventLog(player.events())
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })

        /// Bright columns of each placeholder's line (design baseline → output rows of its glyphs).
        func columns(_ card: BGRAImage, _ placeholder: String) -> [Int] {
            let baseline = Self.programmeLines.first { $0.placeholder == placeholder }!.baseline
            return brightColumns(card, rows: (baseline - 30) / 2...(baseline + 6) / 2)
        }
        func lines(_ card: BGRAImage) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: Self.programmeLines.map { ($0.placeholder, columns(card, $0.placeholder).count) })
        }

        let toTwo = Task { await player.flip(.tune(ChannelNumber(2))) }
        #expect(await events.waitFor(15) { if case .cardShown(_, let c, "tuning") = $0 { c.number == "2" } else { false } })
        let card = try await snapshot(player)
        let withGuide = lines(card)
        // Every line is drawn; each as wide as its text (the description longest, the times short).
        for line in Self.programmeLines { #expect(withGuide[line.placeholder, default: 0] > 30, "\(line.placeholder) is drawn: \(withGuide)") }
        let description = withGuide["now.description", default: 0], title = withGuide["now.title", default: 0]
        #expect(description > 2 * title && description > 200, "the description, about 48 characters: \(withGuide)")
        #expect(withGuide["next.title", default: 0] > withGuide["now.start", default: 0], "'The Late Film' is wider than a time: \(withGuide)")
        // The programme's end and the next one's start are the same time, drawn alike.
        #expect(columns(card, "now.end") == columns(card, "next.start"))

        // A channel the guide knows nothing about: the same card with every line empty.
        let toThree = Task { await player.flip(.tune(ChannelNumber(3))) }
        #expect(await events.waitFor(15) { if case .cardShown(_, let c, "tuning") = $0 { c.number == "3" } else { false } })
        let without = lines(try await snapshot(player))
        #expect(without.values.allSatisfy { $0 == 0 }, "no programme, no text: \(without)")
        toTwo.cancel()
        toThree.cancel()
        _ = await (toTwo.value, toThree.value)
        await player.shutdown()
    }

    @Test func aDeadSourceEndsInTheNoSignalCardAndAFailedCompletion() async throws {
        let deadPort = Int.random(in: 41000...45000)
        let player = try makePlayer([
            ("Alive", "test://color/ff0000?size=160x90&gop=15"),
            ("Dead", "udp://127.0.0.1:\(deadPort)"),
            ("Other", "test://color/00ff00?size=160x90&gop=15"),
        ], timeout: .milliseconds(1500))
        let events = EventLog(player.events())
        try await player.start()
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })
        let result = await player.flip(.tune(ChannelNumber(2)))
        #expect(result.outcome == .failed && result.failure == .timedOut && result.interstitialShown)
        #expect(result.error?.contains("no picture within 1.5 s") == true, "\(result.error ?? "")")
        #expect(await events.waitFor(3) { if case .cardShown(_, _, "no-signal") = $0 { true } else { false } })
        let card = try await snapshot(player)
        let corner = card.meanRGB(x: 4, y: 4, width: 24, height: 24)
        #expect(abs(corner.r - 43) < 16 && abs(corner.g - 13) < 16 && abs(corner.b - 13) < 16, "the no-signal background: \(corner)")
        #expect(brightColumns(card, rows: 125...152).count > 100, "\"No signal\" is written")
        #expect(await player.status().channel?.number == ChannelNumber(2), "the viewer is on channel 2, told it has no signal")
        // Flipping on works, and the picture replaces the card.
        let on = await player.flip(.next)
        #expect(on.ok && on.channel?.number == "3")
        let picture = try await snapshot(player)
        let centre = picture.meanRGB(x: 300, y: 160, width: 40, height: 40)
        #expect(centre.g > 180 && centre.r < 60, "\(centre)")
        await player.shutdown()
    }

    /// The channel on screen whose source dies shows "no signal" instead of a frozen picture,
    /// and its picture comes back by itself when the source does.
    @Test func theChannelOnScreenThatLosesItsSignalSaysSoAndComesBack() async throws {
        let port = Int.random(in: 45001...49000)
        var sender: BlueSender? = try BlueSender(port: port)
        let player = try makePlayer([("Blue", "udp://127.0.0.1:\(port)"), ("Red", "test://color/ff0000?size=160x90&gop=15")])
        let events = EventLog(player.events())
        try await player.start()
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })
        let blue = try await snapshot(player).meanRGB(x: 300, y: 160, width: 40, height: 40)
        #expect(blue.b > 180 && blue.r < 60, "the blue channel plays: \(blue)")
        sender?.stop()
        sender = nil
        // Stalled after 2 s of silence: the card, not the last frame.
        #expect(await events.waitFor(8) { if case .cardShown(_, _, "no-signal") = $0 { true } else { false } })
        let card = try await snapshot(player)
        let corner = card.meanRGB(x: 4, y: 4, width: 24, height: 24)
        #expect(abs(corner.r - 43) < 16 && abs(corner.g - 13) < 16 && abs(corner.b - 13) < 16, "the no-signal background: \(corner)")
        #expect(await player.status().channel?.number == ChannelNumber(1), "still on channel 1")
        // The source returns: the picture replaces the card by itself.
        let back = try BlueSender(port: port)
        defer { back.stop() }
        #expect(await waitUntil(15) {
            let m = (try? await self.snapshot(player))?.meanRGB(x: 300, y: 160, width: 40, height: 40)
            return (m?.b ?? 0) > 180 && (m?.r ?? 255) < 60
        }, "the picture comes back")
        #expect(await events.waitFor(3) { if case .cardHidden = $0 { true } else { false } })
        await player.shutdown()
    }

    @Test func fiftyFlipsWithKeyRepeatEndOnTheRightChannel() async throws {
        let colours = ["ff0000", "00ff00", "0000ff", "ffff00", "00ffff", "ff00ff"]
        let player = try makePlayer(colours.enumerated().map { ("C\($0.offset + 1)", "test://color/\($0.element)?size=160x90&gop=15") })
        let events = EventLog(player.events())
        try await player.start()
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })
        #expect(await waitUntil(5) { await player.channels().allSatisfy { $0.state.tier == .warm || $0.state.tier == .hot } })
        let results = await keyRepeat(player, .next, count: 50, spacing: .milliseconds(50))
        try await Task.sleep(for: .milliseconds(300))
        #expect(Set(results.map(\.requestID)).count == 50)
        let last = results.max { $0.requestID < $1.requestID }
        // 50 nexts from channel 1 over six channels: channel 3.
        #expect(last?.ok == true && last?.channel?.number == "3", "\(String(describing: last))")
        #expect(await player.status().channel?.number == ChannelNumber(3))
        let completions = await events.all.compactMap { if case .flipCompleted(let r) = $0 { r } else { nil } }
        for r in results {
            #expect(completions.filter { $0.requestID == r.requestID }.count == 1, "one completion for request \(r.requestID)")
        }
        let picture = try await snapshot(player)
        let centre = picture.meanRGB(x: 300, y: 160, width: 40, height: 40)
        #expect(centre.b > 180 && centre.r < 60 && centre.g < 60, "channel 3's blue: \(centre)")
        await player.shutdown()
    }

    @Test func typedDigitsAndRefusalsShowOnScreen() async throws {
        let player = try makePlayer([("Red", "test://color/ff0000?size=160x90&gop=15")])
        let events = EventLog(player.events())
        try await player.start()
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })
        // The entry box sits in the top-left corner (5 % margins), dark with white digits.
        func entryBox(_ image: BGRAImage) -> (dark: Bool, digits: Int) {
            let box = image.meanRGB(x: 34, y: 20, width: 8, height: 4)
            return (box.r < 120, brightColumns(image, rows: 24...50).filter { $0 > 32 && $0 < 140 }.count)
        }
        await player.showEntry("42")
        #expect(await waitUntil(3) { (try? await entryBox(snapshot(player)).digits) ?? 0 > 20 }, "the digits are drawn")
        let typed = try await snapshot(player)
        #expect(entryBox(typed).dark, "on a dark box over the red picture")
        let refused = await player.flip(.tune(ChannelNumber(42)))
        #expect(refused.failure == .unknownChannel)
        await player.showEntry(nil)
        // "No channel 42" near the bottom, centred, over the picture that stays red.
        #expect(await waitUntil(3) { (try? brightColumns(await snapshot(player), rows: 296...324).count) ?? 0 > 80 },
                "the refusal is written on screen")
        let after = try await snapshot(player)
        #expect(entryBox(after).digits == 0, "the entry is gone")
        let centre = after.meanRGB(x: 300, y: 120, width: 40, height: 40)
        #expect(centre.r > 200 && centre.g < 60, "channel 1 still plays: \(centre)")
        await player.shutdown()
    }

    @Test func theLastChannelIsRememberedAcrossRestarts() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("state.json").path
        let channels = [("A", "test://color/ff0000?size=160x90&gop=15"), ("B", "test://color/00ff00?size=160x90&gop=15"),
                        ("C", "test://color/0000ff?size=160x90&gop=15")]
        let first = try makePlayer(channels, stateFile: file)
        #expect(first.startIndex() == 0, "nothing remembered yet")
        try await first.start()
        #expect(await waitUntil(15) { await first.status().channel != nil })
        let r = await first.flip(.tune(ChannelNumber(3)))
        #expect(r.ok)
        await first.shutdown()
        let record = LastChannelStore(path: file).load()
        #expect(record?.id == "c3" && record?.number == "3")

        let second = try makePlayer(channels, stateFile: file)
        #expect(second.startIndex() == 2, "starts on the remembered channel")
        // A broken file is no file.
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try makePlayer(channels, stateFile: file).startIndex() == 0)
    }

    @Test func aBrokenTemplateFallsBackToTheDefaultCardAndTextIsEscaped() throws {
        try GStreamer.initialize()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-cards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: Self.cardsDirectory + "/default.svg", toPath: dir.appendingPathComponent("default.svg").path)
        try Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{{width}}\"><rect".utf8).write(to: dir.appendingPathComponent("broken.svg"))
        let format = try VideoFormat(caps: try Caps("video/x-raw,format=I420,width=320,height=180,framerate=30/1,pixel-aspect-ratio=1/1"))
        let cards = InterstitialCards(directory: dir.path, format: format, logger: Self.logger)
        let fields = CardFields(number: "7", name: "Tom & Jerry <Live>", status: "Tuning…")
        let fallback = cards.renderNow(template: "broken", fields: fields)
        let normal = cards.renderNow(template: nil, fields: fields)
        #expect(fallback.bytes() == normal.bytes(), "a broken template shows the default card")
        let missing = cards.renderNow(template: "no-such-card", fields: fields)
        #expect(missing.bytes() == normal.bytes())
        // The escaped name really is drawn: the card differs from one without a name.
        let unnamed = cards.renderNow(template: nil, fields: CardFields(number: "7", name: "", status: "Tuning…"))
        #expect(unnamed.bytes() != normal.bytes())
        // A channel's own card (news.svg has a red background) is not the default one.
        try FileManager.default.copyItem(atPath: Self.cardsDirectory + "/news.svg", toPath: dir.appendingPathComponent("news.svg").path)
        let news = try ImageCodec.decode(bytes: try ImageCodec.png(frame: cards.renderNow(template: "news", fields: fields), caps: format.caps))
        let corner = news.meanRGB(x: 2, y: 2, width: 8, height: 8)
        #expect(corner.r > 100 && corner.g < 30, "the news card's own background: \(corner)")
        #expect(InterstitialCards.escape("Tom & Jerry <\"Live\">") == "Tom &amp; Jerry &lt;&quot;Live&quot;&gt;")
        // A channel without a logo shows nothing where the logo goes (it was a blue square):
        // the logo's box (440,120 400x200 of 1280x720) is the background's dark blue.
        let plain = try ImageCodec.decode(bytes: try ImageCodec.png(frame: normal, caps: format.caps))
        let logoBox = plain.meanRGB(x: 120, y: 40, width: 80, height: 40)
        #expect(logoBox.r < 40 && logoBox.g < 50 && logoBox.b < 80, "nothing drawn for a missing logo: \(logoBox)")
    }
}

/// Collects a player's events as they come.
actor EventLog {
    private(set) var all: [PlayerEvent] = []

    init(_ stream: AsyncStream<PlayerEvent>) {
        Task { await self.consume(stream) }
    }

    private func consume(_ stream: AsyncStream<PlayerEvent>) async {
        for await e in stream { all.append(e) }
    }

    func contains(_ match: (PlayerEvent) -> Bool) -> Bool { all.contains(where: match) }

    /// Waits up to `seconds` for an event matching `match` (already seen ones count).
    func waitFor(_ seconds: Double, _ match: (PlayerEvent) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if all.contains(where: match) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// A live blue H.264 MPEG-TS stream sent to a UDP port on loopback.
final class BlueSender: @unchecked Sendable {
    let pipeline: Pipeline
    init(port: Int) throws {
        pipeline = try Pipeline(description: """
            videotestsrc is-live=true pattern=solid-color foreground-color=0xff0000ff ! video/x-raw,width=160,height=90,framerate=30/1 ! \
            x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! mpegtsmux alignment=7 ! \
            udpsink host=127.0.0.1 port=\(port) sync=false
            """)
        try pipeline.setState(.playing)
    }
    func stop() { pipeline.shutdown() }
}
