import Foundation
import GStreamer
import Headend
import Lineup

/// Where the picture-in-picture window sits.
public struct PictureInPicturePlacement: Sendable, Hashable {
    public typealias Corner = LogoStyle.Corner

    public var corner: Corner
    /// Window width as a fraction of the output width (0.1...0.6); the height follows the output's aspect.
    public var size: Double
    /// Margin from the output edges as a fraction of each dimension (the title-safe area).
    public var safeArea: Double

    public static let sizes: ClosedRange<Double> = 0.1...0.6

    public init(corner: Corner = .bottomRight, size: Double = 0.3, safeArea: Double = 0.05) {
        self.corner = corner
        self.size = min(Self.sizes.upperBound, max(Self.sizes.lowerBound, size))
        self.safeArea = safeArea
    }

    /// The window's rectangle (with its 2-pixel frame) on an output of `width` x `height`;
    /// even sizes and positions, the output's aspect.
    public func rect(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let w = max(32, Int(Double(width) * size)) & ~1
        let h = max(18, w * height / width) & ~1
        let mx = Int(Double(width) * safeArea) & ~1, my = Int(Double(height) * safeArea) & ~1
        let x = corner == .topLeft || corner == .bottomLeft ? mx : width - mx - w
        let y = corner == .topLeft || corner == .topRight ? my : height - my - h
        return (x, y, w, h)
    }
}

/// A second channel in a corner window of the output: a `DecodedFrameSink` for the PiP channel's
/// decoder. Each frame (output-size I420) is scaled down to the window on a serial queue of its
/// own, off the decoder's streaming thread; while one is being scaled, newer frames replace the
/// waiting one (never a backlog). The window goes to the output's `.pictureInPicture` layer, drawn
/// with the next main frame (`updateLayer`), so the output is not pushed twice per frame.
/// Audio is ignored: sound stays with the main picture.
///
/// Thread-safe: `show`/`close` from any task, `presentVideo` from streaming threads.
public final class PictureInPictureWindow: DecodedFrameSink, @unchecked Sendable {
    public let output: OutputPipeline
    private let lock = NSLock()
    private var placement: PictureInPicturePlacement
    private var feed: UInt?
    private var waiting: Buffer?
    private var busy = false
    private var framesShown = 0
    private let queue = DispatchQueue(label: "flipbox-pip")

    public init(output: OutputPipeline, placement: PictureInPicturePlacement) {
        self.output = output
        self.placement = placement
    }

    /// From now on, shows frames of `feed` (the window keeps the previous picture until the first arrives).
    public func show(feed: UInt) { lock.withLock { self.feed = feed } }

    /// The feed shown, if the window is open.
    public var shownFeed: UInt? { lock.withLock { feed } }

    public var currentPlacement: PictureInPicturePlacement { lock.withLock { placement } }

    /// Moves or resizes the window (from the next frame on).
    public func place(_ placement: PictureInPicturePlacement) { lock.withLock { self.placement = placement } }

    /// Pictures put into the window so far (for tests and measurements).
    public var frameCount: Int { lock.withLock { framesShown } }

    /// Closes the window: no more frames are accepted and the layer is removed.
    public func close() {
        lock.withLock {
            feed = nil
            waiting = nil
            output.setLayer(.pictureInPicture, [])
        }
    }

    public func presentVideo(_ frame: Buffer, feed: UInt) {
        let start = lock.withLock { () -> Bool in
            guard feed == self.feed else { return false }
            waiting = frame
            guard !busy else { return false }
            busy = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    public func presentAudio(_ samples: Buffer, feed: UInt) {}

    /// Scales waiting frames into the window until none is left (on `queue`).
    private func drain() {
        while true {
            let next = lock.withLock { () -> (Buffer, PictureInPicturePlacement)? in
                guard let frame = waiting, feed != nil else {
                    busy = false
                    waiting = nil
                    return nil
                }
                waiting = nil
                return (frame, placement)
            }
            guard let (frame, placement) = next else { return }
            guard let overlay = try? window(frame, placement: placement) else { continue }
            lock.withLock {
                // Closed meanwhile: the layer stays off.
                guard feed != nil else { return }
                framesShown += 1
                output.updateLayer(.pictureInPicture, [overlay])
            }
        }
    }

    /// The frame scaled into the window, with a thin light frame around it.
    private func window(_ frame: Buffer, placement: PictureInPicturePlacement) throws -> Overlay {
        let r = placement.rect(width: output.width, height: output.height)
        let border = 2
        let (iw, ih) = (r.width - 2 * border, r.height - 2 * border)
        let small = try Sample(buffer: frame, caps: output.videoFormat.caps)
            .converted(to: try Caps("video/x-raw,format=BGRA,width=\(iw),height=\(ih),pixel-aspect-ratio=1/1"))
        guard let pixels = small.buffer?.bytes(), pixels.count >= iw * ih * 4 else {
            throw GStreamerError(code: .decode, message: "cannot scale a picture-in-picture frame")
        }
        var out = [UInt8](repeating: 230, count: r.width * r.height * 4)
        let rowBytes = iw * 4
        for y in 0..<ih {
            let d = ((y + border) * r.width + border) * 4
            out.replaceSubrange(d..<(d + rowBytes), with: pixels[(y * rowBytes)..<((y + 1) * rowBytes)])
        }
        return Overlay(image: BGRAImage(width: r.width, height: r.height, pixels: out), x: r.x, y: r.y)
    }
}
