import FlipboxCore
import Lineup
import Logging
import ServiceLifecycle
import Switcher

/// Drives a player from key presses: arrows and `+`/`-` flip, digits tune after the entry timeout or
/// Enter, Backspace recalls, `i` shows what is playing (and the banner), `p`/`s` picture-in-picture
/// and swap, `m` the multiview (arrows and Enter inside it), `q` quits. Prints one line per flip result.
///
/// A `Service`: `run()` returns when `q` is pressed (after calling `onQuit` once), when the keys
/// end, or on graceful shutdown. Flips run concurrently, so a quick ▲▲▲ retargets instead of queueing.
public struct KeyboardRemote<Player: PlayerControl>: Service {
    let player: Player
    let keys: AsyncStream<Key>
    let entryTimeout: Duration
    let display: RemoteDisplay
    let logger: Logger
    let onQuit: @Sendable () -> Void

    public init(
        player: Player,
        keys: AsyncStream<Key>,
        entryTimeout: Duration = ChannelNumberEntry.defaultTimeout,
        display: RemoteDisplay = .standardError,
        logger: Logger,
        onQuit: @escaping @Sendable () -> Void = {}
    ) {
        self.player = player
        self.keys = keys
        self.entryTimeout = entryTimeout
        self.display = display
        self.logger = logger
        self.onQuit = onQuit
    }

