import Testing
@testable import Guide

@Suite struct ChannelNameKeyTests {
    @Test func foldsCaseAccentsSpacesAndPunctuation() {
        #expect(ChannelNameKey("Das Erste").text == "daserste")
        #expect(ChannelNameKey("das-erste").text == "daserste")
        #expect(ChannelNameKey("  DAS  ERSTE. ").text == "daserste")
        #expect(ChannelNameKey("Allgäu TV").text == "allgautv")
        #expect(ChannelNameKey("Film & Co").text == ChannelNameKey("Film and Co").text)
        #expect(ChannelNameKey("中国气象").text == "中国气象")
    }

    @Test func qualitySuffixesAreDropped() {
        #expect(ChannelNameKey("Das Erste HD").text == "daserste")
        #expect(ChannelNameKey("Arte FHD").text == "arte")
        #expect(ChannelNameKey("Arte UHD 4K").text == "arte")
        #expect(ChannelNameKey("HD").text == "hd")                 // a name of quality words only keeps them
        #expect(ChannelNameKey("HD Plus").text == "hdplus")        // only trailing words
    }

    @Test func timeShiftIsKeptApart() {
        #expect(ChannelNameKey("BBC One +1").text == "bbcone+1")
        #expect(ChannelNameKey("BBC One+1 HD").text == "bbcone+1")
        #expect(ChannelNameKey("BBC One HD + 1").text == "bbcone+1")
        #expect(ChannelNameKey("BBC One +1").text != ChannelNameKey("BBC One").text)
        #expect(ChannelNameKey("Canal+").text == "canal")
    }
}
