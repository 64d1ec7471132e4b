import Foundation
import GStreamer
import Lineup
import Logging
import Switcher

/// A started player on a headless 640x360 output for the overlay tests.
func overlayPlayer(_ channels: [(String, String)], bannerSeconds: Double, programmes: (any ProgrammeGuide)? = nil) async throws -> Player {
    try GStreamer.initialize()
    let lineup = Lineup(channels: channels.enumerated().map { i, c in
        Channel(id: "c\(i + 1)", number: ChannelNumber(i + 1), name: c.0, sources: [c.1], group: "Tests")
    })
    var options = PlayerOptions(sink: .headless, width: 640, height: 360, fps: 30, warm: .all)
    options.bannerSeconds = bannerSeconds
    return try Player(lineup: lineup, options: options, programmes: programmes, logger: Logger(label: "test"))
}

func overlaySnapshot(_ player: Player) async throws -> BGRAImage {
    try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
}

/// Whether the mean colour of a region is within `tolerance` of (r, g, b).
func region(_ image: BGRAImage, _ rect: (x: Int, y: Int, width: Int, height: Int), is rgb: (Double, Double, Double), tolerance: Double = 45) -> Bool {
    let m = image.meanRGB(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    return abs(m.r - rgb.0) < tolerance && abs(m.g - rgb.1) < tolerance && abs(m.b - rgb.2) < tolerance
}

/// The mean absolute difference of two images' bytes in a region, 0...255.
func difference(_ a: BGRAImage, _ b: BGRAImage, _ rect: (x: Int, y: Int, width: Int, height: Int)) -> Double {
    var total = 0, count = 0
    for y in rect.y..<(rect.y + rect.height) {
        for x in rect.x..<(rect.x + rect.width) {
            let p = a.rgba(x: x, y: y), q = b.rgba(x: x, y: y)
            total += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
            count += 3
        }
    }
    return Double(total) / Double(max(1, count))
}

/// A rectangle shrunk by `inset` on every side.
func inner(_ r: (x: Int, y: Int, width: Int, height: Int), _ inset: Int) -> (x: Int, y: Int, width: Int, height: Int) {
    (r.x + inset, r.y + inset, r.width - 2 * inset, r.height - 2 * inset)
}
