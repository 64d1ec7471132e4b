import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup

/// A second channel in a corner window of the output: a `DecodedFrameSink` for the PiP channel's
/// decoder, which scales to the window's size in its own pipeline (`frameSize`). Each picture
/// becomes, as it is (I420, no conversion, no copy), the overlay of the output's
/// `.pictureInPicture` layer inside a light border, drawn with the next main frame
/// (`updateLayer`), so the output is not pushed twice per frame. Audio is ignored: sound stays
/// with the main picture.
///
/// Thread-safe: `configure`, `show` and `close` from any task, `presentVideo` from streaming threads.
public final class PictureInPictureWindow: DecodedFrameSink, @unchecked Sendable {
    public let output: OutputPipeline
    private let lock = NSLock()
    private var placement: PictureInPicturePlacement
    private var feed: FeedID?
    private var framesShown = 0
    private var window: Window

    /// Where pictures go: the window's rectangle (border included) and its pictures' format.
    private struct Window {
        let rect: (x: Int, y: Int, width: Int, height: Int)
        let picture: VideoFormat
    }

    static let border = 2

    public init(output: OutputPipeline, placement: PictureInPicturePlacement) {
        self.output = output
        self.placement = placement
        // The output's own format cannot fail to describe its smaller sizes; `configure` makes the real one.
        window = (try? Self.window(placement, output: output)) ?? Window(rect: (0, 0, 0, 0), picture: output.videoFormat)
    }

    private static func window(_ placement: PictureInPicturePlacement, output: OutputPipeline) throws -> Window {
        let rect = placement.rect(width: output.width, height: output.height)
        let (iw, ih) = (rect.width - 2 * border, rect.height - 2 * border)
        let caps = try Caps("video/x-raw,format=I420,width=\(iw),height=\(ih),framerate=\(output.fps)/1,pixel-aspect-ratio=1/1")
        return Window(rect: rect, picture: try VideoFormat(caps: caps))
    }

    /// Sets the window's place and size. A new size reaches the decoder with its next frame
    /// (`frameSize`); until its first picture of that size, the window shows the previous one.
    public func configure(_ placement: PictureInPicturePlacement) async throws {
        let window = try Self.window(placement, output: output)
        lock.withLock {
            self.placement = placement
            self.window = window
        }
    }

    /// The size pictures are shown at: the window's inside.
    public var frameSize: (width: Int, height: Int)? {
        lock.withLock { (window.picture.width, window.picture.height) }
    }

    /// From now on, shows frames of `feed` (the window keeps the previous picture until the first arrives).
    public func show(feed: FeedID) { lock.withLock { self.feed = feed } }

    /// The feed shown, if the window is open.
    public var shownFeed: FeedID? { lock.withLock { feed } }

    public var currentPlacement: PictureInPicturePlacement { lock.withLock { placement } }

    /// Pictures put into the window so far (for tests and measurements).
    public var frameCount: Int { lock.withLock { framesShown } }

    /// Closes the window: no more frames are accepted and the layer is removed.
    public func close() {
        lock.withLock {
            feed = nil
            output.setLayer(.pictureInPicture, [])
        }
    }

    /// Closes the window (the player is going away); nothing else to stop.
    public func shutdown() async {
        close()
    }

    /// A picture of the window's channel (its decoder's streaming thread): put on the layer, in
    /// its border, as the next main frame's overlay. Frames of another size than the window's
    /// (a resize in flight) are not shown.
    public func presentVideo(_ frame: Buffer, feed: FeedID) {
        lock.withLock {
            // Closed or retuned meanwhile: the layer stays as it is.
            guard feed == self.feed, window.picture.fits(frame) else { return }
            let border = Self.border
            let overlay = Overlay(picture: frame, format: window.picture, x: window.rect.x, y: window.rect.y, border: border)
            framesShown += 1
            output.updateLayer(.pictureInPicture, [overlay])
        }
    }

    public func presentAudio(_ samples: Buffer, feed: FeedID) {}
}
