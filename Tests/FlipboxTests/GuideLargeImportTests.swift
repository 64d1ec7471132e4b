import Foundation
import TestSupport
import Testing

/// A very large guide from a URL is streamed: `flipbox guide import` of a few hundred MB,
/// generated on the fly by a loopback server (downloaded to disk, then read a node at a time),
/// grows the importing process by a bounded amount, measured as the child's peak RSS against
/// the import of a small guide: 8-15 MB on 2026-11-29, under load (it was 90-128 MB while the
/// download was queued in memory and libxml2 built each text whole).
@Suite(.serialized) struct GuideLargeImportTests {
    /// Serves `/small.xml` (two programmes) and `/large.xml`: the same, then `count` programmes
    /// of a channel no lineup has, each with a description of `descriptionBytes`, and one with a
    /// description of 9 MB (just under libxml2's limit for one text). Nothing is held: written as generated.
    static func server(count: Int, descriptionBytes: Int) throws -> PythonServer {
        try PythonServer(script: """
            import http.server, socketserver
            head = (b'<?xml version="1.0" encoding="UTF-8"?>\\n<tv>\\n'
                    b'<channel id="one.example"><display-name>One</display-name></channel>\\n'
                    b'<channel id="far.example"><display-name>Far Away</display-name></channel>\\n'
                    b'<programme channel="one.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>Evening News</title></programme>\\n'
                    b'<programme channel="one.example" start="20261122200000 +0000" stop="20261122210000 +0000"><title>Late Film</title></programme>\\n')
            words = b'lorem ipsum dolor sit amet consectetur '
            chunk = (words * (\(descriptionBytes) // len(words) + 1))[:\(descriptionBytes)]
            enormous = (words * (9_000_000 // len(words) + 1))[:9_000_000]
            class H(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.0"
                def log_message(self, *a): pass
                def do_GET(self):
                    self.send_response(200); self.send_header("Content-Type", "application/xml"); self.end_headers()
                    try:
                        self.wfile.write(head)
                        if self.path == "/large.xml":
                            for i in range(\(count)):
                                t = 20261123000000 + (i // 60) * 10000 + (i % 60) * 100
                                desc = enormous if i == \(count / 2) else chunk
                                self.wfile.write(b'<programme channel="far.example" start="%d +0000"><title>Far %d</title><desc>' % (t, i)
                                                 + desc + b'</desc></programme>\\n')
                        self.wfile.write(b'</tv>\\n')
                    except OSError:
                        pass
            class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
                daemon_threads = True
            srv = S(("127.0.0.1", 0), H)
            print(srv.server_address[1], flush=True)
            srv.serve_forever()
            """)
    }

    /// Runs `flipbox arguments` under Python, which reports the child's peak RSS (KiB) on its last line.
    func importMeasured(_ arguments: [String]) throws -> (status: Int32, output: String, peakKiB: Int) {
        let run = try FlipboxProcess.runToEnd(program: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            sys.stdout.write(r.stdout.decode(errors="replace"))
            print("exit %d" % r.returncode)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """, FlipboxProcess.executable.path] + arguments)
        let lines = run.output.split(separator: "\n").map(String.init)
        let status = lines.dropLast().last.flatMap { Int32($0.replacingOccurrences(of: "exit ", with: "")) } ?? -1
        return (status, lines.dropLast(2).joined(separator: "\n"), Int(lines.last ?? "") ?? -1)
    }

    @Test(.timeLimit(.minutes(3))) func aGuideOfHundredsOfMegabytesIsImportedInBoundedMemory() async throws {
        try await offPool {
            // 280 programmes with 1 MB descriptions and one of 9 MB: about 290 MB of XML.
            let server = try Self.server(count: 280, descriptionBytes: 1_000_000)
            defer { server.stop() }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-large-guide-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }

            let small = try importMeasured(["guide", "import", "http://127.0.0.1:\(server.port)/small.xml", "--state-dir", dir.appendingPathComponent("small").path])
            #expect(small.status == 0, "\(small.output)")
            #expect(small.output.contains("imported 2 programmes on 2 channels"), "\(small.output)")

            let large = try importMeasured(["guide", "import", "http://127.0.0.1:\(server.port)/large.xml", "--state-dir", dir.appendingPathComponent("large").path])
            #expect(large.status == 0, "\(large.output)")
            #expect(large.output.contains("imported 282 programmes on 2 channels"), "\(large.output)")
            let growthMB = Double(large.peakKiB - small.peakKiB) / 1024
            #expect(small.peakKiB > 0 && large.peakKiB > 0)
            #expect(growthMB < 40, "peak RSS \(large.peakKiB / 1024) MB for ~290 MB of XML against \(small.peakKiB / 1024) MB for a small guide")
            // Nothing of the download is left beside the store, and the store holds descriptions
            // cut at 8 KB (280 of them), not 290 MB.
            let state = dir.appendingPathComponent("large").path
            let left = try FileManager.default.contentsOfDirectory(atPath: state)
            #expect(left.filter { $0.hasSuffix(".tmp") }.isEmpty, "\(left)")
            let stored = try FileManager.default.attributesOfItem(atPath: state + "/guide.sqlite")[.size] as? Int ?? .max
            #expect(stored < 10_000_000, "guide.sqlite is \(stored) bytes")
        }
    }
}
