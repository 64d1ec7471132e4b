import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Unix stream socket that speaks as lircd does, for a test: a Python process listens at `path`
/// (replacing a stale socket there) and sends every byte given to ``send(_:)`` to each connected
/// client, as lircd writes its button lines and reply blocks. ``connections`` counts the clients
/// it accepted. ``stop()`` kills it (SIGKILL, as a crashed lircd) and removes the socket.
public final class LircdSocket: @unchecked Sendable {
    public let path: String
    private let process = Process()
    private let input = Pipe()
    private let log: URL

    static let script = """
        import os, socket, sys, threading
        path = sys.argv[1]
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(8)
        clients, lock = [], threading.Lock()
        def accept():
            while True:
                client, _ = server.accept()
                with lock:
                    clients.append(client)
                sys.stdout.write("connected\\n")
                sys.stdout.flush()
        threading.Thread(target=accept, daemon=True).start()
        while True:
            data = os.read(0, 65536)
            if not data:
                break
            with lock:
                for client in list(clients):
                    try:
                        client.sendall(data)
                    except OSError:
                        clients.remove(client)
        """

    public init(path: String) throws {
        self.path = path
        log = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-lircd-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", Self.script, path]
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: log)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) != .typeSocket {
            guard Date() < deadline, process.isRunning else { throw POSIXError(.ENOENT) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Sends `text` as it is (lines end with `\n`) to every connected client.
    public func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// How many clients connected so far.
    public var connections: Int {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == "connected" }.count
    }

    /// Waits until `count` clients have connected; whether they did within `seconds`.
    public func waitForConnections(_ count: Int, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while connections < count {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        unlink(path)
    }
}
