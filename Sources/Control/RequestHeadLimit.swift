import ConnectionGuard
import Foundation
import NIOCore
import NIOHTTPTypes

/// Answers a request line longer than ``RequestLimits/requestLineBytes`` with 414 and a header
/// section larger than ``RequestLimits/headerBytes`` with 431, both with a JSON error, then closes
/// the connection. (SwiftNIO's own limits, far above these, would answer a bare 400.)
///
/// Two handlers share the work: ``RawHeadScanner`` reads the bytes before the HTTP decoder and
/// counts the request line and header lines of each request; ``RequestEndObserver``, after the
/// decoder, tells it where a request ends, so the next bytes are counted as a new head. Both run
/// on the connection's event loop. A client that pipelines requests (sends the next head before
/// the previous body ended) may have a head counted from the wrong byte; it is still bounded.
enum RequestHeadLimit {
    /// The handlers to add after the HTTP codec: the observer, which puts the scanner first in the pipeline.
    static func handlers(_ limits: RequestLimits) -> [any RemovableChannelHandler] {
        [RequestEndObserver(scanner: RawHeadScanner(limits: limits))]
    }

    /// The raw HTTP/1.1 answer sent before closing (the same JSON error as the connection caps').
    static func response(status: Int, reason: String, message: String) -> String {
        ConnectionCounter.jsonAnswer(status: status, reason: reason, message: message)
    }
}

/// Counts the bytes of each request's head as they arrive; refuses an over-long one.
final class RawHeadScanner: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum State: Equatable {
        /// In the request line, `count` bytes so far.
        case requestLine(count: Int)
        /// In the header lines: `count` bytes so far, `line` bytes in the current line (without CR).
        case headers(count: Int, line: Int)
        /// Past the head: body bytes (or the next request) until the observer says the request ended.
        case body
        /// Answered and closing: nothing more is read.
        case refused
    }

    let limits: RequestLimits
    private(set) var state = State.requestLine(count: 0)

    init(limits: RequestLimits) {
        self.limits = limits
    }

    /// The request whose head was counted has ended; the next byte starts a new one.
    func requestEnded() {
        if state == .body { state = .requestLine(count: 0) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if state == .refused { return }
        if state != .body, let refusal = scan(buffer.readableBytesView) {
            state = .refused
            // Half-close after the answer and keep reading (and dropping) what the client still
            // sends: closing with unread bytes would reset the connection and lose the answer.
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: refusal))).whenComplete { _ in
                bound.value.close(mode: .output, promise: nil)
                bound.value.eventLoop.scheduleTask(in: .seconds(2)) { bound.value.close(promise: nil) }
            }
            return
        }
        context.fireChannelRead(data)
    }

    /// Advances the state over `bytes`; the answer to send when a limit is passed.
    func scan(_ bytes: ByteBufferView) -> String? {
        for byte in bytes {
            switch state {
            case .requestLine(let count):
                if byte == UInt8(ascii: "\n") {
                    state = .headers(count: 0, line: 0)
                } else if count + 1 > limits.requestLineBytes {
                    return RequestHeadLimit.response(status: 414, reason: "URI Too Long", message: """
                        the request line (method, URL and version) is longer than \(limits.requestLineBytes) bytes; \
                        use a shorter URL (this API's URLs are short: see /api/v1/openapi.json)
                        """)
                } else {
                    state = .requestLine(count: count + 1)
                }
            case .headers(let count, let line):
                if count + 1 > limits.headerBytes {
                    return RequestHeadLimit.response(status: 431, reason: "Request Header Fields Too Large", message: """
                        the request's headers take more than \(limits.headerBytes) bytes; send fewer or shorter \
                        headers (this API reads Host, Origin, Referer, Authorization, Content-Type and Content-Length)
                        """)
                }
                if byte == UInt8(ascii: "\n") {
                    state = line == 0 ? .body : .headers(count: count + 1, line: 0)
                } else if byte == UInt8(ascii: "\r") {
                    state = .headers(count: count + 1, line: line)
                } else {
                    state = .headers(count: count + 1, line: line + 1)
                }
            case .body, .refused:
                return nil
            }
        }
        return nil
    }
}

/// After the HTTP decoder: tells the scanner where each request ends, and puts it in place.
final class RequestEndObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let scanner: RawHeadScanner

    init(scanner: RawHeadScanner) {
        self.scanner = scanner
    }

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            try context.pipeline.syncOperations.addHandler(scanner, position: .first)
        } catch {
            context.fireErrorCaught(error)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { scanner.requestEnded() }
        context.fireChannelRead(data)
    }
}
