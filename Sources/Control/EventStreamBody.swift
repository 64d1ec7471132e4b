import Hummingbird
import ServiceLifecycle
import Switcher

/// The body of `GET /api/v1/events`: every player event as a server-sent event, with a
/// `: keepalive` comment every `keepaliveInterval`.
///
/// Ends when the player's stream ends, on graceful shutdown of the server (so shutdown never waits
/// for a browser), or when writing fails (the client went away); the handler also cancels it when
/// the request's inbound side closes.
enum EventStreamBody {
    static func write(
        events: AsyncStream<PlayerEvent>,
        keepaliveInterval: Duration,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        let (messages, sink) = AsyncStream.makeStream(of: ServerSentEvent.self, bufferingPolicy: .bufferingNewest(1024))
        try await withGracefulShutdownHandler {
            try await forward(events: events, keepaliveInterval: keepaliveInterval, messages: messages, sink: sink, to: &writer)
        } onGracefulShutdown: {
            sink.finish()
        }
    }

    private static func forward(
        events: AsyncStream<PlayerEvent>,
        keepaliveInterval: Duration,
        messages: AsyncStream<ServerSentEvent>,
        sink: AsyncStream<ServerSentEvent>.Continuation,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    sink.yield(ServerSentEvent(event))
                }
                sink.finish()
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: keepaliveInterval)
                    sink.yield(.keepalive)
                }
            }
            for await message in messages {
                try await writer.write(ByteBuffer(string: message.encoded))
            }
            group.cancelAll()
        }
    }
}
