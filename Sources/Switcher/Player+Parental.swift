import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Output
import Parental

/// Parental locks: the player asks the guide what is on, judges it by the rules (`ContentLocks`),
/// feeds what is locked to the switcher machine, and looks again at the first moment an answer
/// may change, with one timer (`PlayerJob.locks`). A boundary into locked content on the channel
/// on screen has its lock card rendered ahead, so the card is up at the boundary.
extension Player {
    /// Looks at every lock at start (before the first flip), and says when the PIN is missing.
    func startParental() {
        guard contentLocks.isActive else { return }
        if pinGate?.store.isSet != true {
            logger.warning("parental locks are on but no PIN is set: locked content cannot be unlocked until one is set with `flipbox pin set`")
        }
        refreshLocks()
    }

    /// Looks again at the locks whose answer may have changed by `instant`, hands the changes to
    /// the machine (a lock on the channel on screen engages at once), and sets the next look.
    func refreshLocks(at instant: Date = Date()) {
        guard contentLocks.isActive else { return }
        for (index, channel) in lineup.channels.enumerated() where contentLocks.isStale(index, at: instant) {
            let on = contentLocks.needsProgrammes ? nowNext(channel, at: instant) : .unknown
            let entry = contentLocks.decide(channel: index, on: on, at: instant)
            contentLocks.record(index, entry)
            let effects = machine.setLock(channel: index, reason: entry.reason, at: .now)
            if entry.reason != nil, pip.isOpen, pip.channel == index {
                // Locked content never shows in the window either.
                startJob(.pipLock) { await $0.closePiP() }
            }
            if effects.contains(where: { if case .event(.lockShown) = $0 { true } else { false } }), machine.lockedOnScreen?.channel == index {
                logger.info("lock engaged on \(channel.number) \(String(format: "%.1f", Date().timeIntervalSince(instant) * 1000)) ms after the guide's time")
            }
            perform(effects)
        }
        scheduleLockRefresh()
    }

    /// The guide was refreshed: every answer is looked at again now.
    public func guideChanged() {
        contentLocks.forgetAnswers()
        refreshLocks()
        watchProgrammes()
    }

    /// One timer, at the first moment a lock may change.
    private func scheduleLockRefresh() {
        guard let next = contentLocks.nextChange else { return }
        let wait = max(0, next.timeIntervalSinceNow)
        let deadline = ContinuousClock.now + .microseconds(Int64(wait * 1_000_000))
        prerenderLockCard(at: next)
        startJob(.locks) { player in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            // Judged at the boundary itself, even if the timer woke a hair early.
            await player.refreshLocks(at: max(Date(), next))
        }
    }

    /// When the channel on screen turns locked at `instant`, renders its lock card now, so that
    /// at the boundary the card is a cache hit and goes up within a frame.
    private func prerenderLockCard(at instant: Date) {
        guard let current = machine.current, contentLocks.entries[current]?.until == instant else { return }
        let on = contentLocks.needsProgrammes ? nowNext(lineup.channels[current], at: instant) : .unknown
        guard let reason = contentLocks.decide(channel: current, on: on, at: instant).reason else { return }
        let card = SwitcherMachine.Card(requestID: .none, channel: current, kind: .locked(reason: reason), minimum: .zero)
        startJob(.prerenderLock) { _ = await $0.cardFrame(card, at: instant) }
    }

    /// Whether `channel`'s content is locked now (for thumbnails, the multiview, the API).
    public func isLocked(_ number: ChannelNumber) -> Bool {
        guard let index = lineup.index(of: number) else { return false }
        return contentLocks.reason(index) != nil
    }

    /// Why a clip of channel `number` over `range` may not be made: the lock of the channel, or of
    /// any programme on it in the range, judged as the screen judges it (`ContentLocks`: a PIN
    /// unlock of the channel counts); nil when it may.
    public func clipLockReason(_ number: ChannelNumber, range: ClosedRange<Date>) -> String? {
        guard contentLocks.isActive, let index = lineup.index(of: number) else { return nil }
        let channel = lineup.channels[index]
        var instants = [range.lowerBound, range.upperBound]
        if contentLocks.needsProgrammes, let on = programmes?.programmes(channelIDs: [channel.id], from: range.lowerBound, to: range.upperBound)[channel.id] {
            instants += on.map { max($0.start, range.lowerBound) }
        }
        for instant in instants {
            let on = contentLocks.needsProgrammes ? nowNext(channel, at: instant) : .unknown
            if let reason = contentLocks.decide(channel: index, on: on, at: instant).reason { return reason }
        }
        return nil
    }

