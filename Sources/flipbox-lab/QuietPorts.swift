import Foundation
import GStreamer

/// Checks that nothing already sends to the benchmark's UDP ports: a sender left by a bench that
/// was killed would interleave a second stream into a channel and make every figure wrong.
enum QuietPorts {
    struct Busy: Error, CustomStringConvertible {
        var port: Int
        var description: String {
            "something already sends to udp://127.0.0.1:\(port) (a sender left by an earlier bench? see `pgrep -af 127.0.0.1:\(port)`); stop it or choose another --port"
        }
    }

    /// Listens on each port for `window` and throws `Busy` for the first that receives anything.
    static func check(_ ports: Range<Int>, window: Duration = .milliseconds(400)) throws {
        var pipelines: [(Int, Pipeline, Flag)] = []
        defer { for (_, p, _) in pipelines { p.shutdown() } }
        for port in ports {
            let pipeline = try Pipeline(description: "udpsrc address=127.0.0.1 port=\(port) ! appsink name=sink sync=false emit-signals=false max-buffers=1 drop=true")
            let heard = Flag()
            pipeline.appSink(named: "sink")?.onSample { _ in heard.set() }
            try pipeline.setState(.playing)
            pipelines.append((port, pipeline, heard))
        }
        Thread.sleep(forTimeInterval: window.seconds)
        if let (port, _, _) = pipelines.first(where: { $0.2.isSet }) { throw Busy(port: port) }
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}
