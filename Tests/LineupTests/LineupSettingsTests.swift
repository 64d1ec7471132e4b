import Foundation
import Testing
@testable import Lineup

/// The lineup's settings are read once, when the lineup is loaded: typed values, a bad value
/// is an error on its line, an unknown name a warning on its line.
@Suite struct LineupSettingsTests {
    static let channels = """
        channels:
          - {number: 1, name: One, source: "test://smpte"}
          - {number: 7, name: Seven, source: "test://ball"}
        """

    @Test func everyKindOfValueIsReadIntoItsType() throws {
        let report = checkYAML("""
            settings:
              warm: neighbours:2
              warm-max-channels: 8
              warm-memory: 256MB
              warm-channel-memory: 16M
              card-delay: 80ms
              card-minimum: 0.4s
              tune-timeout: 8s
              skip: hidden, failed
              flip-scope: favourites
              locked-flip: card
              locked: "1, 7"
              start: 7
              up-next-seconds: 30
              banner-seconds: 2.5
              interstitials: cards
              interstitial: default
              interstitial.News: news
              timeshift: 30m
              timeshift-memory: 64MB
              timeshift-warm: 5s
              resume-position: yes
              recordings-dir: /srv/tv
              recordings-quota: 2T
              recordings-keep-days: 30
              deinterlace: yadif
              audio-languages: [deu, eng]
              audio-device: hw:0,3
              audio-passthrough: ac3
              serve-max-clients: 4
              hdhomerun-name: Den
              keymap.KEY_F2: guide
              parental: {FSK: 12}
              guide-refresh: 6h
              lineup-refresh: 30m
              logo-corner: bottom-left
            \(Self.channels)
            """)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let s = try report.get().settings
        #expect(s.warm == .neighbours(2))
        #expect(s.warmMaxChannels == 8)
        #expect(s.warmMemory == ByteSize(bytes: 256 << 20))
        #expect(s.warmChannelMemory == ByteSize(bytes: 16 << 20))
        #expect(s.cardDelay == .milliseconds(80))
        #expect(s.cardMinimum == .milliseconds(400))
        #expect(s.tuneTimeout == .seconds(8))
        #expect(s.skip == LineupSettings.Skip(hidden: true, failed: true))
        #expect(s.flipScope == .favourites)
        #expect(s.lockedFlip == .card)
        #expect(s.locked == [ChannelNumber(1), ChannelNumber(7)])
        #expect(s.start == ChannelNumber(7))
        #expect(s.upNextSeconds == 30)
        #expect(s.bannerSeconds == 2.5)
        #expect(s.interstitials == "cards")
        #expect(s.interstitial == "default")
        #expect(s.groupInterstitials == ["News": "news"])
        #expect(s.timeshift == .seconds(1800))
        #expect(s.timeshiftMemory == ByteSize(bytes: 64 << 20))
        #expect(s.timeshiftWarm == .seconds(5))
        #expect(s.resumePosition == true)
        #expect(s.recordingsDir == "/srv/tv")
        #expect(s.recordingsQuota == ByteSize(bytes: 2 << 40))
        #expect(s.recordingsKeepDays == 30)
        #expect(s.lineupRefresh == .every(.seconds(1800)))
        #expect(s.deinterlace == .method("yadif"))
        #expect(s.audioLanguages == ["deu", "eng"])
        #expect(s.audioDevice == "hw:0,3")
        #expect(s.audioPassthrough == AudioPassthrough(ac3: true))
        #expect(s.serveMaxClients == 4)
        #expect(s.hdhomerun == ["hdhomerun-name": "Den"])
        #expect(s.keymap == ["keymap.KEY_F2": "guide"])
        #expect(s.parental == ["parental.FSK": "12"])
    }

    /// Who may reach the box is no lineup's to say (issue 32): `allow-hosts` would reopen the
    /// control API to DNS rebinding from a provider's domain, `serve-allow: 0.0.0.0/0` the head-end
    /// to everyone. Neither is read, from YAML or an M3U header; each is warned about on its line
    /// with the option that says it instead.
    @Test func policyFromALineupIsIgnoredWithAWarning() throws {
        let yaml = checkYAML("""
            settings:
              allow-hosts: evil.example
              serve-allow: 0.0.0.0/0
            \(Self.channels)
            """)
        #expect(yaml.lineup != nil, "the lineup still loads: \(yaml.diagnostics)")
        let messages = yaml.warnings.map(\.description)
        #expect(messages.contains { $0.contains(":2:") && $0.contains("settings.allow-hosts is ignored") && $0.contains("--allow-host") }, "\(messages)")
        #expect(messages.contains { $0.contains(":3:") && $0.contains("settings.serve-allow is ignored") && $0.contains("--serve-allow") }, "\(messages)")
        #expect(yaml.lineup?.settings.written["allow-hosts"] == "evil.example", "kept as written, for display only")

        let m3u = LineupLoader.check(text: """
            #EXTM3U allow-hosts="evil.example" serve-allow="0.0.0.0/0"
            #EXTINF:-1,One
            test://smpte
            """, file: "provider.m3u", format: .m3u)
        #expect(m3u.lineup != nil)
        let header = m3u.warnings.map(\.description)
        #expect(header.contains { $0.hasPrefix("provider.m3u:1:") && $0.contains("settings.allow-hosts is ignored") }, "\(header)")
        #expect(header.contains { $0.hasPrefix("provider.m3u:1:") && $0.contains("settings.serve-allow is ignored") }, "\(header)")
    }

