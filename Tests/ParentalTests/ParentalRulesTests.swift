import Parental
import Testing

@Suite struct ParentalRulesTests {
    func rating(_ system: String?, _ value: String) -> ContentRating { ContentRating(system: system, value: value) }

    @Test func ratingsOfTheKnownSystemsHaveAges() {
        #expect(rating("VCHIP", "TV-PG").age == 10)
        #expect(rating("vchip", "TV-MA").age == 17)
        #expect(rating(nil, "TV-Y7").age == 7, "TV- implies VCHIP")
        #expect(rating("MPAA", "PG-13").age == 13)
        #expect(rating(nil, "R").age == 17)
        #expect(rating("FSK", "12").age == 12)
        #expect(rating(nil, "FSK 16").age == 16)
        #expect(rating("BBFC", "12A").age == 12)
        #expect(rating("BBFC", "PG").age == 8, "BBFC's PG is not MPAA's")
        #expect(rating("PEGI", "PEGI 7").age == 7)
        #expect(rating("dvb:parental", "16").age == 16)
        #expect(rating(nil, "18").age == 18, "a bare number is a DVB age")
        #expect(rating("Kijkwijzer", "AL").age == nil, "unknown system: kept as text, no age")
        #expect(rating("Kijkwijzer", "AL").description == "Kijkwijzer AL")
        #expect(rating("MPAA", "R").description == "MPAA R")
        #expect(rating(nil, "TV-MA").description == "TV-MA")
        #expect(rating("FSK", "FSK 12").description == "FSK 12")
        #expect(rating("dvb:parental", "16").description == "DVB 16")
        #expect(rating("MPAA", "XYZ").age == nil, "a value the system does not have")
    }

    @Test func theYAMLMappingAndTheOneLineFormSayTheSame() throws {
        let mapping = try ParentalRules(settings: ["parental.VCHIP": "TV-PG", "parental.FSK": "12", "parental.unrated": "lock", "parental.unlock": "2h"])
        let line = try ParentalRules(settings: ["parental": "VCHIP=TV-PG, FSK=12, unrated=lock, unlock=2h"])
        #expect(mapping == line)
        #expect(mapping.unrated == .lock && mapping.unlockDuration == .seconds(7200))
        #expect(mapping.maximum[.vchip]?.age == 10 && mapping.maximum[.fsk]?.age == 12)
    }

    @Test func badSettingsSayWhichAndWhy() {
        #expect(throws: ParentalRulesError(.badValue, "parental.unrated: unrated must be allow or lock, not 'maybe'")) {
            try ParentalRules(settings: ["parental.unrated": "maybe"])
        }
        #expect(throws: ParentalRulesError(.unknownRating, "parental.FSK: 'PG' is not a FSK rating")) {
            try ParentalRules(settings: ["parental.FSK": "PG"])
        }
        do {
            _ = try ParentalRules(settings: ["parental.Foo": "1"])
            Issue.record("an unknown system is an error")
        } catch {
            #expect(error.code == .unknownSystem)
            #expect(error.message.contains("unknown rating system 'Foo'"))
        }
        #expect(throws: ParentalRulesError(.badValue, "parental.unlock: unlock must be 'programme' or a time such as 30m or 2h (at most 24h), not 'soon'")) {
            try ParentalRules(settings: ["parental.unlock": "soon"])
        }
        #expect(throws: ParentalRulesError(.badValue, "parental.age: age must be a number of years from 0 to 21, not '22'")) {
            try ParentalRules(settings: ["parental.age": "22"])
        }
        #expect(throws: ParentalRulesError(.malformed, "parental: 'VCHIP TV-PG' is not SYSTEM=LEVEL, unrated=allow|lock or unlock=TIME")) {
            try ParentalRules(settings: ["parental": "VCHIP TV-PG"])
        }
    }

    @Test func verdicts() throws {
        let rules = try ParentalRules(settings: ["parental.VCHIP": "TV-PG", "parental.FSK": "16"])
        #expect(rules.verdict(programme: [rating("VCHIP", "TV-G")], channel: nil) == .allowed)
        #expect(rules.verdict(programme: [rating("VCHIP", "TV-MA")], channel: nil) == .locked(reason: "Rated TV-MA, over VCHIP TV-PG"))
        #expect(rules.verdict(programme: [rating("FSK", "16")], channel: nil) == .allowed, "the maximum itself is allowed")
        #expect(rules.verdict(programme: [rating("FSK", "18")], channel: nil).isLocked)
        // A known system without its own maximum is judged by age against the strictest (TV-PG: 10).
        #expect(rules.verdict(programme: [rating("MPAA", "R")], channel: nil) == .locked(reason: "Rated MPAA R, over age 10"))
        #expect(rules.verdict(programme: [rating("MPAA", "G")], channel: nil) == .allowed)
        // Any rating over its limit locks.
        #expect(rules.verdict(programme: [rating("VCHIP", "TV-G"), rating("FSK", "18")], channel: nil).isLocked)
        // The programme's rating counts when there is one, else the channel's.
        #expect(rules.verdict(programme: [], channel: rating(nil, "TV-MA")).isLocked)
        #expect(rules.verdict(programme: [rating("VCHIP", "TV-G")], channel: rating(nil, "TV-MA")) == .allowed)
        // Unrated and unknown systems follow the unrated rule (allow by default).
        #expect(rules.verdict(programme: [], channel: nil) == .allowed)
        #expect(rules.verdict(programme: [rating("Kijkwijzer", "16")], channel: nil) == .allowed)
        let strict = try ParentalRules(settings: ["parental.VCHIP": "TV-PG", "parental.unrated": "lock"])
        #expect(strict.verdict(programme: [], channel: nil) == .locked(reason: "Not rated"))
        #expect(strict.verdict(programme: [rating("Kijkwijzer", "AL")], channel: nil)
                == .locked(reason: "Rated Kijkwijzer AL, a rating this box cannot judge"))
        // No rules: nothing locks.
        #expect(ParentalRules().verdict(programme: [rating(nil, "18")], channel: nil) == .allowed)
    }
}
