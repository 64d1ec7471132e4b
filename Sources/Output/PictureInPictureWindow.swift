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
/// decoder. Frames (output-size I420) go into a small scaler pipeline of the window's own, built
/// once per window size: appsrc (2 buffers, the oldest dropped) ! videoscale ! videoconvert to
/// BGRA at the window's size ! appsink (1 buffer, dropping). Its streaming thread turns each
/// picture into the overlay of the output's `.pictureInPicture` layer, drawn with the next main
/// frame (`updateLayer`), so the output is not pushed twice per frame. The decoder's streaming
/// thread only pushes. Audio is ignored: sound stays with the main picture.
///
/// Thread-safe: `configure` (async, builds on the media thread), `show` and `close` from any task,
/// `presentVideo` from streaming threads. `shutdown()` stops the scaler.
public final class PictureInPictureWindow: DecodedFrameSink, @unchecked Sendable {
    public let output: OutputPipeline
    private let lock = NSLock()
    private var placement: PictureInPicturePlacement
    private var feed: UInt?
    private var framesShown = 0
    private var scaler: Scaler?

    /// The scaling pipeline for one window size.
    private struct Scaler {
        let pipeline: Pipeline
        let source: AppSource
        let rect: (x: Int, y: Int, width: Int, height: Int)
    }

    static let border = 2

    public init(output: OutputPipeline, placement: PictureInPicturePlacement) {
        self.output = output
        self.placement = placement
    }

    /// Sets the window's place and size; (re)builds the scaler when the size changed.
    public func configure(_ placement: PictureInPicturePlacement) async throws {
        let rect = placement.rect(width: output.width, height: output.height)
        let current = lock.withLock { () -> (Int, Int)? in
            self.placement = placement
            return scaler.map { ($0.rect.width, $0.rect.height) }
        }
        if let current, current == (rect.width, rect.height) {
            // Same size: only the position changes, at the next picture.
            lock.withLock { scaler = scaler.map { Scaler(pipeline: $0.pipeline, source: $0.source, rect: rect) } }
            return
        }
        let (iw, ih) = (rect.width - 2 * Self.border, rect.height - 2 * Self.border)
        let pipeline = try Pipeline(description: """
            appsrc name=src format=time max-buffers=2 leaky-type=downstream ! videoscale ! \
            video/x-raw,width=\(iw),height=\(ih),pixel-aspect-ratio=1/1 ! videoconvert ! video/x-raw,format=BGRA ! \
            appsink name=sink sync=false max-buffers=1 drop=true
            """)
        guard let source = pipeline.appSource(named: "src"), let sink = pipeline.appSink(named: "sink") else {
            pipeline.shutdown()
            throw GStreamerError(code: .pipelineDescription, message: "internal: picture-in-picture scaler incomplete")
        }
        source.caps = output.videoFormat.caps
        sink.onSample { [weak self] sample in self?.scaled(sample, width: iw, height: ih) }
        try await MediaExecutor.shared.run { _ = try pipeline.setState(.playing) }
        let old = lock.withLock { () -> Scaler? in
            defer { scaler = Scaler(pipeline: pipeline, source: source, rect: rect) }
            return scaler
        }
        if let old { _ = try? await MediaExecutor.shared.run { old.pipeline.shutdown() } }
    }

    /// From now on, shows frames of `feed` (the window keeps the previous picture until the first arrives).
    public func show(feed: UInt) { lock.withLock { self.feed = feed } }

    /// The feed shown, if the window is open.
    public var shownFeed: UInt? { lock.withLock { feed } }

    public var currentPlacement: PictureInPicturePlacement { lock.withLock { placement } }

    /// Pictures put into the window so far (for tests and measurements).
    public var frameCount: Int { lock.withLock { framesShown } }

    /// Closes the window: no more frames are accepted and the layer is removed. The scaler stays
    /// built for the next time.
    public func close() {
        lock.withLock {
            feed = nil
            output.setLayer(.pictureInPicture, [])
        }
    }

    /// Stops the scaler (the player is going away).
    public func shutdown() async {
        close()
        let old = lock.withLock { () -> Scaler? in
            defer { scaler = nil }
            return scaler
        }
        if let old { _ = try? await MediaExecutor.shared.run { old.pipeline.shutdown() } }
    }

    public func presentVideo(_ frame: Buffer, feed: UInt) {
        guard let source = lock.withLock({ feed == self.feed ? scaler?.source : nil }) else { return }
        _ = source.push(frame.retimed(pts: .none, dts: .none))
    }

    public func presentAudio(_ samples: Buffer, feed: UInt) {}

    /// A picture at the window's size (scaler streaming thread): framed and put on the layer.
    private func scaled(_ sample: Sample, width iw: Int, height ih: Int) {
        guard let pixels = sample.buffer?.bytes(), pixels.count >= iw * ih * 4 else { return }
        guard let rect = lock.withLock({ feed == nil ? nil : scaler?.rect }),
              rect.width == iw + 2 * Self.border, rect.height == ih + 2 * Self.border else { return }
        let border = Self.border
        var out = [UInt8](repeating: 230, count: rect.width * rect.height * 4)
        let rowBytes = iw * 4
        for y in 0..<ih {
            let d = ((y + border) * rect.width + border) * 4
            out.replaceSubrange(d..<(d + rowBytes), with: pixels[(y * rowBytes)..<((y + 1) * rowBytes)])
        }
        let overlay = Overlay(image: BGRAImage(width: rect.width, height: rect.height, pixels: out), x: rect.x, y: rect.y)
        lock.withLock {
            // Closed meanwhile: the layer stays off.
            guard feed != nil else { return }
            framesShown += 1
            output.updateLayer(.pictureInPicture, [overlay])
        }
    }
}
