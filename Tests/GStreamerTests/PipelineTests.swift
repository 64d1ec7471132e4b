import Testing
import Synchronization
@testable import GStreamer

@Suite struct PipelineTests {
    init() throws { try GStreamer.initialize() }

    @Test func appSinkDeliversLiveH264Keyframes() async throws {
        let p = try Pipeline(description: "videotestsrc is-live=true ! video/x-raw,width=160,height=90,framerate=30/1 ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=10 ! h264parse ! appsink name=out sync=false")
        let sink = try #require(p.appSink(named: "out"))
        let counter = Counter()
        sink.onSample { s in
            if let b = s.buffer { counter.add(keyframe: b.isKeyframe, rt: s.runningTime(b.pts)) }
        }
        try p.setState(.playing)
        try await Task.sleep(for: .milliseconds(1200))
        p.shutdown()
        let (total, keys, monotonic) = counter.snapshot()
        #expect(total >= 20)
        #expect(keys >= 2)
        #expect(monotonic)
    }

    @Test func busReportsErrorsWithElementName() async throws {
        let p = try Pipeline(description: "filesrc location=/nonexistent/flipbox.ts ! fakesink")
        let refused = #expect(throws: GStreamerError.self) { try p.setState(.playing) }
        #expect(refused?.code == .stateChange && refused?.message == "cannot go to PLAYING", "\(String(describing: refused))")
        var saw: String?
        for await m in p.messages {
            if case .error(let source, let message, _) = m { saw = "\(source): \(message)"; break }
        }
        p.shutdown()
        #expect(saw?.contains("filesrc") == true)
    }

    /// An observer gets the errors posted before it came, or each message as it is posted;
    /// the stream ends once observed, so nothing piles up unread.
    @Test func anObserverGetsEarlierErrorsThenEveryMessage() async throws {
        let early = try Pipeline(description: "filesrc location=/nonexistent/flipbox.ts ! fakesink")
        #expect(try #require(throws: GStreamerError.self) { try early.setState(.playing) }.code == .stateChange)
        let seenEarly = Seen()
        early.observe { m in if case .error(let source, _, _) = m { seenEarly.add(source) } }
        #expect(seenEarly.all.contains { $0.contains("filesrc") }, "the error posted before: \(seenEarly.all)")
        for await _ in early.messages {}
        early.shutdown()

        let late = try Pipeline(description: "filesrc name=reader location=/nonexistent/flipbox.ts ! fakesink")
        let seenLate = Seen()
        late.observe { m in if case .error(let source, _, _) = m { seenLate.add(source) } }
        #expect(seenLate.all.isEmpty)
        #expect(try #require(throws: GStreamerError.self) { try late.setState(.playing) }.code == .stateChange)
        #expect(seenLate.all.contains { $0.contains("reader") }, "the error posted after: \(seenLate.all)")
        late.shutdown()
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ s: String) { lock.withLock { list.append(s) } }
        var all: [String] { lock.withLock { list } }
    }

    @Test func badDescriptionThrowsReadableError() {
        let error = #expect(throws: GStreamerError.self) { _ = try Pipeline(description: "nosuchelement-xyz ! fakesink") }
        #expect(error?.code == .pipelineDescription)
        #expect(error?.message.hasPrefix("cannot build the pipeline: ") == true, "\(String(describing: error))")
    }

    @Test func overlayBlendsIntoFrameAndPNGRoundTrips() throws {
        let caps = try Caps("video/x-raw,format=I420,width=64,height=48,framerate=30/1,pixel-aspect-ratio=1/1")
        let format = try VideoFormat(caps: caps)
        let blue = try format.solidFrame(r: 0, g: 0, b: 255)
        let logo = BGRAImage(width: 16, height: 16, pixels: [UInt8]((0..<256).flatMap { _ in [0, 255, 255, 255] })) // yellow
        let out = format.blend([Overlay(image: logo, x: 40, y: 4)], into: blue)
        let png = try ImageCodec.png(frame: out, caps: caps)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let img = try ImageCodec.decode(bytes: png)
        #expect(img.width == 64 && img.height == 48)
        let corner = img.meanRGB(x: 42, y: 6, width: 12, height: 12)
        #expect(corner.r > 200 && corner.g > 200 && corner.b < 60, "logo area is yellow: \(corner)")
        let body = img.meanRGB(x: 4, y: 20, width: 20, height: 20)
        #expect(body.b > 200 && body.r < 60, "rest stays blue: \(body)")
        // The original frame is untouched.
        let orig = try ImageCodec.decode(bytes: try ImageCodec.png(frame: blue, caps: caps))
        #expect(orig.meanRGB(x: 42, y: 6, width: 12, height: 12).b > 200)
    }

    @Test func decodeUnreadableImageFailsWithPath() {
        let error = #expect(throws: GStreamerError.self) { _ = try ImageCodec.decode(file: "/nonexistent/logo.png") }
        #expect(error?.code == .decode)
        #expect(error?.message.hasPrefix("cannot read the image /nonexistent/logo.png: ") == true, "\(String(describing: error))")
    }

    @Test func mediaExecutorRunsJobsInOrderOnItsThread() async throws {
        let order = try await withThrowingTaskGroup(of: Void.self) { _ in
            let log = Counter()
            for i in 0..<50 { MediaExecutor.shared.schedule { log.append(i, onMedia: MediaExecutor.shared.isCurrent) } }
            _ = try await MediaExecutor.shared.run { 0 }
            return log.appended()
        }
        #expect(order.0 == Array(0..<50))
        #expect(order.1)
    }

    /// A timeout called off before it fires never runs, whether it is called off from another
    /// thread or by a timeout that fires just before it on the media thread; one called off
    /// after it ran changes nothing.
    @Test func aMediaTimeoutCalledOffNeverRuns() async throws {
        let log = Counter()
        let kept = MediaExecutor.shared.schedule(after: .milliseconds(40)) { log.append(1, onMedia: MediaExecutor.shared.isCurrent) }
        let dropped = MediaExecutor.shared.schedule(after: .milliseconds(40)) { log.append(2, onMedia: true) }
        dropped.cancel()
        let later = Mutex<MediaTimeout?>(nil)
        MediaExecutor.shared.schedule(after: .milliseconds(60)) { later.withLock { $0?.cancel() } }
        later.withLock { $0 = MediaExecutor.shared.schedule(after: .milliseconds(61)) { log.append(3, onMedia: true) } }
        try await Task.sleep(for: .milliseconds(300))
        kept.cancel()
        _ = try await MediaExecutor.shared.run { 0 }
        let (order, onMedia) = log.appended()
        #expect(order == [1] && onMedia, "only the timeout left alone ran, on the media thread: \(order)")
    }
}

