import Foundation
import GStreamer
@testable import Headend
import Lineup
import Logging
import LoopbackStreams
import Synchronization
import Testing

extension HeadendTests {
    /// An IPTV account's stream URLs carry its password (`/live/USER/PASSWORD/ID.ts`, a URL's
    /// `user:password@`, `?password=`): a channel whose server refuses them says why, in its state
    /// and in the log, naming the URL, never with the password.
    @Suite struct SourceMasking {
        init() throws { try GStreamer.initialize() }

        @Test func aFailingChannelSaysWhyWithoutItsAccountsPassword() async throws {
            let asked = Mutex<[String]>([])
            let server = try LoopbackHTTPServer { connection in
                asked.withLock { $0.append(connection.path) }
                connection.sendHead(status: 404, reason: "Not Found", contentType: "text/plain", length: 0)
            }
            defer { server.stop() }
            // The Xtream source registers its account's password when it reads it; so does this.
            let password = "Pw-\(UUID().uuidString.prefix(8))"
            SourceText.register(secret: password)
            let base = "http://127.0.0.1:\(server.port)"
            let lineup = Lineup(channels: [
                makeChannel(["\(base)/live/viewer/\(password)/101.ts"], number: 1, name: "In the path"),
                makeChannel(["http://viewer:hunter2-\(password.suffix(4))@127.0.0.1:\(server.port)/2.ts"], number: 2, name: "In the user info"),
                makeChannel(["\(base)/get.php?username=viewer&password=query-\(password.suffix(4))&stream=3"], number: 3, name: "In the query"),
            ])
            let recorder = WarningRecorder()
            let logger = Logger(label: "masking") { _ in recorder }
            let headend = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 320, height: 180), logger: logger)
            await headend.applyPolicy(current: nil, last: nil)
            let failed = await eventually(within: 20) {
                headend.sources.allSatisfy { if case .failed = $0.state { true } else { false } }
            }
            #expect(failed, "every channel fails: \(headend.states().map(\.description))")
            #expect(asked.withLock { $0 }.contains("/live/viewer/\(password)/101.ts"), "the server was asked with the password")
            let said = headend.states().map(\.description) + recorder.all
            for secret in [password, "hunter2-\(password.suffix(4))", "query-\(password.suffix(4))"] {
                #expect(!said.contains { $0.contains(secret) }, "\(secret) is shown: \(said)")
            }
            // Each still says which channel's URL failed, and how.
            let states = headend.states().map(\.description)
            #expect(states.contains { $0.contains("/live/viewer/\(SourceText.mask)/101.ts") && $0.contains("Not Found") }, "\(states)")
            #expect(states.contains { $0.contains("viewer:\(SourceText.mask)@127.0.0.1") }, "\(states)")
            #expect(states.contains { $0.contains("password=\(SourceText.mask)&stream=3") }, "\(states)")
            #expect(recorder.all.contains { $0.contains("channel 1 In the path") && $0.contains(SourceText.mask) }, "\(recorder.all)")
            await headend.shutdown()
        }
    }
}
