import Foundation
import Lineup
@testable import Guide

/// Paths of the XMLTV files the tests read (no bundle resources).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// A fresh directory under the system temporary directory; `remove()` deletes it.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("guide-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Compresses a file with the system's gzip into `destination`.
func gzip(_ source: String, to destination: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -c \"$0\" > \"$1\"", source, destination]
    try process.run()
    process.waitUntilExit()
}

/// `YYYY-MM-DDThh:mm:ssZ` as a date.
func utc(_ text: String) -> Date { GuideTime.parse(text)! }

/// A lineup of channels by (number, name, guide id); ids are slugs of the names.
func lineup(_ channels: [(Int, String, String?)], guides: [String]) -> Lineup {
    Lineup(channels: channels.map { number, name, guideID in
        Channel(id: name.lowercased().replacingOccurrences(of: " ", with: "-"), number: ChannelNumber(number),
                name: name, sources: ["test://snow"], guideID: guideID)
    }, guideURLs: guides)
}

/// Python's http.server on 127.0.0.1 serving a directory, on a port it picks.
final class LoopbackHTTPServer {
    let process = Process()
    let port: Int

    init(serving directory: String) throws {
        // The server writes the port it got to a file next to the directory; polled below.
        let portFile = directory + ".port"
        let script = """
            import http.server, os, sys
            os.chdir(sys.argv[1])
            class Quiet(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
            s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
            with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(s.server_address[1]))
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            s.serve_forever()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, directory, portFile]
        try process.run()
        var port: Int?
        for _ in 0..<100 where port == nil {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { usleep(50_000) }
        }
        guard let port else {
            process.terminate()
            throw GuideError(.unreadable, "the test HTTP server did not start")
        }
        self.port = port
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
