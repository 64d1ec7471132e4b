import Foundation
import Lineup
import TestSupport
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

/// Python's http.server on 127.0.0.1 serving a directory, on a port it picks. (A
/// ``PythonServer``: stopped with SIGKILL, as children of the test process inherit its blocked
/// SIGTERM; `terminate()` left it running and the test waiting for it for good.)
final class LoopbackHTTPServer {
    let server: PythonServer

    /// Serves the files in `directory`; with `credentials` (`user:password`), only to a request
    /// that carries them as HTTP Basic (else 401, as a Tvheadend server answers).
    init(serving directory: String, credentials: String? = nil) throws {
        let expected = credentials.map { pythonString("Basic " + Data($0.utf8).base64EncodedString()) } ?? "None"
        server = try PythonServer(script: """
            import http.server, os
            os.chdir(\(pythonString(directory)))
            expected = \(expected)
            class Quiet(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    if expected is not None and self.headers.get('Authorization') != expected:
                        self.send_response(401)
                        self.send_header('WWW-Authenticate', 'Basic realm="tvheadend"')
                        self.send_header('Content-Length', '0')
                        self.end_headers()
                        return
                    super().do_GET()
            s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
            s.daemon_threads = True
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """)
    }

    /// A server that answers every request with 200, its headers and the start of a guide, then
    /// `rate` bytes of a body a second that never ends (0: nothing more).
    init(tricklingBytesPerSecond rate: Int) throws {
        server = try PythonServer(script: """
            import socket, threading, time
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", 0)); s.listen(16)
            print(s.getsockname()[1], flush=True)
            def trickle(c):
                try:
                    c.recv(65536)
                    c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: application/xml\\r\\nContent-Length: 100000000\\r\\n\\r\\n<?xml version=\\"1.0\\"?>\\n<tv>\\n")
                    while True:
                        time.sleep(1)
                        if \(rate) > 0: c.sendall(b" " * \(rate))
                except OSError:
                    pass
            while True:
                c, _ = s.accept()
                threading.Thread(target=trickle, args=(c,), daemon=True).start()
            """)
    }

    var port: Int { server.port }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    func stop() { server.stop() }
}

/// `text` as a Python string literal.
func pythonString(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}
