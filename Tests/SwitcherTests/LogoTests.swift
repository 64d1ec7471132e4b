import Foundation
import GStreamer
import Lineup
import Logging
import Output
import Switcher
import TestSupport
import Testing

/// Channel logos checked by pixels: every image format decodes, each channel's logo sits in its
/// configured corner at its configured size, and a channel that turns it off shows none.
@Suite(.serialized, .heavy) struct LogoTests {
    static let width = 320, height = 180

    init() throws { try GStreamer.initialize() }

    // MARK: Fixtures (made here, nothing binary in the repository)

    /// A temporary directory with one logo per format, each a 64x32 picture of one colour.
    final class LogoFiles {
        let directory: URL
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-logos-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: directory) }

        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    static func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8, width: Int = 64, height: Int = 32) -> BGRAImage {
        BGRAImage(width: width, height: height, pixels: [UInt8]((0..<(width * height)).flatMap { _ in [b, g, r, 255] }))
    }

    static func svg(_ colour: String) -> [UInt8] {
        Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#\##(colour)"/></svg>"##.utf8)
    }

    /// A GIF of one colour, LZW-coded without compression: each pixel is a literal code after a
    /// clear code, so the code width never grows.
    static func gif(_ r: UInt8, _ g: UInt8, _ b: UInt8, width: Int = 64, height: Int = 32) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var out = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0] + [r, g, b, 0, 0, 0]
        out += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0]
        var bits: [Bool] = []
        func code(_ c: Int) { for i in 0..<3 { bits.append(c & (1 << i) != 0) } }
        for _ in 0..<(width * height) { code(4); code(0) }
        code(5)
        var data: [UInt8] = []
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for (i, bit) in bits[start..<min(start + 8, bits.count)].enumerated() where bit { byte |= 1 << UInt8(i) }
            data.append(byte)
        }
        out.append(2)
        for start in stride(from: 0, to: data.count, by: 255) {
            let block = data[start..<min(start + 255, data.count)]
            out.append(UInt8(block.count))
            out += block
        }
        return out + [0, 0x3B]
    }

    // MARK: Rendering

    /// `overlays` blended into a dark grey output frame (I420, as the output has), read back as RGB.
    static func render(_ overlays: [Overlay]) throws -> BGRAImage {
        let caps = try Caps("video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1,pixel-aspect-ratio=1/1")
        let format = try VideoFormat(caps: caps)
        let frame = format.blend(overlays, into: try format.solidFrame(r: 40, g: 40, b: 40))
        return try ImageCodec.decode(bytes: try ImageCodec.png(frame: frame, caps: caps))
    }

    /// The bounding box of the pixels near `colour`, nil when there are none.
    static func box(of colour: (Int, Int, Int), in image: BGRAImage, tolerance: Int = 50) -> (x: Int, y: Int, width: Int, height: Int)? {
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for y in 0..<image.height {
            for x in 0..<image.width {
                let c = image.rgba(x: x, y: y)
                if abs(Int(c.r) - colour.0) < tolerance && abs(Int(c.g) - colour.1) < tolerance && abs(Int(c.b) - colour.2) < tolerance {
                    x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
                }
            }
        }
        return x1 < 0 ? nil : (x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    }

    static func channel(_ n: Int, logo: String?, style: LogoStyle = LogoStyle()) -> Channel {
        Channel(id: "c\(n)", number: ChannelNumber(n), name: "Channel \(n)", sources: ["test://smpte"],
                logo: logo.map { .file($0) }, logoStyle: style)
    }

    // MARK: Tests

    @Test func everyImageFormatDecodesInItsCornerAtItsSize() async throws {
        let files = try LogoFiles()
        let logos: [(String, [UInt8], (Int, Int, Int))] = [
            ("red.png", try ImageCodec.png(image: Self.solid(255, 0, 0)), (255, 0, 0)),
            ("blue.jpg", try ImageCodec.jpeg(image: Self.solid(0, 0, 255)), (0, 0, 255)),
            ("green.svg", Self.svg("00ff00"), (0, 255, 0)),
            ("yellow.gif", Self.gif(255, 255, 0), (255, 255, 0)),
        ]
        // Size 0.2 of 180 = 36 px high; the 2:1 logos are 72 px wide. Top-right, 5 % safe area.
        let overlays = LogoOverlays(placement: LogoPlacement(corner: .topRight, size: 0.2, opacity: 1),
                                    width: Self.width, height: Self.height, cache: LogoCache(), logger: Logger(label: "test"))
        for (i, (name, bytes, colour)) in logos.enumerated() {
            let path = try files.write(name, bytes)
            let overlay = try #require(await overlays.overlay(for: Self.channel(i + 1, logo: path)), "\(name) decodes")
            let image = try Self.render([overlay])
            let box = try #require(Self.box(of: colour, in: image), "\(name): its colour is on the frame")
            #expect(abs(box.height - 36) <= 2 && abs(box.width - 72) <= 2, "\(name): size \(box)")
            #expect(abs(box.x + box.width - (320 - 16)) <= 2 && abs(box.y - 9) <= 2, "\(name): top-right \(box)")
        }
    }

    @Test func eachChannelGetsItsOwnCornerSizeMarginAndOpacity() async throws {
        let files = try LogoFiles()
        let red = try files.write("red.png", try ImageCodec.png(image: Self.solid(255, 0, 0)))
        let warnings = WarningCounter()
        let overlays = LogoOverlays(placement: LogoPlacement(corner: .topRight, size: 0.12, opacity: 1),
                                    width: Self.width, height: Self.height, cache: LogoCache(),
                                    logger: Logger(label: "test") { _ in warnings })

        // Bottom-left, 0.1 high (18 px), 0.05 of the height (9 px) further in than the safe area.
        let bottomLeft = try #require(await overlays.overlay(for: Self.channel(1, logo: red, style: LogoStyle(corner: .bottomLeft, size: 0.1, margin: 0.05))))
        let box1 = try #require(Self.box(of: (255, 0, 0), in: try Self.render([bottomLeft])))
        #expect(abs(box1.height - 18) <= 2 && abs(box1.width - 36) <= 2, "size \(box1)")
        #expect(abs(box1.x - (16 + 9)) <= 2, "left edge \(box1)")
        #expect(abs(box1.y + box1.height - (180 - 9 - 9)) <= 2, "bottom edge \(box1)")

        // The default corner and size of the player; half opacity mixes red into the grey.
        let faint = try #require(await overlays.overlay(for: Self.channel(2, logo: red, style: LogoStyle(opacity: 0.5))))
        let image = try Self.render([faint])
        let mixed = image.meanRGB(x: 320 - 16 - 30, y: 12, width: 20, height: 10)
        #expect(mixed.r > 120 && mixed.r < 170 && mixed.g < 40, "half-transparent red over grey: \(mixed)")
        #expect(Self.box(of: (255, 0, 0), in: image, tolerance: 40) == nil, "not fully red")

        // Turned off: no overlay at all.
        #expect(await overlays.overlay(for: Self.channel(3, logo: red, style: LogoStyle(isShown: false))) == nil)

        // Missing and unreadable: none, reported once however often asked.
        let missing = Self.channel(4, logo: files.path("gone.png"))
        let garbage = Self.channel(5, logo: try files.write("garbage.png", Array("not a picture".utf8)))
        async let a = overlays.overlay(for: missing)
        async let b = overlays.overlay(for: missing)
        let (first, second) = await (a, b)
        #expect(first == nil && second == nil)
        #expect(await overlays.overlay(for: garbage) == nil)
        #expect(await overlays.overlay(for: garbage) == nil)
        #expect(warnings.messages.count == 2, "\(warnings.messages)")
        #expect(warnings.messages.contains { $0.contains("channel 4") && $0.contains("gone.png") })
    }

    /// Through a real player: channel 1's logo bottom-left, channel 2 turns its logo off.
    /// Where a logo of `colour` is on `player`'s picture, waiting up to 3 s for it to be there.
    static func logoBox(of colour: (Int, Int, Int), on player: Player) async throws -> (x: Int, y: Int, width: Int, height: Int)? {
        let deadline = ContinuousClock.now + .seconds(3)
        repeat {
            if let box = Self.box(of: colour, in: try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))) { return box }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        return nil
    }

    @Test func aPlayerShowsEachChannelsLogoAndNoneWhenTurnedOff() async throws {
        let files = try LogoFiles()
        let red = try files.write("red.png", try ImageCodec.png(image: Self.solid(255, 0, 0)))
        let lineup = Lineup(channels: [
            Channel(id: "one", number: ChannelNumber(1), name: "One", sources: ["test://color/2040a0?size=160x90&gop=15"],
                    logo: .file(red), logoStyle: LogoStyle(corner: .bottomLeft, size: 0.2)),
            Channel(id: "two", number: ChannelNumber(2), name: "Two", sources: ["test://color/2040a0?size=160x90&gop=15"],
                    logo: .file(red), logoStyle: LogoStyle(isShown: false)),
        ])
        var options = PlayerOptions(sink: .headless, width: Self.width, height: Self.height, fps: 30, warm: .all)
        options.bannerSeconds = 0  // the banner after a flip shows the logo too
        let player = try Player(lineup: lineup, options: options, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await player.start()
        let deadline = ContinuousClock.now + .seconds(15)
        while await player.status().channel?.number != ChannelNumber(1), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        // A logo still being decoded does not hold up the first picture: it joins it when ready.
        let box = try await Self.logoBox(of: (255, 0, 0), on: player)
        #expect(box.map { abs($0.height - 36) <= 2 && abs($0.x - 16) <= 2 && abs($0.y + $0.height - 171) <= 2 } == true,
                "channel 1: a 36 px red logo bottom-left: \(String(describing: box))")

        let flip = await player.flip(.tune(ChannelNumber(2)))
        #expect(flip.ok, "\(flip)")
        try await Task.sleep(for: .milliseconds(100))
        let two = try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
        #expect(Self.box(of: (255, 0, 0), in: two) == nil, "channel 2 turns its logo off")
        let picture = two.meanRGB(x: 140, y: 80, width: 40, height: 20)
        #expect(picture.b > 120 && picture.r < 70, "channel 2's picture is shown: \(picture)")

        // A logo made once is on the first picture of every later flip to its channel.
        #expect(await player.flip(.tune(ChannelNumber(1))).ok)
        let back = try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
        #expect(Self.box(of: (255, 0, 0), in: back) != nil, "channel 1's logo is on its first picture again")

        // A reading that gives channel 1 another logo: its next flip shows the new one.
        let green = try files.write("green.png", try ImageCodec.png(image: Self.solid(0, 255, 0)))
        var reading = lineup
        reading.channels[0].logo = .file(green)
        let (next, slots) = player.lineup.taking(reading)
        await player.take(next, slots: slots)
        #expect(await player.flip(.tune(ChannelNumber(2))).ok)
        #expect(await player.flip(.tune(ChannelNumber(1))).ok)
        #expect(try await Self.logoBox(of: (0, 255, 0), on: player) != nil, "channel 1 shows its new logo after the reading")
        let after = try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
        #expect(Self.box(of: (255, 0, 0), in: after) == nil, "the old logo is gone")
        await player.shutdown()
    }
}

/// Counts warnings logged through it (any thread).
final class WarningCounter: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var logged: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        if event.level >= .warning { lock.withLock { logged.append("\(event.message)") } }
    }
    var messages: [String] { lock.withLock { logged } }
}
