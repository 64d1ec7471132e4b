import Foundation
import GStreamer
import Testing
@testable import Output

/// The on-screen guide's now line as the viewer gets it: rendered at a small output size, put
/// in a 4:2:0 video frame (colour shared by pixel pairs) and read back, wherever in the
/// half hour "now" falls.
@Suite struct GuideGridPictureTests {
    init() throws { try GStreamer.initialize() }

    static let windowStart = Date(timeIntervalSince1970: 1_800_000_000)

    func content(now: Date) -> GuideGridContent {
        let cell = GuideGridContent.Cell(title: "Show", start: Self.windowStart.addingTimeInterval(-600),
                                         end: Self.windowStart.addingTimeInterval(3000))
        let rows = (1...5).map { GuideGridContent.Row(number: "\($0)", name: "Channel \($0)", logoPath: nil, cells: [cell], playing: $0 == 1) }
        return GuideGridContent(rows: rows, windowStart: Self.windowStart, now: now, focusRow: 0, focusTime: now,
                         title: "Show", detail: "")
    }

    /// The output frame of the guide at `now`, read back as RGB.
    func rendered(now: Date, width: Int, height: Int) throws -> BGRAImage {
        let caps = try Caps("video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1,pixel-aspect-ratio=1/1")
        let frame = try GuideGridPicture.frame(content(now: now), format: try VideoFormat(caps: caps))
        return try ImageCodec.decode(bytes: try ImageCodec.png(frame: frame, caps: caps))
    }

    @Test(arguments: [(640, 360), (1280, 720), (1920, 1080)])
    func theNowLineIsSolidRedWhereverItFalls(size: (Int, Int)) throws {
        let (width, height) = size
        let scale = Double(width) / 1280
        // Design row 1 (channel 2's cell), below the focused row: red over the plain cell colour.
        let y = Int((GuideGridPicture.y(ofRow: 1) + 31) * scale)
        // Every 9 s over four minutes: the line steps through every sub-pixel position.
        for step in 0..<27 {
            let now = Self.windowStart.addingTimeInterval(600 + Double(step) * 9)
            let image = try rendered(now: now, width: width, height: height)
            let x = GuideGridPicture.x(of: now, windowStart: Self.windowStart) * scale
            var red: Set<Int> = []
            for px in (Int(x) - 6)...(Int(x) + 6) {
                let p = image.rgba(x: px, y: y)
                if p.r > 180 && p.g < 100 && p.b < 100 { red.insert(px) }
            }
            #expect(red.count >= 2, "at \(width)x\(height), step \(step): the line near x \(x) is \(red.sorted()) columns wide")
            #expect((red.max() ?? 0) - (red.min() ?? 0) < Int(6 * scale) + 2, "one line, not a smear: \(red.sorted())")
            if let first = red.min() { #expect(abs(Double(first) - x) < 3 * scale + 2, "the line is at now: \(first) vs \(x)") }
        }
    }
}
