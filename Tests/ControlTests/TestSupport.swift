import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

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