    @Test func audioPassthroughTakesAC3OrOff() {
        #expect(AudioPassthrough.parse("AC-3") == .success(AudioPassthrough(ac3: true)))
        #expect(AudioPassthrough.parse("off") == .success(.off))
        #expect(AudioPassthrough.parse("ac3, none") == .success(AudioPassthrough(ac3: true)))
        #expect(AudioPassthrough.parse("ac3,E-AC-3") == .success(AudioPassthrough(ac3: true, eac3: true)))
        #expect(AudioPassthrough.parse("eac3") == .success(AudioPassthrough(ac3: false, eac3: true)))
        #expect(AudioPassthrough.parse("dts") == .failure(.init(text: "'dts' is not a codec that can be passed through; give ac3, eac3 (both: ac3,eac3) or off")))
        #expect(AudioPassthrough.parse(" ") == .failure(.init(text: "an empty value: give ac3, eac3 (both: ac3,eac3) or off")))
    }

    @Test func notWrittenIsNilAndOffIsNotWritten() throws {
        let s = try checkYAML("settings:\n  timeshift: off\n\(Self.channels)").get().settings
        #expect(s.timeshift == nil)
        #expect(s.warm == nil && s.cardDelay == nil && s.bannerSeconds == nil && s.deinterlace == nil && s.audioPassthrough == nil)
        #expect(s.parental.isEmpty)
    }

