import Foundation
import Testing
@testable import Lineup

/// Logo options: lineup-wide defaults in the settings (YAML) or header (M3U), per channel over them.
@Suite struct LogoStyleTests {
    @Test func yamlDefaultsAndPerChannelOptions() throws {
        let report = checkYAML("""
            settings:
              logo-corner: bottom-left
              logo-size: 8%
              logo-opacity: 0.7
            channels:
              - name: Plain
                source: test://smpte
                logo: /logos/plain.png
              - name: Mapped
                source: test://smpte
                logo: {src: /logos/mapped.svg, corner: top-right, size: 0.2, margin: 0.03, opacity: 1}
              - name: Off
                source: test://smpte
                logo: off
              - name: Off In Map
                source: test://smpte
                logo:
                  src: /logos/hidden.png
                  show: false
            """)
        let lineup = try report.get()
        let plain = lineup.channels[0], mapped = lineup.channels[1], off = lineup.channels[2], offInMap = lineup.channels[3]
        #expect(plain.logo == .file("/logos/plain.png"))
        #expect(plain.logoStyle == LogoStyle(corner: .bottomLeft, size: 0.08, opacity: 0.7))
        #expect(mapped.logo == .file("/logos/mapped.svg"))
        #expect(mapped.logoStyle == LogoStyle(corner: .topRight, size: 0.2, margin: 0.03, opacity: 1))
        #expect(off.logo == nil)
        #expect(off.logoStyle.isShown == false)
        #expect(offInMap.logo == .file("/logos/hidden.png"))
        #expect(offInMap.logoStyle.isShown == false)
        #expect(LineupTable.render(lineup).split(separator: "\n").last?.contains("off") == true)
        #expect(lineup.settings.written["logo-corner"] == "bottom-left", "settings stay available raw")
    }

    @Test func yamlLineupWideOffWithOneChannelBackOn() throws {
        let lineup = try checkYAML("""
            settings: {logo: off}
            channels:
              - {name: A, source: test://smpte, logo: /l/a.png}
              - {name: B, source: test://smpte, logo: {src: /l/b.png, show: true}}
            """).get()
        #expect(lineup.channels[0].logoStyle.isShown == false)
        #expect(lineup.channels[1].logoStyle.isShown == true)
    }

    @Test func yamlBadValuesAreErrorsOnTheirLines() {
        let report = checkYAML("""
            settings:
              logo-corner: middle
            channels:
              - name: A
                source: test://smpte
                logo:
                  src: /l/a.png
                  corner: botom-left
                  size: 2
                  opacity: lots
                  margin: -0.1
                  cornr: top
                  show: maybe
            """)
        #expect(report.errorLines == [
            "2: setting 'logo-corner' \"middle\" is not a corner; use top-left, top-right, bottom-left or bottom-right",
            "8: `logo.corner` \"botom-left\" is not a corner; use top-left, top-right, bottom-left or bottom-right",
            "9: `logo.size` \"2\" is not a logo height; use a fraction of the output height from 0.02 to 0.5, e.g. 0.1 or 10%",
            "10: `logo.opacity` \"lots\" is not an opacity; use 0 (invisible) to 1 (opaque), e.g. 0.8 or 80%",
            "11: `logo.margin` \"-0.1\" is not a margin; use a fraction of the output height from 0 to 0.25, e.g. 0.02 or 2%",
            "12: unknown logo key 'cornr'; did you mean 'corner'?",
            "13: `logo.show` \"maybe\" must be on or off",
        ])
        #expect(report.lineup == nil)
    }

    @Test func m3uHeaderDefaultsAndChannelAttributes() throws {
        let report = checkM3U("""
            #EXTM3U logo-corner="top-left" logo-size="0.15" logo-margin="1%"
            #EXTINF:-1 tvg-logo="/l/one.png",One
            http://example.com/one.ts
            #EXTINF:-1 tvg-logo="/l/two.png" logo-corner="bottom-right" logo-opacity="50%",Two
            http://example.com/two.ts
            #EXTINF:-1 tvg-logo="/l/three.png" logo="off",Three
            http://example.com/three.ts
            #EXTINF:-1 logo="/l/four.png",Four
            http://example.com/four.ts
            """)
        let lineup = try report.get()
        #expect(lineup.channels[0].logoStyle == LogoStyle(corner: .topLeft, size: 0.15, margin: 0.01))
        #expect(lineup.channels[1].logoStyle == LogoStyle(corner: .bottomRight, size: 0.15, margin: 0.01, opacity: 0.5))
        #expect(lineup.channels[2].logo == .file("/l/three.png"))
        #expect(lineup.channels[2].logoStyle.isShown == false)
        #expect(lineup.channels[3].logo == .file("/l/four.png"), "logo= with an image and no tvg-logo is the image")
        #expect(report.errorLines.isEmpty)
    }

    @Test func m3uBadValuesAreErrorsOnTheirLines() {
        let report = checkM3U("""
            #EXTM3U logo-opacity="2"
            #EXTINF:-1 tvg-logo="/l/one.png" logo-corner="centre" logo-size="big",One
            http://example.com/one.ts
            #EXTINF:-1 tvg-logo="/l/two.png" logo="/l/other.png",Two
            http://example.com/two.ts
            """)
        #expect(report.errorLines == [
            "1: #EXTM3U logo-opacity \"2\" is not an opacity; use 0 (invisible) to 1 (opaque), e.g. 0.8 or 80%",
            "2: logo-corner \"centre\" is not a corner; use top-left, top-right, bottom-left or bottom-right",
            "2: logo-size \"big\" is not a logo height; use a fraction of the output height from 0.02 to 0.5, e.g. 0.1 or 10%",
        ])
        #expect(report.warningLines.contains("4: logo=\"/l/other.png\" ignored: the image is tvg-logo; logo= takes on or off"))
    }

    @Test func overridingKeepsWhatIsNotSet() {
        let base = LogoStyle(isShown: false, corner: .bottomLeft, size: 0.1, margin: 0.02, opacity: 0.5)
        #expect(base.overridden(by: LogoStyle()) == base)
        #expect(base.overridden(by: LogoStyle(isShown: true, size: 0.3)) ==
                LogoStyle(isShown: true, corner: .bottomLeft, size: 0.3, margin: 0.02, opacity: 0.5))
    }
}