/// Thread-safe tally for streaming-thread callbacks in tests.
final class Counter: @unchecked Sendable {
    private let lock = NSLockLike()
    private var total = 0, keys = 0, last: UInt = 0, monotonic = true
    private var items: [Int] = []
    private var allOnMedia = true
    func add(keyframe: Bool, rt: UInt) {
        lock.withLock {
            total += 1
            if keyframe { keys += 1 }
            if rt < last { monotonic = false }
            last = rt
        }
    }
    func snapshot() -> (Int, Int, Bool) { lock.withLock { (total, keys, monotonic) } }
    func append(_ i: Int, onMedia: Bool) { lock.withLock { items.append(i); allOnMedia = allOnMedia && onMedia } }
    func appended() -> ([Int], Bool) { lock.withLock { (items, allOnMedia) } }
}

import Foundation
typealias NSLockLike = NSLock

@Suite struct PipelineLifetimeTests {
    init() throws { try GStreamer.initialize() }

    /// A pipeline that ran, posted messages and was shut down is freed by GStreamer once the last
    /// Swift reference goes, with nobody reading its messages.
    @Test func shutDownPipelineIsFreed() async throws {
        var identity: Pipeline.Identity?
        do {
            let p = try Pipeline(description: "videotestsrc is-live=true num-buffers=30 ! video/x-raw,width=64,height=48 ! fakesink sync=true")
            identity = p.identity
            try p.setState(.playing)
            try await Task.sleep(for: .milliseconds(300))
            #expect(PipelineCensus.isAlive(p.identity))
            p.shutdown()
        }
        #expect(!PipelineCensus.isAlive(try #require(identity)))
    }
}
