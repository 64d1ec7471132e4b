import Foundation
import Lineup
import LoopbackStreams
import Serve
import Testing

extension ServeTests {
    /// A real head-end's `/logos/`: a picture is served as what it is; the process environment,
    /// a file that is no picture and the box's own loopback never are (issue 32: `/logos/` served
    /// `/proc/self/environ` with the token in it, and fetched a loopback URL for anyone).
    @Suite struct LogoServing {
        @Test func onlyPicturesFromAllowedPlacesAreServed() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-logo-serve-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let png = try #require(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="))
            let good = directory.appendingPathComponent("good.svg")  // a PNG whatever its name says
            try png.write(to: good)
            let secret = directory.appendingPathComponent("settings.png")
            try Data("FLIPBOX_TOKEN=s3cret-settings".utf8).write(to: secret)
            // What the box's own API would answer, on loopback.
            let api = try LoopbackHTTPServer { connection in
                let body = Array(#"{"token":"s3cret-api"}"#.utf8)
                connection.sendHead(contentType: "application/json", length: body.count)
                connection.send(body[...])
            }
            defer { api.stop() }
            setenv("FLIPBOX_LOGO_TEST_SECRET", "s3cret-environ", 1)

            let logos: [(Int, LogoReference)] = [
                (1, .file(good.path)), (2, .file("/proc/self/environ")), (3, .file(secret.path)),
                (4, .remote(try #require(URL(string: api.url("/api/v1/status"))))),
            ]
            let channels = logos.map { number, logo in
                var channel = makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: number, name: "Logo \(number)")
                channel.logo = logo
                return channel
            }
            let harness = try await ServeHarness(channels: channels, policy: .none)
            var answers: [Int: (status: String, body: String)] = [:]
            for number in 1...4 {
                let answer = try await runTool("curl", ["-s", "-D", "/dev/stderr", "-w", "\n%{http_code} %{content_type}", harness.url("/logos/ch\(number).png")])
                let text = answer.text
                let split = text.lastIndex(of: "\n").map { (String(text[text.index(after: $0)...]), String(text[..<$0])) } ?? (text, "")
                answers[number] = (split.0, split.1)
            }
            await harness.stop()

            #expect(answers[1]?.status == "200 image/png", "the PNG is served as a PNG: \(String(describing: answers[1]))")
            for number in 2...4 {
                let answer = try #require(answers[number])
                #expect(!answer.status.hasPrefix("200"), "channel \(number)'s logo is refused: \(answer)")
                #expect(!answer.body.contains("s3cret"), "no secret leaves the box: \(answer.body)")
                #expect(answer.body.contains("Logo \(number)"), "the refusal names the channel: \(answer.body)")
            }
            #expect(answers[2]?.body.contains("under /proc") == true, "\(String(describing: answers[2]))")
            #expect(answers[3]?.body.contains("not a picture") == true, "\(String(describing: answers[3]))")
            #expect(answers[4]?.body.contains("loopback") == true && answers[4]?.body.contains("--allow-logo-host") == true,
                    "\(String(describing: answers[4]))")
        }
    }
}
