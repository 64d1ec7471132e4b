import Foundation
import Switcher
import Testing

/// Up next, programme changes and reminder proposals with made-up times: nothing sleeps.
@Suite struct ProgrammeWatchTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
    func programme(_ title: String, _ from: Double, _ to: Double) -> ProgrammeSummary {
        ProgrammeSummary(title: title, start: at(from), end: at(to))
    }

    @Test func upNextShowsOnceBeforeTheEndAndAProgrammeChangeIsReportedAtTheBoundary() {
        var w = ProgrammeWatch(upNextLead: 60, upNextShown: 8)
        let news = programme("News", -600, 300), film = programme("Film", 300, 2000), late = programme("Late", 2000, 4000)
        #expect(w.update(channelID: "one", on: NowNext(now: news, next: film), at: at(0)).isEmpty, "a flip is no programme change")
        #expect(w.nextLook(on: NowNext(now: news, next: film), at: at(0)) == at(240), "the announcement is the next thing")
        #expect(w.update(channelID: "one", on: NowNext(now: news, next: film), at: at(239)).isEmpty)
        #expect(w.update(channelID: "one", on: NowNext(now: news, next: film), at: at(240)) == [.showUpNext(film)])
        #expect(w.update(channelID: "one", on: NowNext(now: news, next: film), at: at(241)).isEmpty, "once")
        #expect(w.nextLook(on: NowNext(now: news, next: film), at: at(241)) == at(248))
        #expect(w.update(channelID: "one", on: NowNext(now: news, next: film), at: at(248)) == [.hideUpNext])
        #expect(w.update(channelID: "one", on: NowNext(now: film, next: late), at: at(300))
                == [.programmeChanged(channelID: "one", now: film, next: late)])
        // A flip into the last minute of a programme announces its successor at once.
        var flipped = ProgrammeWatch(upNextLead: 60, upNextShown: 8)
        #expect(flipped.update(channelID: "two", on: NowNext(now: news, next: film), at: at(280)) == [.showUpNext(film)])
        #expect(flipped.update(channelID: "one", on: NowNext(now: film, next: late), at: at(282)) == [.hideUpNext],
                "the announcement goes with its channel")
    }

    @Test func aRemindedProgrammeStartingElsewhereIsProposedUntilAnsweredOrTimedOut() {
        var w = ProgrammeWatch(proposalTimeout: 30)
        let match = Reminder(id: 1, channelID: "sport", title: "The Match", start: at(100))
        let here = Reminder(id: 2, channelID: "one", title: "On Here", start: at(200))
        let stale = Reminder(id: 3, channelID: "sport", title: "Long Ago", start: at(-1000))
        w.setReminders([here, match, stale])
        let on = NowNext.unknown
        #expect(w.update(channelID: "one", on: on, at: at(0)).isEmpty, "a reminder long past is spent without a proposal")
        #expect(w.nextLook(on: on, at: at(0)) == at(100))
        #expect(w.update(channelID: "one", on: on, at: at(100)) == [.propose(match)])
        #expect(w.proposal?.reminder == match)
        #expect(w.update(channelID: "one", on: on, at: at(129)).isEmpty)
        #expect(w.update(channelID: "one", on: on, at: at(130)) == [.withdrawProposal(match)], "the timeout dismisses it")
        #expect(w.update(channelID: "one", on: on, at: at(200)).isEmpty, "the programme starts on the channel on screen: nothing to ask")

        var answered = ProgrammeWatch()
        answered.setReminders([match])
        #expect(answered.update(channelID: "one", on: on, at: at(101)) == [.propose(match)])
        #expect(answered.proposalAnswered() == [.withdrawProposal(match)])
        #expect(answered.proposalAnswered().isEmpty)

        var went = ProgrammeWatch()
        went.setReminders([match])
        _ = went.update(channelID: "one", on: on, at: at(101))
        #expect(went.update(channelID: "sport", on: on, at: at(105)) == [.withdrawProposal(match)], "the viewer went there")
    }
}
