import GStreamer
@testable import Headend
import Testing

/// Which audio track plays: pure rules, and the language codes they compare.
@Suite struct AudioSelectionTests {
    static let tracks = [AudioTrack(index: 0, family: .mp2, language: "deu"),
                         AudioTrack(index: 1, family: .mp2, language: "eng"),
                         AudioTrack(index: 2, family: .ac3, language: nil),
                         AudioTrack(index: 3, family: .mp2, language: "deu")]

    @Test func theViewersChoiceThenThePreferredLanguagesThenTheFirst() {
        let t = Self.tracks
        #expect(AudioSelection.choose(t, remembered: nil, preferred: []) == 0)
        #expect(AudioSelection.choose(t, remembered: nil, preferred: ["fra", "eng", "deu"]) == 1)
        #expect(AudioSelection.choose(t, remembered: .language("deu"), preferred: ["eng"]) == 0)
        #expect(AudioSelection.choose(t, remembered: .track(2), preferred: ["eng"]) == 2)
        // A remembered choice the channel no longer has falls back to the preferences.
        #expect(AudioSelection.choose(t, remembered: .language("spa"), preferred: ["eng"]) == 1)
        #expect(AudioSelection.choose(t, remembered: .track(7), preferred: []) == 0)
        #expect(AudioSelection.choose([], remembered: .track(0), preferred: ["eng"]) == nil)
    }

    /// Audio description (a voice describing the picture) is never chosen unasked, unless the box
    /// is set to prefer it; a viewer who picks it gets it.
    @Test func audioDescriptionIsChosenOnlyWhenAskedFor() {
        let t = [AudioTrack(index: 0, family: .aac, language: "eng", describesPicture: true),
                 AudioTrack(index: 1, family: .aac, language: "eng"),
                 AudioTrack(index: 2, family: .aac, language: "deu", describesPicture: true),
                 AudioTrack(index: 3, family: .aac, language: "deu")]
        #expect(AudioSelection.choose(t, remembered: nil, preferred: []) == 1, "the first main sound, not the description before it")
        #expect(AudioSelection.choose(t, remembered: nil, preferred: ["deu"]) == 3)
        #expect(AudioSelection.choose(t, remembered: .language("eng"), preferred: []) == 1)
        #expect(AudioSelection.choose(t, remembered: .track(2), preferred: ["eng"]) == 2, "picked by the viewer")
        #expect(AudioSelection.choose(t, remembered: nil, preferred: ["deu"], describing: true) == 2)
        #expect(AudioSelection.choose(t, remembered: nil, preferred: [], describing: true) == 0)
        let mainOnly = [AudioTrack(index: 0, family: .aac, language: "eng")]
        #expect(AudioSelection.choose(mainOnly, remembered: nil, preferred: [], describing: true) == 0, "no description: the main sound")
        let describedOnly = [AudioTrack(index: 0, family: .aac, language: "eng", describesPicture: true)]
        #expect(AudioSelection.choose(describedOnly, remembered: nil, preferred: []) == 0, "only a description: better than silence")
    }

    @Test func nextWrapsAndChoicesRememberLanguagesWhenTheyAreUnique() {
        let t = Self.tracks
        #expect(AudioSelection.next(t, after: 0) == 1)
        #expect(AudioSelection.next(t, after: 3) == 0)
        #expect(AudioSelection.next(t, after: 9) == 0)
        #expect(AudioSelection.next([], after: 0) == nil)
        #expect(AudioSelection.choice(for: t[1], among: t) == .language("eng"))
        #expect(AudioSelection.choice(for: t[2], among: t) == .track(2), "no language: by number")
        #expect(AudioSelection.choice(for: t[3], among: t) == .track(3), "a second German track: by number")
    }

    @Test func languagesAreNormalisedToISO6392T() throws {
        try GStreamer.initialize()
        for text in ["de", "deu", "ger", "German", "GERMAN"] { #expect(LanguageCode.normalized(text) == "deu", "\(text)") }
        #expect(LanguageCode.normalized("en") == "eng")
        #expect(LanguageCode.normalized("xx") == nil)
        #expect(LanguageCode.normalized("../etc") == nil)
        #expect(LanguageCode.name("fra") == "French")
        let parsed = AudioSelection.languages("deu, en  French,klingon")
        #expect(parsed.codes == ["deu", "eng", "fra"])
        #expect(parsed.unknown == ["klingon"])
        #expect(AudioRequest("next") == .next && AudioRequest("2") == .track(1) && AudioRequest("de") == .language("deu"))
        #expect(AudioRequest("0") == nil && AudioRequest("xyz 1") == nil)
    }
}
