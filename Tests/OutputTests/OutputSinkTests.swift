import Output
import Testing

/// `--output auto`'s rule.
@Suite struct OutputSinkTests {
    @Test func aWindowSystemWinsThenADisplayForAServiceOrAConsole() {
        #expect(OutputSink.automatic(environment: ["DISPLAY": ":0"], stdinIsTerminal: false, displayConnected: true) == .window)
        #expect(OutputSink.automatic(environment: ["WAYLAND_DISPLAY": "wayland-0"], stdinIsTerminal: true, displayConnected: false) == .window)
        // A service (no terminal) or the text console, with a display connected: KMS.
        #expect(OutputSink.automatic(environment: [:], stdinIsTerminal: false, displayConnected: true) == .kms)
        #expect(OutputSink.automatic(environment: ["TERM": "linux"], stdinIsTerminal: true, displayConnected: true) == .kms)
        // An ssh session or a terminal emulator without a window system, or no display: headless.
        #expect(OutputSink.automatic(environment: ["TERM": "xterm-256color"], stdinIsTerminal: true, displayConnected: true) == .headless)
        #expect(OutputSink.automatic(environment: [:], stdinIsTerminal: false, displayConnected: false) == .headless)
    }

    @Test func theDisplayIsProbedOnlyWhenItMatters() {
        var asked = 0
        func probe() -> Bool { asked += 1; return true }
        _ = OutputSink.automatic(environment: ["DISPLAY": ":0"], stdinIsTerminal: false, displayConnected: probe())
        _ = OutputSink.automatic(environment: ["TERM": "xterm"], stdinIsTerminal: true, displayConnected: probe())
        #expect(asked == 0)
    }
}
