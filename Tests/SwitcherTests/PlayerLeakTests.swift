import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Switcher
import TestSupport
import Testing

/// A player that was started, flipped 200 times and stopped leaves nothing behind: no pipeline,
/// no element, no file descriptor. Each check runs in a process of its own (an exit test), so
/// the counts are the player's alone and not the other tests'.
@Suite(.heavy) struct PlayerLeakTests {
    @Test func twoHundredFlipsThenShutdownLeaveNoPipelineElementOrFile() async {
        // The child says its verdict on standard output and ends with 0 either way, so a failed
        // check reads as its reason here; a crash (a signal) still fails the expectation.
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]) {
            do {
                try await checkLeaks()
                print("leak check: clean")
            } catch {
                print("leak check failed: \(error)")
            }
        }
        guard let result else { return }
        let said = String(decoding: result.standardOutputContent, as: UTF8.self)
        if !said.contains("leak check: clean") {
            Issue.record("\(said.suffix(2000))\n\(String(decoding: result.standardErrorContent.suffix(2000), as: UTF8.self))")
        }
    }
}

/// Flips a player 200 times and stops it, then compares what the process holds with what it held
/// before that player.
private func checkLeaks() async throws {
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
    try await settle(files: before.openFiles)
    let after = ProcessResources.current()
    guard after.pipelines == 0 else { throw LeakFailure("\(after.pipelines) pipelines alive after shutdown") }
    guard after.elements == 0 else { throw LeakFailure("\(after.elements) elements alive after shutdown") }
    guard after.openFiles <= before.openFiles else {
        throw LeakFailure("open files \(before.openFiles) -> \(after.openFiles)")
    }
}

/// Waits (up to 5 s) until every pipeline and element is freed and, when given, the open files are
/// down to `files`: the last references go as the player's tasks end, and a pipeline's bus (its
/// two control sockets) can outlive the pipeline's count by a few milliseconds.
private func settle(files: Int = .max) async throws {
    for _ in 0..<50 where PipelineCensus.alive > 0 || PipelineCensus.elementsAlive > 0 || ProcessResources.current().openFiles > files {
        try await Task.sleep(for: .milliseconds(100))
    }
}

private struct LeakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
