import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// How many connections an HTTP server holds at once and how long a request's head may take:
/// the defence against a client that opens many connections, or sends its headers a byte at a
/// time (slowloris), until the server has no room for anyone else.
public struct ConnectionLimits: Sendable, Hashable {
    /// Connections open at once; one more is answered 503 and closed.
    public var maxConnections: Int
    /// Connections open at once from one address (loopback and `exempt` excepted: programs on
    /// the box, a declared proxy whose clients all share its address); one more is answered 503.
    public var maxPerAddress: Int
    /// From a request's first byte (or the connection's start) to the end of its head; past it
    /// the connection is answered 408 and closed. A response being sent is never cut.
    public var headerTimeout: TimeAmount

    public init(maxConnections: Int, maxPerAddress: Int = 64, headerTimeout: TimeAmount = .seconds(10)) {
        self.maxConnections = maxConnections
        self.maxPerAddress = maxPerAddress
        self.headerTimeout = headerTimeout
    }
}

/// The connections one server holds now, by address; shared by all its connections (any thread).
public final class ConnectionCounter: Sendable {
    public let limits: ConnectionLimits
    /// Addresses not held to `maxPerAddress` besides loopback (a declared proxy).
    private let exempt: @Sendable (String) -> Bool
    private let state = NIOLockedValueBox<(total: Int, byAddress: [String: Int])>((0, [:]))

    public init(limits: ConnectionLimits, exempt: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.limits = limits
        self.exempt = exempt
    }

    /// Connections open now.
    public var open: Int { state.withLockedValue { $0.total } }

    /// Takes a place for a connection from `address`; the message to answer with when there is none.
    func acquire(_ address: String?) -> String? {
        let key = address ?? "?"
        let capped = address.map { !Self.isLoopback($0) && !exempt($0) } ?? true
        return state.withLockedValue { state in
            if state.total >= limits.maxConnections {
                return "this server already holds \(limits.maxConnections) connections, its limit; try again in a moment"
            }
            let mine = state.byAddress[key, default: 0]
            if capped && mine >= limits.maxPerAddress {
                return "\(key) already holds \(limits.maxPerAddress) connections to this server, the most one address may; close some and try again"
            }
            state.total += 1
            state.byAddress[key] = mine + 1
            return nil
        }
    }

    func release(_ address: String?) {
        let key = address ?? "?"
        state.withLockedValue { state in
            state.total = max(0, state.total - 1)
            let left = state.byAddress[key, default: 1] - 1
            state.byAddress[key] = left > 0 ? left : nil
        }
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// The handlers to add after the HTTP codec of each connection (Hummingbird's
    /// `additionalChannelHandlers`): they count the connection and time its request heads.
    /// `answer(status, reason, message)`: the raw HTTP answer sent before closing.
    public func handlers(answer: @escaping @Sendable (Int, String, String) -> String = ConnectionCounter.jsonAnswer) -> [any RemovableChannelHandler] {
        [RequestHeadTimer(counter: self, answer: answer)]
    }

    /// `HTTP/1.1 STATUS REASON` with `{"error": message}`, closing the connection.
    @Sendable public static func jsonAnswer(status: Int, reason: String, message: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? String(decoding: encoder.encode(["error": message]), as: UTF8.self)) ?? #"{"error":"refused"}"#
        let body = json + "\n"
        let retry = status == 503 ? "retry-after: 1\r\n" : ""
        return "HTTP/1.1 \(status) \(reason)\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: \(body.utf8.count)\r\n"
            + "cache-control: no-store\r\n\(retry)connection: close\r\n\r\n\(body)"
    }
}

/// After the HTTP decoder: counts the connection (503 beyond the limits), and times each
/// request's head: armed when the connection opens and at the first raw byte of each later
/// request (seen by ``FirstByteWatch``, which it puts first in the pipeline), disarmed when the
/// head is decoded. While a response is sent, or between requests, nothing is timed (the
/// server's idle timeout covers a quiet connection). All on the connection's event loop.
final class RequestHeadTimer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum State { case awaitingHead, inRequest, idle, closing }

    let counter: ConnectionCounter
    let answer: @Sendable (Int, String, String) -> String
    private(set) var state = State.awaitingHead
    private var timer: Scheduled<Void>?
    private var watch: FirstByteWatch?

    init(counter: ConnectionCounter, answer: @escaping @Sendable (Int, String, String) -> String) {
        self.counter = counter
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let watch = FirstByteWatch(timer: self)
        self.watch = watch
        do {
            try context.pipeline.syncOperations.addHandler(watch, position: .first)
        } catch {
            context.fireErrorCaught(error)
            return
        }
        if context.channel.isActive { connectionStarted(context.channel) }
    }

    private var started = false

    /// The connection is up (called once, from here or from the watch's `channelActive`): takes
    /// its place, or refuses it; then times its first request's head.
    func connectionStarted(_ channel: any Channel) {
        guard !started else { return }
        started = true
        let address = channel.remoteAddress?.ipAddress
        if let refusal = counter.acquire(address) {
            state = .closing
            watch?.refuse(status: 503, reason: "Service Unavailable", message: refusal)
            return
        }
        let counter = self.counter
        channel.closeFuture.whenComplete { _ in counter.release(address) }
        arm(channel.eventLoop)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    /// A raw byte arrived: a new request starts when none was under way.
    func bytesArrived(_ loop: any EventLoop) {
        if state == .idle {
            state = .awaitingHead
            arm(loop)
        }
    }

    private func arm(_ loop: any EventLoop) {
        timer?.cancel()
        let limit = counter.limits.headerTimeout
        let bound = NIOLoopBound(self, eventLoop: loop)
        timer = loop.scheduleTask(in: limit) {
            let handler = bound.value
            guard handler.state == .awaitingHead else { return }
            handler.state = .closing
            let seconds = Double(limit.nanoseconds) / 1e9
            handler.watch?.refuse(status: 408, reason: "Request Timeout", message: """
                the request's headers did not arrive within \(seconds.formatted(.number.precision(.fractionLength(0...1)))) s; \
                the connection is closed (a client must send a whole request head at once)
                """)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            timer?.cancel()
            timer = nil
            if state != .closing { state = .inRequest }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), state == .inRequest { state = .idle }
        context.write(data, promise: promise)
    }
}

/// First in the pipeline: tells the timer when raw bytes arrive, and sends a refusal on the raw
/// connection (the HTTP encoder may be in the middle of nothing, or of a response).
final class FirstByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private weak var timer: RequestHeadTimer?
    private var context: ChannelHandlerContext?
    private var refused = false

    init(timer: RequestHeadTimer) {
        self.timer = timer
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelActive(context: ChannelHandlerContext) {
        timer?.connectionStarted(context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a refusal what the client still sends is read and dropped.
        if refused { return }
        timer?.bytesArrived(context.eventLoop)
        context.fireChannelRead(data)
    }

    /// Answers `status` and closes: output first, then the whole connection 2 s later (closing
    /// with unread bytes would reset it and lose the answer).
    func refuse(status: Int, reason: String, message: String) {
        guard !refused, let context, let timer else { return }
        refused = true
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(ByteBuffer(string: timer.answer(status, reason, message)))).whenComplete { _ in
            bound.value.close(mode: .output, promise: nil)
            bound.value.eventLoop.scheduleTask(in: .seconds(2)) { bound.value.close(promise: nil) }
        }
    }
}
