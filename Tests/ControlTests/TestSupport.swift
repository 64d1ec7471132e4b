import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

/// Collects what was logged through it (any thread), at `minimum` and above.
final class LogRecorder: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private let minimum: Logger.Level
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    init(minimum: Logger.Level) { self.minimum = minimum }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        if event.level >= minimum { lock.withLock { lines.append(event.message.description) } }
    }
    var messages: [String] { lock.withLock { lines } }
}

/// A logger that prints nothing.
let quietLogger = Logger(label: "control-tests") { _ in SwiftLogNoOpLogHandler() }

/// Runs `test` against the control API built for `player`, through the router (no sockets).
func withControlAPI(
    _ player: FakePlayer,
    configuration: ControlServerConfiguration = ControlServerConfiguration(),
    _ test: @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    let app = try makeControlApplication(player: player, configuration: configuration, logger: quietLogger)
    try await app.test(.router, test)
}

/// The body parsed as a JSON object (keys with `null` values are kept as `NSNull`).
func jsonObject(_ response: TestResponse) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(buffer: response.body))
    guard let object = value as? [String: Any] else { throw JSONShapeError(text: String(buffer: response.body)) }
    return object
}

struct JSONShapeError: Error { var text: String }

extension Data {
    init(buffer: ByteBuffer) {
        self.init(buffer.readableBytesView)
    }
}
