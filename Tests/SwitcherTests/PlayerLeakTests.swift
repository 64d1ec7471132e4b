import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Switcher
import Testing

/// A player that was started, flipped 200 times and stopped leaves nothing behind: no pipeline,
/// no element, no file descriptor. Each check runs in a process of its own (an exit test), so
/// the counts are the player's alone and not the other tests'.
@Suite struct PlayerLeakTests {
    @Test func twoHundredFlipsThenShutdownLeaveNoPipelineElementOrFile() async {
        // The child's standard error is kept, so a crash says where (a Swift trap prints its reason).
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            try GStreamer.initialize()
            let logger = Logger(label: "leak") { _ in SwiftLogNoOpLogHandler() }
            let lineup = Lineup(channels: (1...4).map { n in
                Channel(id: "c\(n)", number: ChannelNumber(n), name: "C\(n)",
                        sources: ["test://color/\(["ff0000", "00ff00", "0000ff", "808080"][n - 1])?size=160x90&fps=15&gop=15&tone=\(300 * n)"])
            })
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-leak-\(UUID().uuidString).json").path
            func run(flips: Int) async throws {
                let options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all, stateFile: state)
                let player = try Player(lineup: lineup, options: options, logger: logger)
                try await player.start()
                var answered = 0
                for i in 0..<flips {
                    let result: FlipResult
                    switch i % 4 {
                    case 0: result = await player.next()
                    case 1: result = await player.previous()
                    case 2: result = await player.tune(number: ChannelNumber(1 + i % 4))
                    default: result = await player.recall()
                    }
                    if result.outcome == .completed || result.outcome == .failed { answered += 1 }
                }
                _ = try await player.snapshotPNG(width: 100)
                // The census sees the running player (so the zeros below mean something).
                let running = ProcessResources.current()
                guard running.pipelines >= 5, running.elements >= 20 else { throw LeakFailure("the census sees too little: \(running)") }
                await player.shutdown()
                guard answered == flips else { throw LeakFailure("\(answered) of \(flips) flips answered") }
            }
            // A first player warms GStreamer up (plugins, the media thread, the system clock).
            try await run(flips: 4)
            try await settle()
            let before = ProcessResources.current()
            guard before.pipelines == 0, before.elements == 0 else { throw LeakFailure("after the warm-up player: \(before)") }
            try await run(flips: 200)
            try await settle()
            let after = ProcessResources.current()
            guard after.pipelines == 0 else { throw LeakFailure("\(after.pipelines) pipelines alive after shutdown") }
            guard after.elements == 0 else { throw LeakFailure("\(after.elements) elements alive after shutdown") }
            guard after.openFiles <= before.openFiles else {
                throw LeakFailure("open files \(before.openFiles) -> \(after.openFiles)")
            }
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("the leak check's process ended with \(result.exitStatus): \(String(decoding: result.standardErrorContent.suffix(4000), as: UTF8.self))")
        }
    }
}

/// Waits (up to 5 s) until every pipeline and element is freed: the last references go as the
/// player's tasks end.
private func settle() async throws {
    for _ in 0..<50 where PipelineCensus.alive > 0 || PipelineCensus.elementsAlive > 0 {
        try await Task.sleep(for: .milliseconds(100))
    }
}

private struct LeakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
