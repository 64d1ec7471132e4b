import ConnectionGuard
import Foundation
import Lineup
@testable import Serve
import Testing

extension ServeTests {
    /// Forwarded addresses are believed only from declared proxies (`--serve-trusted-proxy`): a
    /// real head-end on loopback, curl sending the headers a proxy on the box would send.
    @Suite struct TrustedProxy {
        static func status(_ harness: ServeHarness, _ path: String, _ headers: [String]) async throws -> (code: String, body: String) {
            let run = try await runTool("curl", ["-s", "-w", "\n%{http_code}"] + headers.flatMap { ["-H", $0] } + [harness.url(path)])
            let lines = run.text.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }

        @Test func aLoopbackPeerForwardingForAnotherClientIsNoLongerTrusted() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://color/00ff00?size=160x90&fps=15", number: 1)], policy: .none) {
                $0.allowed = [NetworkRange("192.168.1.0/24")!]
                $0.token = "proxy-test-token"
            }
            // A program on the box itself still watches.
            #expect(try await Self.status(harness, "/lineup.json", []).code == "200")
            // What an undeclared nginx on the box sends for a LAN client, allowed or not: refused.
            for header in ["X-Forwarded-For: 10.0.0.9", "X-Forwarded-For: 192.168.1.7", "Forwarded: for=10.0.0.9"] {
                let answer = try await Self.status(harness, "/lineup.json", [header])
                #expect(answer.code == "403" && answer.body.contains("--serve-trusted-proxy 127.0.0.1"), "\(header): \(answer)")
            }
            // The token lets the owner through whatever the headers say.
            #expect(try await Self.status(harness, "/lineup.json?token=proxy-test-token", ["X-Forwarded-For: 10.0.0.9"]).code == "200")
            await harness.stop()
        }

        @Test func aDeclaredProxysClientIsJudgedByItsOwnAddress() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://color/00ff00?size=160x90&fps=15", number: 1)], policy: .none) {
                $0.allowed = [NetworkRange("192.168.1.0/24")!]
                $0.trustedProxies = [NetworkRange("127.0.0.1")!, NetworkRange("10.9.0.0/16")!]
            }
            let cases: [(String, String)] = [
                ("X-Forwarded-For: 192.168.1.7", "200"),
                ("X-Forwarded-For: 10.0.0.9", "403"),
                // The client wrote an allowed address itself; the proxy appended the real one.
                ("X-Forwarded-For: 192.168.1.7, 10.0.0.9", "403"),
                // Through two declared proxies: the client before them.
                ("X-Forwarded-For: 192.168.1.7, 10.9.0.1", "200"),
                ("Forwarded: for=192.168.1.7;proto=http", "200"),
                ("Forwarded: for=\"[2001:db8::1]:4711\"", "403"),
                ("Forwarded: for=unknown", "403"),
                ("X-Forwarded-For: not-an-address", "403"),
            ]
            for (header, expected) in cases {
                let answer = try await Self.status(harness, "/lineup.json", [header])
                #expect(answer.code == expected, "\(header): \(answer)")
            }
            let refused = try await Self.status(harness, "/lineup.json", ["X-Forwarded-For: 10.0.0.9"])
            #expect(refused.body.contains("refused: 10.0.0.9 may not watch this head-end"), "\(refused.body)")
            // Two headers naming different clients: neither is believed.
            let mixed = try await Self.status(harness, "/lineup.json", ["X-Forwarded-For: 192.168.1.7", "Forwarded: for=10.0.0.9"])
            #expect(mixed.code == "403" && mixed.body.contains("different clients"), "\(mixed)")
            // A chain longer than 64 addresses is refused, not walked.
            let long = (0..<70).map { _ in "192.168.1.7" }.joined(separator: ", ")
            #expect(try await Self.status(harness, "/lineup.json", ["X-Forwarded-For: \(long)"]).code == "403")
            await harness.stop()
        }

        @Test func forwardedAddressesAreReadAsProxiesWriteThem() {
            #expect(ForwardedClient.address(" 192.0.2.7 ") == "192.0.2.7")
            #expect(ForwardedClient.address("192.0.2.7:4711") == "192.0.2.7")
            #expect(ForwardedClient.address("\"[2001:db8::1]:4711\"") == "2001:db8::1")
            #expect(ForwardedClient.address("2001:db8::1") == "2001:db8::1")
            #expect(ForwardedClient.address("unknown") == nil)
            #expect(ForwardedClient.address("_hidden") == nil)
            #expect(ForwardedClient.address(String(repeating: "1", count: 10_000)) == nil)
            #expect(ForwardedClient.forwardedChain(["for=192.0.2.43, for=198.51.100.17;by=203.0.113.60;proto=http"]) == ["192.0.2.43", "198.51.100.17"])
            #expect(ForwardedClient.forwardedChain(["proto=http"]) == nil)
        }
    }
}
