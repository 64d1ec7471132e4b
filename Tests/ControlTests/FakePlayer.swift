import FlipboxCore
import Control
import Foundation
import GStreamer
import Headend
import Lineup
import Output
import Switcher

/// A scripted `PlayerControl` for testing the HTTP and key layers' shapes; the real player is tested
/// end to end elsewhere. Records every flip request.
final class FakePlayer: PlayerControl, @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [FlipRequest] = []
    private var snapshotWidths: [Int?] = []
    private var nextRequestID: UInt64 = 1
    private var subscriptions = 0

    /// The result for a request (its request id is filled in).
    let script: @Sendable (FlipRequest) -> FlipResult
    let playerStatus: PlayerStatus
    let channelList: [ChannelStatus]
    let snapshot: Result<[UInt8], SnapshotError>
    /// Yielded to each subscriber, then the stream ends after `eventsOpenFor`.
    let scriptedEvents: [PlayerEvent]
    let eventsOpenFor: Duration
    /// How long each flip takes before its result (suspending, as the real player's does).
    let flipTakes: Duration
    /// When set, each snapshot blocks its thread until the gate opens, as encoding a big PNG does.
    let snapshotGate: ThreadGate?
    private var snapshotThreads: [Bool] = []

    struct SnapshotError: Error, CustomStringConvertible {
        var description: String
    }

    static let red = Channel(id: "red", number: ChannelNumber(7), name: "Red Test", sources: ["udp://239.0.0.1:1234"],
                             logo: .file("/logos/red.png"), group: "Tests")
    static let news = Channel(id: "news.one", number: ChannelNumber(9, 1), name: "News One", sources: ["a", "b"])
    /// 1080i H.264 in BT.709 with German and English AC-3, English playing.
    static let redMedia = ChannelMedia(
        video: .init(family: .h264, mediaType: "video/x-h264", width: 1920, height: 1080, framesPerSecond: 25, interlaced: true,
                     colour: Colorimetry("bt709", height: 1080)),
        audio: AudioState(tracks: [AudioTrack(index: 0, family: .ac3, language: "deu", channels: 2),
                                   AudioTrack(index: 1, family: .ac3, language: "eng", channels: 6)], playing: 1),
        radio: false,
        subtitles: SubtitleState(tracks: [SubtitleTrack(index: 0, kind: .dvb, language: "deu"), .closedCaptions], showing: 0))
    static let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]

    init(
        script: @escaping @Sendable (FlipRequest) -> FlipResult = FakePlayer.completeOnRed,
        status: PlayerStatus? = nil,
        channels: [ChannelStatus]? = nil,
        snapshot: Result<[UInt8], SnapshotError> = .success(FakePlayer.pngBytes),
        events: [PlayerEvent] = [],
        eventsOpenFor: Duration = .zero,
        flipTakes: Duration = .zero,
        snapshotGate: ThreadGate? = nil
    ) {
        self.flipTakes = flipTakes
        self.snapshotGate = snapshotGate
        self.script = script
        self.playerStatus = status ?? PlayerStatus(
            channel: Self.red, output: OutputFormat(width: 1280, height: 720, fps: 30, sink: "headless"),
            uptime: .seconds(42), lastFlip: nil
        )
        self.channelList = channels ?? [
            ChannelStatus(channel: Self.red, state: .hot, media: Self.redMedia),
            ChannelStatus(channel: Self.news, state: .stalled(reason: "no data for 5 s")),
        ]
        self.snapshot = snapshot
        self.scriptedEvents = events
        self.eventsOpenFor = eventsOpenFor
    }

    private var scopes: [FlipScope] = []
    var scopeRequests: [FlipScope] { lock.withLock { scopes } }
    func setFlipScope(_ scope: FlipScope) async { lock.withLock { scopes.append(scope) } }

    var flipRequests: [FlipRequest] { lock.withLock { requests } }
    var snapshotRequests: [Int?] { lock.withLock { snapshotWidths } }
    /// For each snapshot: whether it ran on the still-image thread.
    var snapshotsOnStillImageThread: [Bool] { lock.withLock { snapshotThreads } }
    /// Event streams handed out and not yet terminated.
    var openSubscriptions: Int { lock.withLock { subscriptions } }

    func flip(_ request: FlipRequest) async -> FlipResult {
        let id = lock.withLock {
            requests.append(request)
            defer { nextRequestID += 1 }
            return nextRequestID
        }
        if flipTakes > .zero { try? await Task.sleep(for: flipTakes) }
        var result = script(request)
        result.requestID = RequestID(id)
        return result
    }

    func status() async -> PlayerStatus { playerStatus }
    func channels() async -> [ChannelStatus] { channelList }

    func snapshotPNG(width: Int?) async throws -> [UInt8] {
        let onStillImageThread = StillImageExecutor.shared.isCurrentThread
        lock.withLock {
            snapshotWidths.append(width)
            snapshotThreads.append(onStillImageThread)
        }
        snapshotGate?.pass()
        return try snapshot.get()
    }

    func events() -> AsyncStream<PlayerEvent> {
        let events = scriptedEvents
        let openFor = eventsOpenFor
        lock.withLock { subscriptions += 1 }
        return AsyncStream { continuation in
            let task = Task {
                for event in events { continuation.yield(event) }
                if openFor > .zero { try? await Task.sleep(for: openFor) }
                continuation.finish()
            }
            continuation.onTermination = { [weak self] _ in
                task.cancel()
                self?.lock.withLock { self?.subscriptions -= 1 }
            }
        }
    }

    /// Every flip completes on 7 Red Test, warm, 18 ms.
    static let completeOnRed: @Sendable (FlipRequest) -> FlipResult = { _ in
        FlipResult(requestID: 0, outcome: .completed, channel: ChannelSummary(red), latency: .milliseconds(18), path: .warm)
    }

    static func failing(_ error: String, _ failure: FlipFailure = .sourceFailed) -> @Sendable (FlipRequest) -> FlipResult {
        { _ in FlipResult(requestID: 0, outcome: .failed, channel: nil, error: error, failure: failure) }
    }
}

/// Blocks the threads that reach it until it is opened.
final class ThreadGate: @unchecked Sendable {
    // Sendable: `opened` is only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var opened = false

    var isOpen: Bool { condition.withLock { opened } }

    /// Returns once the gate is open (at once if it is).
    func pass() {
        condition.withLock { while !opened { condition.wait() } }
    }

    func open() {
        condition.withLock {
            opened = true
            condition.broadcast()
        }
    }
}
