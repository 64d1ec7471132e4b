import Foundation
import Lineup
import Parental
@testable import Switcher
import Testing

/// Which channels are locked and until when, with made-up times.
@Suite struct ContentLocksTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
    func programme(_ title: String, _ from: Double, _ to: Double, _ rating: String?) -> ProgrammeSummary {
        ProgrammeSummary(title: title, start: at(from), end: at(to), ratings: rating.map { [ContentRating(system: "VCHIP", value: $0)] } ?? [])
    }

    func locks(locked: Set<ChannelNumber> = [], unlock: String? = nil) throws -> ContentLocks {
        var adult = Channel(id: "adult", number: ChannelNumber(3), name: "Adult", sources: ["test://snow"])
        adult.contentRating = "TV-MA"
        let channels = [Channel(id: "one", number: ChannelNumber(1), name: "One", sources: ["test://snow"]),
                        Channel(id: "two", number: ChannelNumber(2), name: "Two", sources: ["test://snow"]), adult]
        var settings = ["parental.VCHIP": "TV-PG"]
        settings["parental.unlock"] = unlock
        return ContentLocks(rules: try ParentalRules(settings: settings), channels: channels, locked: locked)
    }

    @Test func anAnswerHoldsUntilTheProgrammeBoundary() throws {
        let l = try locks()
        let film = programme("Film", -600, 300, "TV-MA"), news = programme("News", 300, 900, "TV-G")
        let now = l.decide(channel: 0, on: NowNext(now: film, next: news), at: at(0))
        #expect(now == .init(reason: "Rated TV-MA, over VCHIP TV-PG", until: at(300)))
        #expect(l.decide(channel: 0, on: NowNext(now: news, next: nil), at: at(300)).reason == nil)
        // In a gap, until the next programme starts; with nothing known, the periodic look.
        #expect(l.decide(channel: 0, on: NowNext(now: nil, next: news), at: at(100)).until == at(300))
        #expect(l.decide(channel: 0, on: .unknown, at: at(0)).until == at(ContentLocks.recheck))
        // No programme: the channel's own rating.
        #expect(l.decide(channel: 2, on: .unknown, at: at(0)).reason == "Rated TV-MA, over VCHIP TV-PG")
    }

    @Test func anUnlockLastsUntilTheProgrammeEndsThenTheNextIsJudged() throws {
        var l = try locks()
        let film = programme("Film", -600, 300, "TV-MA"), late = programme("Late Film", 300, 900, "TV-MA")
        l.record(0, l.decide(channel: 0, on: NowNext(now: film, next: late), at: at(0)))
        #expect(l.reason(0) != nil && l.nextChange == at(300))
        #expect(l.unlock(0, on: NowNext(now: film, next: late), at: at(10)) == at(300))
        #expect(l.isStale(0, at: at(10)), "an unlock asks for a new answer")
        #expect(l.decide(channel: 0, on: NowNext(now: film, next: late), at: at(10)) == .init(reason: nil, until: at(300)))
        #expect(l.decide(channel: 0, on: NowNext(now: late, next: nil), at: at(300)).reason != nil, "the next programme is locked again")
        // Without a programme, an hour.
        #expect(l.unlock(2, on: .unknown, at: at(0)) == at(ContentLocks.unlockWithoutProgramme))
    }

    @Test func aConfiguredUnlockTimeOutlastsTheProgrammeAndNoLonger() throws {
        // unlock: 20m, given 10 s in: unlocked through the boundary at 300 and Late Film, locked at 1210 mid-programme.
        var l = try locks(unlock: "20m")
        let film = programme("Film", -600, 300, "TV-MA"), late = programme("Late Film", 300, 900, "TV-MA")
        let night = programme("Night Film", 900, 3000, "TV-MA")
        #expect(l.unlock(0, on: NowNext(now: film, next: late), at: at(10)) == at(1210))
        #expect(l.decide(channel: 0, on: NowNext(now: film, next: late), at: at(10)) == .init(reason: nil, until: at(300)))
        #expect(l.decide(channel: 0, on: NowNext(now: late, next: night), at: at(300)) == .init(reason: nil, until: at(900)))
        #expect(l.decide(channel: 0, on: NowNext(now: night, next: nil), at: at(900)) == .init(reason: nil, until: at(1210)),
                "the answer is looked at again when the unlock runs out")
        #expect(l.decide(channel: 0, on: NowNext(now: night, next: nil), at: at(1209.9)).reason == nil)
        #expect(l.decide(channel: 0, on: NowNext(now: night, next: nil), at: at(1210)) == .init(reason: "Rated TV-MA, over VCHIP TV-PG", until: at(1810)))
        // Other channels are not unlocked with it.
        #expect(l.decide(channel: 2, on: .unknown, at: at(20)).reason != nil)

        // unlock: 2m, shorter than the programme: locked again at 130, while Film still plays.
        var short = try locks(unlock: "2m")
        #expect(short.unlock(0, on: NowNext(now: film, next: late), at: at(10)) == at(130))
        short.record(0, short.decide(channel: 0, on: NowNext(now: film, next: late), at: at(10)))
        #expect(short.reason(0) == nil && short.nextChange == at(130))
        #expect(short.decide(channel: 0, on: NowNext(now: film, next: late), at: at(130)).reason == "Rated TV-MA, over VCHIP TV-PG")

        #expect(try #require(throws: ParentalRulesError.self) { try locks(unlock: "25h") }.code == .badValue)
    }

    @Test func lockedChannelsAreLockedWhateverTheyShow() throws {
        let l = try locks(locked: [ChannelNumber(2)])
        #expect(l.decide(channel: 1, on: NowNext(now: programme("Cartoons", 0, 600, "TV-Y"), next: nil), at: at(0)).reason == "This channel is locked")
        #expect(l.isActive)
        let none = ContentLocks(rules: ParentalRules(), channels: [], locked: [])
        #expect(!none.isActive, "no rules, no locked channels: the player asks nothing")
    }
}