    private enum Input: Sendable {
        case key(Key)
        /// An entry deadline may have passed.
        case tick
        case keysEnded
        /// The player said whether the multiview is open (after `m`, a move or a select).
        case multiview(Bool)
        /// The lock card went up (true) or away (false): digits are the PIN meanwhile.
        case lockCard(Bool)
        /// A proposal went up (true) or away: Enter and Back answer it meanwhile.
        case proposal(Bool)
        /// The player said whether the on-screen guide is open.
        case guide(Bool)
        /// The player said whether the list of recordings is open.
        case recordings(Bool)
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.handleKeys()
        }
    }

    private func handleKeys() async {
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        let keys = self.keys
        // Entry updates reach the screen in the order they were made.
        let (entryUpdates, entrySink) = AsyncStream.makeStream(of: String?.self)
        let (pinUpdates, pinSink) = AsyncStream.makeStream(of: Int.self)
        let player = self.player
        // Subscribed before asking, so no lock event falls between the answer and the stream.
        let events = player.events()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await key in keys { sink.yield(.key(key)) }
                sink.yield(.keysEnded)
            }
            group.addTask {
                for await text in entryUpdates { await player.showEntry(text) }
            }
            group.addTask {
                for await typed in pinUpdates { await player.showPINEntry(typed) }
            }
            group.addTask {
                sink.yield(.lockCard(await player.status().lock != nil))
                for await event in events {
                    switch event {
                    case .lockShown: sink.yield(.lockCard(true))
                    case .lockHidden: sink.yield(.lockCard(false))
                    case .proposalShown: sink.yield(.proposal(true))
                    case .proposalHidden: sink.yield(.proposal(false))
                    default: break
                    }
                }
            }
            var keypad = RemoteKeypad(entryTimeout: entryTimeout)
            loop: for await input in inputs {
                let now = ContinuousClock.now
                let commands: [RemoteCommand]
                switch input {
                case .key(let key): commands = keypad.press(key, now: now)
                case .tick: commands = keypad.expire(now: now)
                case .keysEnded: break loop
                case .multiview(let open):
                    keypad.multiviewOpen = open
                    commands = []
                case .lockCard(let up):
                    keypad.lockCardUp = up
                    commands = []
                case .proposal(let up):
                    keypad.proposalUp = up
                    commands = []
                case .guide(let open):
                    keypad.guideOpen = open
                    if open { keypad.recordingsOpen = false }
                    commands = []
                case .recordings(let open):
                    keypad.recordingsOpen = open
                    if open { keypad.guideOpen = false }
                    commands = []
                }
                for command in commands {
                    if case .quit = command {
                        display.showEntry(nil)
                        onQuit()
                        break loop
                    }
                    perform(command, in: &group, entry: entrySink, pin: pinSink, inputs: sink)
                }
                if case .key = input, let deadline = keypad.deadline {
                    // Stale ticks are harmless: the keypad only commits once its deadline has passed.
                    group.addTask {
                        try? await Task.sleep(until: deadline, clock: .continuous)
                        if !Task.isCancelled { sink.yield(.tick) }
                    }
                }
            }
            if keypad.entry.isActive {
                display.showEntry(nil)
                await player.showEntry(nil)
            }
            entrySink.finish()
            pinSink.finish()
            sink.finish()
            group.cancelAll()
        }
    }

    /// The request a swap or a multiview select amounted to (for its status line).
    private static func request(for result: FlipResult) -> FlipRequest {
        result.channel.flatMap { ChannelNumber($0.number) }.map { .tune($0) } ?? .tuneID(result.channel?.id ?? "the channel")
    }

    private func perform(_ command: RemoteCommand, in group: inout TaskGroup<Void>, entry: AsyncStream<String?>.Continuation,
                         pin: AsyncStream<Int>.Continuation, inputs: AsyncStream<Input>.Continuation) {
        let player = self.player
        let display = self.display
        let logger = self.logger
        switch command {
        case .flip(let request):
            group.addTask {
                let result = await player.flip(request)
                logger.debug("remote flip", metadata: ["request": "\(request)", "outcome": "\(result.outcome.rawValue)"])
                display.showLine(RemoteStatusLine.flip(result, request: request))
            }
        case .showEntry(let text):
            display.showEntry(text)
            entry.yield(text)
        case .hideEntry:
            display.showEntry(nil)
            entry.yield(nil)
        case .info:
            group.addTask {
                display.showLine(RemoteStatusLine.info(await player.status()))
                _ = await player.toggleBanner()
            }
        case .pip:
            group.addTask {
                do {
                    let pip = try await player.togglePiP()
                    display.showLine(pip.open ? "▣ picture-in-picture: \(pip.channel.map { "\($0.number) \($0.name)" } ?? "?")" : "▣ picture-in-picture closed")
                } catch {
                    display.showLine("▣ no picture-in-picture: \(error)")
                }
            }
        case .swap:
            group.addTask {
                do {
                    let result = try await player.swapPiP()
                    display.showLine(RemoteStatusLine.flip(result, request: Self.request(for: result)))
                } catch {
                    display.showLine("▣ \(error)")
                }
            }
        case .multiview:
            group.addTask {
                do {
                    let status = try await player.toggleMultiview(grid: 3)
                    inputs.yield(.multiview(status.open))
                    display.showLine(status.open ? "▦ multiview: arrows move, Enter tunes, m closes" : "▦ multiview closed")
                } catch {
                    inputs.yield(.multiview(false))
                    display.showLine("▦ no multiview: \(error)")
                }
            }
        case .timeshift(let command):
            group.addTask {
                do {
                    let status = try await player.timeshift(command)
                    display.showLine(status.live && !status.paused ? "⏱ live" : "⏱ \(status.paused ? "paused" : "playing") \(Int(status.behind.rounded())) s behind live")
                } catch {
                    display.showLine("⏱ \(error)")
                }
            }
        case .multiviewMove(let move):
            group.addTask {
                do {
                    _ = try await player.moveMultiview(move)
                } catch {
                    inputs.yield(.multiview(false))
                }
            }
        case .multiviewSelect:
            group.addTask {
                inputs.yield(.multiview(false))
                do {
                    let result = try await player.selectMultiview()
                    display.showLine(RemoteStatusLine.flip(result, request: Self.request(for: result)))
                } catch {
                    display.showLine("▦ \(error)")
                }
            }
        case .cycleScope:
            group.addTask {
                let scope = await player.cycleFlipScope()
                display.showLine("↕ next/previous: \(scope)")
            }
        case .nextAudio:
            group.addTask {
                do {
                    let status = try await player.selectAudio("next")
                    let playing = status.audio.tracks.first { $0.index == status.audio.playing }
                    display.showLine("♪ audio: \(playing.map { $0.languageName ?? $0.language ?? "track \($0.index + 1)" } ?? "none")")
                } catch {
                    display.showLine("♪ no other audio: \(error)")
                }
            }
        case .nextSubtitles:
            group.addTask {
                do {
                    let status = try await player.selectSubtitles("next")
                    let shown = status.subtitles.tracks.first { $0.index == status.subtitles.showing }
                    display.showLine("▭ subtitles: \(shown.map { $0.languageName ?? $0.language ?? $0.format } ?? "off")")
                } catch {
                    display.showLine("▭ no subtitles: \(error)")
                }
            }
        case .answerProposal(let accept):
            group.addTask {
                do {
                    if let result = try await player.answerProposal(accept: accept) {
                        display.showLine(RemoteStatusLine.flip(result, request: Self.request(for: result)))
                    }
                } catch {
                    display.showLine("✕ \(error)")
                }
            }
        case .guide:
            group.addTask {
                let status = await player.toggleGuide()
                inputs.yield(.guide(status.open))
                display.showLine(status.open ? "▤ guide: arrows move, Enter tunes, Back closes" : "▤ guide closed")
            }
        case .guideMove(let move):
            group.addTask {
                do { _ = try await player.moveGuide(move) } catch { inputs.yield(.guide(false)) }
            }
        case .guideSelect:
            group.addTask {
                inputs.yield(.guide(false))
                do {
                    let result = try await player.selectGuide()
                    display.showLine(RemoteStatusLine.flip(result, request: Self.request(for: result)))
                } catch {
                    display.showLine("▤ \(error)")
                }
            }
        case .guideClose:
            group.addTask {
                inputs.yield(.guide(false))
                _ = await player.closeGuide()
            }
        case .guideRemind:
            group.addTask {
                do {
                    let reminder = try await player.remindFromGuide()
                    display.showLine("⏰ reminder: \(reminder.title)")
                } catch {
                    display.showLine("⏰ \(error)")
                }
            }
        case .recordings:
            group.addTask {
                let status = await player.toggleRecordingList()
                inputs.yield(.recordings(status.open))
                display.showLine(status.open ? "▶ recordings: up and down move, Enter plays, Back closes" : "▶ recordings closed")
            }
        case .recordingsMove(let move):
            group.addTask {
                do { _ = try await player.moveRecordingList(move) } catch { inputs.yield(.recordings(false)) }
            }
        case .recordingsSelect:
            group.addTask {
                do {
                    switch try await player.selectInRecordingList() {
                    case .playing(let status):
                        inputs.yield(.recordings(false))
                        display.showLine("▶ " + (status.recording?.title ?? "recording"))
                    case .settled(let said, let list):
                        inputs.yield(.recordings(list.open))
                        display.showLine("● " + said)
                    }
                } catch {
                    inputs.yield(.recordings(await player.recordingListStatus().open))
                    display.showLine("▶ \(error)")
                }
            }
        case .recordingsClose:
            group.addTask {
                inputs.yield(.recordings(false))
                _ = await player.closeRecordingList()
            }
        case .guideRecord(let series):
            group.addTask {
                do {
                    display.showLine("● " + (try await player.recordFromGuide(series: series)))
                } catch {
                    display.showLine("● \(error)")
                }
            }
        case .showPIN(let typed):
            pin.yield(typed)
        case .unlock(let code):
            group.addTask {
                do {
                    let unlocked = try await player.unlock(pin: code, channel: nil)
                    display.showLine("🔓 \(unlocked.channel.number) \(unlocked.channel.name) unlocked")
                } catch {
                    display.showLine("🔒 \(error)")
                }
            }
        case .quit:
            break
        }
    }
}