    @Test func aBadValueIsAnErrorOnItsLine() {
        let report = checkYAML("""
            settings:
              warm: lukewarm
              card-delay: soon
              tune-timeout: 1h
              banner-seconds: soon
              warm-memory: a lot
              skip: everything
              start: 9
              locked: "1, x"
              deinterlace: weave
              resume-position: perhaps
              audio-passthrough: dts
              recordings-keep-days: 0
              recordings-quota: plenty
            \(Self.channels)
            """, file: "box.yaml")
        #expect(report.errorLines == [
            "2: settings.warm 'lukewarm' is not all, none or neighbours:N",
            "3: settings.card-delay must be a duration like 80ms, 8s or 30m, not 'soon'",
            "4: settings.tune-timeout must be between 0.5 seconds and 120.0 seconds, not '1h'",
            "5: settings.banner-seconds 'soon' is not a number of seconds from 0 to 3600",
            "6: settings.warm-memory 'a lot' is not a size such as 256MB, 1G or 512KB",
            "7: settings.skip must be hidden, failed, hidden,failed or none, not 'everything'",
            "8: settings.start '9' is not a channel of this lineup",
            "9: settings.locked: 'x' is not a channel number",
            "10: settings.deinterlace 'weave' is not one of \(Deinterlace.names)",
            "11: settings.resume-position 'perhaps' is not true or false",
            "12: settings.audio-passthrough: 'dts' is not a codec that can be passed through; give ac3, eac3 (both: ac3,eac3) or off",
            "13: settings.recordings-keep-days '0' is not a number of days from 1 to 36500",
            "14: settings.recordings-quota 'plenty' is not a size such as 256MB, 1G or 512KB",
        ])
        #expect(report.lineup == nil)
        #expect(report.errors.first?.description == "box.yaml:2: settings.warm 'lukewarm' is not all, none or neighbours:N")
    }

    @Test func anUnknownNameIsAWarningOnItsLineWithTheNearestName() throws {
        let report = checkYAML("""
            settings:
              warm: all
              banner-second: 3
              colour: blue
              parental.FSK: 12
              keymap.KEY_F2: guide
            \(Self.channels)
            """)
        #expect(report.errors.isEmpty)
        #expect(report.warningLines.count == 2)
        #expect(report.warningLines.first == "3: unknown setting 'banner-second', ignored; did you mean 'banner-seconds'?")
        #expect(report.warningLines.last?.hasPrefix("4: unknown setting 'colour', ignored (known keys: warm, ") == true)
        #expect(try report.get().settings.written["colour"] == "blue", "kept as written")
    }

    @Test func timeshiftAlsoReadsAsAGroup() throws {
        let flow = try checkYAML("settings:\n  timeshift: {minutes: 30, warm-seconds: 60}\n\(Self.channels)").get().settings
        #expect(flow.timeshift == .seconds(1800) && flow.timeshiftWarm == .seconds(60) && flow.timeshiftMemory == nil)
        let block = checkYAML("""
            settings:
              timeshift:
                minutes: 1.5
                warm-seconds: 2.5
                memory: 32MB
              resume-position: true
            \(Self.channels)
            """)
        #expect(block.diagnostics.isEmpty, "\(block.diagnostics)")
        let s = try block.get().settings
        #expect(s.timeshift == .seconds(90) && s.timeshiftWarm == .milliseconds(2500) && s.timeshiftMemory == ByteSize(bytes: 32 << 20))
        #expect(s.resumePosition == true)
    }

    @Test func aTimeshiftGroupWithAnUnknownOrBadMemberIsAnErrorOnItsLine() {
        let report = checkYAML("""
            settings:
              timeshift-warm: 10s
              timeshift:
                minutes: 0
                warm-second: 60
                colour: blue
                warm-seconds: 20
                memory: lots
            \(Self.channels)
            """, file: "box.yaml")
        #expect(report.errorLines == [
            "4: settings.timeshift.minutes '0' is not a number of minutes from 1 to 1440",
            "5: settings.timeshift has no 'warm-second' (it takes minutes, warm-seconds, memory); did you mean 'warm-seconds'?",
            "6: settings.timeshift has no 'colour' (it takes minutes, warm-seconds, memory)",
            "7: settings.timeshift.warm-seconds and settings.timeshift-warm are the same setting; write one of them",
            "8: settings.timeshift.memory 'lots' is not a size such as 256MB, 1G or 512KB",
        ])
        #expect(report.warnings.isEmpty, "unknown members are errors, not warnings: \(report.warnings)")
        #expect(report.lineup == nil)
    }

    @Test func anM3UHeaderCarriesOtherPlayersAttributesWithoutWarnings() throws {
        let report = LineupLoader.check(text: """
            #EXTM3U refresh="3600" tvg-shift="1" banner-seconds="2"
            #EXTINF:-1,One
            test://smpte
            """, file: "tv.m3u", format: .m3u)
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(try report.get().settings.bannerSeconds == 2)
        let bad = LineupLoader.check(text: "#EXTM3U warm=\"lukewarm\"\n#EXTINF:-1,One\ntest://smpte\n", file: "tv.m3u", format: .m3u)
        #expect(bad.errorLines == ["1: settings.warm 'lukewarm' is not all, none or neighbours:N"])
    }

    @Test func aLineupMadeInCodeReadsItsTextSettings() {
        let lineup = Lineup(channels: [], settings: ["deinterlace": "off", "audio-languages": "fra, eng", "card-delay": "soon"])
        #expect(lineup.settings.deinterlace == .off)
        #expect(lineup.settings.audioLanguages == ["fra", "eng"])
        #expect(lineup.settings.cardDelay == nil, "a value that does not parse is left out")
    }

    @Test func settingDurationsAndSizesAsPeopleWriteThem() {
        #expect(Duration(setting: "80ms") == .milliseconds(80))
        #expect(Duration(setting: "0.4s") == .milliseconds(400))
        #expect(Duration(setting: "30m") == .seconds(1800))
        #expect(Duration(setting: "2h") == .seconds(7200))
        #expect(Duration(setting: "250") == .milliseconds(250))
        #expect(Duration(setting: "soon") == nil)
        #expect(Duration(setting: "nan") == nil)
        #expect(ByteSize("256MB")?.bytes == 256 << 20)
        #expect(ByteSize("1.5G")?.bytes == 3 << 29)
        #expect(ByteSize("12 parsecs") == nil)
    }

    @Test func aRefreshIntervalIsFromAMinuteTo30DaysOrOff() {
        #expect(GuideReference.refresh("90m") == .success(.seconds(5400)))
        #expect(GuideReference.refresh("off") == .success(nil))
        #expect(GuideReference.refresh("soon") == .failure(GuideReference.RefreshError(
            .notADuration, "guide-refresh \"soon\" is not a duration; write e.g. 12h, 90m, 1d or off")))
        #expect(GuideReference.refresh("30s", setting: "lineup-refresh") == .failure(GuideReference.RefreshError(
            .outOfRange, "lineup-refresh \"30s\" is out of range; use 1m to 30d, or off")))
    }
}
