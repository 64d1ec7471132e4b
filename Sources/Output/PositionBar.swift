import FlipboxCore
import Foundation
import GStreamer

/// What the timeshift position bar shows: the buffer from its start to the live edge, where the
/// picture is, the markers and the breaks.
public struct PositionBarContent: Sendable, Hashable {
    public struct Span: Sendable, Hashable {
        public var start: Date
        public var end: Date
        /// A watched break is drawn dimmer.
        public var watched: Bool
        public init(start: Date, end: Date, watched: Bool) {
            self.start = start
            self.end = end
            self.watched = watched
        }
    }

    public var bufferStart: Date
    public var liveEdge: Date
    public var position: Date
    public var live: Bool
    public var paused: Bool
    public var markers: [Date]
    public var breaks: [Span]
    /// The bar from its start to here is the provider's archive (catch-up), not the box's buffer.
    public var archiveEnd: Date?

    public init(bufferStart: Date, liveEdge: Date, position: Date, live: Bool, paused: Bool, markers: [Date], breaks: [Span]) {
        self.bufferStart = bufferStart
        self.liveEdge = liveEdge
        self.position = position
        self.live = live
        self.paused = paused
        self.markers = markers
        self.breaks = breaks
    }

    /// Where `time` sits along the bar, 0 (buffer start) ... 1 (live edge).
    public func fraction(_ time: Date) -> Double {
        let length = liveEdge.timeIntervalSince(bufferStart)
        guard length > 0 else { return 1 }
        return min(1, max(0, time.timeIntervalSince(bufferStart) / length))
    }
}

/// The timeshift position bar: a strip above the info banner's place with the buffer (grey), the
/// provider's archive before it (steel blue), the part up to the picture (white), breaks (amber; dim once watched), markers (cyan ticks), the
/// picture's place (a white handle) and the live edge (red when live). Drawn in pixels (no
/// text, no SVG): cheap enough to redraw on every move, on any thread.
public enum PositionBar {
    /// The bar's box on an output of `width` x `height`: as wide as the banner, just above it.
    public static func box(width: Int, height: Int, aboveGuideBanner: Bool = false) -> (x: Int, y: Int, width: Int, height: Int) {
        let banner = InfoBanner.box(width: width, height: height, withGuide: aboveGuideBanner)
        let h = max(12, height / 24)
        return (banner.x, max(0, banner.y - h - max(2, height / 90)), banner.width, h)
    }

    /// Colours as (b, g, r, a).
    static let backdrop: (UInt8, UInt8, UInt8, UInt8) = (24, 16, 16, 200)
    static let buffered: (UInt8, UInt8, UInt8, UInt8) = (110, 110, 110, 255)
    static let archived: (UInt8, UInt8, UInt8, UInt8) = (170, 110, 60, 255)
    static let played: (UInt8, UInt8, UInt8, UInt8) = (235, 235, 235, 255)
    static let unwatchedBreak: (UInt8, UInt8, UInt8, UInt8) = (0, 176, 255, 255)
    static let watchedBreak: (UInt8, UInt8, UInt8, UInt8) = (40, 100, 140, 255)
    static let marker: (UInt8, UInt8, UInt8, UInt8) = (255, 220, 0, 255)
    static let handle: (UInt8, UInt8, UInt8, UInt8) = (255, 255, 255, 255)
    static let liveDot: (UInt8, UInt8, UInt8, UInt8) = (40, 40, 230, 255)

    /// The bar as a picture of `width` x `height` pixels.
    public static func image(_ content: PositionBarContent, width: Int, height: Int) -> BGRAImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: (UInt8, UInt8, UInt8, UInt8)) {
            for y in max(0, y0)..<min(height, y1) {
                for x in max(0, x0)..<min(width, x1) {
                    let i = (y * width + x) * 4
                    pixels[i] = c.0; pixels[i + 1] = c.1; pixels[i + 2] = c.2; pixels[i + 3] = c.3
                }
            }
        }
        fill(0, 0, width, height, backdrop)
        let pad = max(4, height / 3)
        let left = pad, right = width - pad - height / 2
        let trackTop = height * 3 / 8, trackBottom = height - height * 3 / 8
        func x(_ time: Date) -> Int { left + Int((Double(right - left) * content.fraction(time)).rounded()) }
        fill(left, trackTop, right, trackBottom, buffered)
        if let end = content.archiveEnd { fill(left, trackTop, x(end), trackBottom, archived) }
        fill(left, trackTop, x(content.position), trackBottom, played)
        for span in content.breaks {
            let x0 = x(span.start), x1 = max(x(span.end), x0 + 2)
            fill(x0, trackTop - 1, x1, trackBottom + 1, span.watched ? watchedBreak : unwatchedBreak)
        }
        for time in content.markers {
            let mx = x(time)
            fill(mx - 1, 2, mx + 1, height - 2, marker)
        }
        let hx = x(content.position), w = max(2, height / 8)
        fill(hx - w, 1, hx + w, height - 1, handle)
        if content.live {
            let r = height / 4
            fill(right + 2, height / 2 - r, right + 2 + 2 * r, height / 2 + r, liveDot)
        }
        return BGRAImage(width: width, height: height, pixels: pixels)
    }

    /// The bar placed on an output of `width` x `height`.
    public static func overlay(_ content: PositionBarContent, width: Int, height: Int, aboveGuideBanner: Bool = false) -> Overlay {
        let b = box(width: width, height: height, aboveGuideBanner: aboveGuideBanner)
        return Overlay(image: image(content, width: b.width, height: b.height), x: b.x, y: b.y)
    }
}

extension ScreenLayer {
    /// The timeshift position bar, just above the banner.
    public static let positionBar = ScreenLayer("position-bar", z: 21)
}
