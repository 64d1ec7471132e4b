import Foundation
import GStreamer
@testable import Headend
import LoopbackStreams
import Testing
import TestSupport

extension HeadendTests {
    /// An HTTP channel stopped again and again while it connects (what a stall, a reconnect or
    /// a parked channel does) leaves no file behind. In GStreamer 1.22 each `souphttpsrc` that
    /// made its own libsoup session left that session's `GMainContext` (an eventfd) alive when
    /// its pipeline stopped mid-request: the soak's open files grew by 35 eventfds in an hour.
    /// Now the process shares one session (`SharedContexts`). Without it: 6 -> 10 to 14 eventfds
    /// in 40 cycles. Runs in a process of its own, so the count is this channel's alone.
    @Suite struct ConnectTeardownLeakTests {
        @Test func anHTTPChannelStoppedWhileItConnectsLeavesNoFileBehind() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]) {
                do {
                    print(try await stopWhileConnecting())
                } catch {
                    print("check failed: \(error)")
                }
            }
            guard let result else { return }
            let said = String(decoding: result.standardOutputContent, as: UTF8.self)
            if !said.contains("no file left behind") {
                Issue.record("\(said.suffix(2000))\n\(String(decoding: result.standardErrorContent.suffix(2000), as: UTF8.self))")
            }
        }
    }
}

private struct LeakFailure: Error, CustomStringConvertible { let description: String }

/// The process's open files by kind, as `/proc/self/fd` names them (`eventfd`, `socket`, ...).
private func openFiles() -> [String: Int] {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    var kinds: [String: Int] = [:]
    for fd in fds {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { continue }
        let kind = target.hasPrefix("anon_inode:") ? String(target.dropFirst("anon_inode:".count)).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            : target.hasPrefix("socket:") ? "socket" : target.hasPrefix("pipe:") ? "pipe" : "file"
        kinds[kind, default: 0] += 1
    }
    return kinds
}

private func stopWhileConnecting() async throws -> String {
    try GStreamer.initialize()
    let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 6, bitrateKbps: 400, hue: 0, toneHz: 300)
    let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
    let server = try LiveTransportStreamServer(clip: clip)
    defer { server.stop() }
    let (source, _) = makeSource([server.url])
    await source.start()
    guard await eventually(within: 10, { source.state == .warm }) else { throw LeakFailure(description: "the channel never became warm") }
    let before = openFiles()
    var rng = SplitMix(seed: 20261125)
    for _ in 0..<40 {
        await source.stop()
        await source.start()
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &rng)))
    }
    guard await eventually(within: 10, { source.state == .warm }) else { throw LeakFailure(description: "not warm again after the cycles") }
    // Pipelines go a little after their stop (their last references leave with their tasks).
    var after = openFiles()
    _ = await eventually(within: 5) {
        after = openFiles()
        return after["eventfd", default: 0] <= before["eventfd", default: 0] && PipelineCensus.alive <= 1
    }
    await source.stop()
    guard server.connections >= 20 else { throw LeakFailure(description: "only \(server.connections) connections reached the server") }
    guard after["eventfd", default: 0] <= before["eventfd", default: 0] else {
        throw LeakFailure(description: "eventfds \(before["eventfd", default: 0]) -> \(after["eventfd", default: 0]) after 40 stops while connecting (open files \(before) -> \(after))")
    }
    return "no file left behind: eventfds \(before["eventfd", default: 0]) -> \(after["eventfd", default: 0]), \(server.connections) connections"
}
