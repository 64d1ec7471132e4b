import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Output

/// What the programmes on screen ask for (`ProgrammeWatch`): the `programme-changed` event at a
/// boundary, "Up next" shortly before a programme ends, and the proposal when a reminded
/// programme starts elsewhere. One timer (`PlayerJob.programmes`) at the watch's next moment.
extension Player {
    /// Looks at the programme on screen at `instant`, carries out what the watch says, and sets
    /// the next look. Called after every flip, when the guide or the reminders change, and by its timer.
    func watchProgrammes(at instant: Date = Date()) {
        guard programmes != nil else { return }
        let channel = machine.current.map { lineup.channels[$0] }
        let on = channel.map { nowNext($0, at: instant) } ?? .unknown
        carryOut(watch.update(channelID: channel?.id, on: on, at: instant))
        let next = watch.nextLook(on: on, at: instant)
        let deadline = ContinuousClock.now + .microseconds(Int64(max(0, next.timeIntervalSinceNow) * 1_000_000))
        startJob(.programmes) { player in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            await player.watchProgrammes(at: max(Date(), next))
        }
    }

    /// The reminders changed (one added or removed over the API): read them again.
    public func remindersChanged() {
        watch.setReminders(reminders?.pending() ?? [])
        watchProgrammes()
    }

    /// Answers the proposal on screen: OK (`accept`) flips to its channel, a normal flip whose
    /// result is returned; Back dismisses it (nil). Throws `.notOpen` when there is none.
    public func answerProposal(accept: Bool) async throws(OverlayError) -> FlipResult? {
        guard let proposal = watch.proposal?.reminder else { throw OverlayError(.notOpen, "no programme is being proposed") }
        carryOut(watch.proposalAnswered())
        guard accept else { return nil }
        return await flip(.tuneID(proposal.channelID))
    }

    private func carryOut(_ actions: [ProgrammeWatch.Action]) {
        for action in actions {
            switch action {
            case .programmeChanged(let id, let now, let next):
                guard let channel = lineup.channel(id: id) else { continue }
                logger.info("now on \(channel.number) \(channel.name): \(now?.title ?? "nothing in the guide")")
                publish(.programmeChanged(channel: ChannelSummary(channel), now: now, next: next))
            case .showUpNext(let next):
                showNotice(.upNext, "Up next: \(next.title) at \(ProgrammeSummary.time(next.start))", style: .notice, job: .upNext)
            case .hideUpNext:
                showNotice(.upNext, nil, style: .notice, job: .upNext)
            case .propose(let reminder):
                reminders?.spend(reminder.id)
                guard let channel = lineup.channel(id: reminder.channelID) else { continue }
                logger.info("proposing \(reminder.title) on \(channel.number) \(channel.name)")
                showNotice(.proposal, "\(reminder.title) starts now on \(channel.number) — OK to watch", style: .proposal, job: .proposal)
                publish(.proposalShown(channel: ChannelSummary(channel), title: reminder.title))
            case .withdrawProposal(let reminder):
                showNotice(.proposal, nil, style: .proposal, job: .proposal)
                if let channel = lineup.channel(id: reminder.channelID) {
                    publish(.proposalHidden(channel: ChannelSummary(channel)))
                }
            }
        }
    }

    /// Puts `text` on `layer` (nil takes it down), rendered off the actor.
    private func showNotice(_ layer: ScreenLayer, _ text: String?, style: OnScreenText.Style, job: PlayerJob) {
        guard let text else {
            cancelJob(job)
            output.setLayer(layer, [])
            return
        }
        let output = self.output
        startJob(job) { player in
            let overlay = await Self.render { try OnScreenText.overlay(text, style: style, width: output.width, height: output.height) }
            guard let overlay else { return }
            await player.landNotice(layer, overlay)
        }
    }

    private func landNotice(_ layer: ScreenLayer, _ overlay: Overlay) {
        guard !Task.isCancelled else { return }
        output.setLayer(layer, [overlay])
    }
}