    /// Unlocks channel `number` (nil: the channel on screen) with the PIN, until the programme on
    /// it ends (or the rules' unlock time). The channel on screen then plays: a flip of its own.
    /// Wrong PINs count towards the wait (`PINBackoff`); the PIN is never logged.
    public func unlock(pin: String, channel number: ChannelNumber? = nil) async throws(UnlockError) -> UnlockStatus {
        let index: Int
        if let number {
            guard let i = lineup.index(of: number) else { throw UnlockError(.unknownChannel, "there is no channel \(number)") }
            index = i
        } else {
            guard let i = machine.lockedOnScreen?.channel ?? machine.current else { throw UnlockError(.notLocked, "no channel is on screen") }
            index = i
        }
        let channel = lineup.channels[index]
        refreshLocks()
        guard contentLocks.reason(index) != nil else {
            throw UnlockError(.notLocked, "channel \(channel.number) \(channel.name) is not locked")
        }
        guard let pinGate else { throw UnlockError(.notSet, "no PIN can be kept: the player has no state directory") }
        let outcome: PINGate.Outcome
        do {
            outcome = try await pinGate.check(pin)
        } catch {
            showPINEntry(nil)
            switch error.code {
            case .malformed:
                showMessage("A PIN is 4 to 8 digits")
                throw UnlockError(.malformed, error.message)
            case .notSet:
                showMessage("No PIN is set")
                throw UnlockError(.notSet, error.message)
            case .storage:
                logger.error("the PIN cannot be checked: \(error)")
                throw UnlockError(.storage, error.message)
            }
        }
        switch outcome {
        case .correct:
            showPINEntry(nil)
            let now = Date()
            let until = contentLocks.unlock(index, on: nowNext(channel, at: now), at: now)
            logger.notice("channel \(channel.number) \(channel.name) unlocked until \(ProgrammeSummary.time(until))")
            refreshLocks(at: now)
            return UnlockStatus(channel: ChannelSummary(channel), until: until)
        case .wrong(let left, let wait):
            showPINEntry(nil)
            logger.warning("a wrong PIN was given for channel \(channel.number)")
            let text = if let wait { "Wrong PIN. Try again in \(Duration.seconds(wait).spokenWholeSecondsUp)" }
                else if left <= 2 { "Wrong PIN (\(left) more before a wait)" }
                else { "Wrong PIN" }
            showMessage(text)
            throw UnlockError(.wrongPIN, text.lowercased(), retryAfter: wait)
        case .mustWait(let seconds):
            showPINEntry(nil)
            let text = "Too many wrong PINs. Try again in \(Duration.seconds(seconds).spokenWholeSecondsUp)"
            showMessage(text)
            throw UnlockError(.tooManyAttempts, text.lowercased(), retryAfter: seconds)
        }
    }

    /// Shows `typed` PIN dots over the lock card (nil or 0 hides them). The digits never show.
    public func showPINEntry(_ typed: Int?) {
        guard let typed, typed > 0 else {
            cancelJob(.pinEntry)
            output.setLayer(.pinEntry, [])
            return
        }
        let output = self.output
        startJob(.pinEntry) { player in
            let overlay = await Self.render { try PINEntryDots.overlay(typed: typed, width: output.width, height: output.height) }
            guard let overlay else { return }
            await player.landPINEntry(overlay)
        }
    }

    private func landPINEntry(_ overlay: Overlay) {
        guard !Task.isCancelled, machine.lockedOnScreen != nil else { return }
        output.setLayer(.pinEntry, [overlay])
    }
}

/// An unlock that did not happen: a code for programs (the HTTP status), a message for people,
/// and when to try again after too many wrong PINs.
public struct UnlockError: DomainFailure, Hashable {
    public enum Code: String, Sendable, Hashable {
        case unknownChannel
        /// The channel is not locked.
        case notLocked
        /// No PIN is set.
        case notSet
        /// Not 4-8 digits.
        case malformed
        case wrongPIN
        /// Too many wrong PINs: wait `retryAfter` seconds.
        case tooManyAttempts
        /// The PIN file cannot be read.
        case storage
    }

    public let code: Code
    public let message: String
    /// Seconds before the next try is allowed, when tries must wait.
    public let retryAfter: Double?

    public init(_ code: Code, _ message: String, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }
    public var description: String { message }

    public var kind: FailureKind {
        switch code {
        case .malformed: .badRequest
        case .wrongPIN: .forbidden
        case .unknownChannel: .notFound
        case .notLocked, .notSet: .conflict
        case .tooManyAttempts: .tooManyAttempts
        case .storage: .internalFailure
        }
    }
}

/// An unlock: which channel, until when.
public struct UnlockStatus: Sendable, Hashable {
    public var channel: ChannelSummary
    public var until: Date
    public init(channel: ChannelSummary, until: Date) {
        self.channel = channel
        self.until = until
    }
}
