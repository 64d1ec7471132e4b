import Display
import Testing

/// Choosing a connector and mode from made-up devices: a TV on HDMI with the usual list, a
/// laptop panel, a virtual GPU.
@Suite struct DisplayChoiceTests {
    let tv = DisplayConnector(id: 95, name: "HDMI-A-1", connection: .connected, modes: [
        DisplayMode(width: 1920, height: 1080, refreshMillihertz: 60000, preferred: true),
        DisplayMode(width: 1920, height: 1080, refreshMillihertz: 59940),
        DisplayMode(width: 1920, height: 1080, refreshMillihertz: 50000),
        DisplayMode(width: 1920, height: 1080, refreshMillihertz: 60000, interlaced: true),
        DisplayMode(width: 1280, height: 720, refreshMillihertz: 50000),
        DisplayMode(width: 1280, height: 720, refreshMillihertz: 60000),
    ])
    let unplugged = DisplayConnector(id: 90, name: "DP-1", connection: .disconnected, modes: [])

    var pc: DisplayCard { DisplayCard(path: "/dev/dri/card0", driver: "i915", connectors: [unplugged, tv]) }

    @Test func autoTakesTheFirstConnectedConnectorsPreferredMode() throws {
        let choice = try DisplayChoice.choose(cards: [pc], mode: .automatic)
        #expect(choice.connector.name == "HDMI-A-1")
        #expect(choice.mode == tv.modes[0])
        #expect(choice.description == "HDMI-A-1 on /dev/dri/card0 (i915) at 1920x1080@60")
    }

    @Test func aSizeAndRefreshPickTheClosestModeOfThatSize() throws {
        #expect(try DisplayChoice.choose(cards: [pc], mode: ModeRequest("1920x1080@59.94")!).mode.refreshMillihertz == 59940)
        #expect(try DisplayChoice.choose(cards: [pc], mode: ModeRequest("1920x1080@50")!).mode.refreshMillihertz == 50000)
        // Without a refresh: the fastest progressive one.
        let sized = try DisplayChoice.choose(cards: [pc], mode: ModeRequest("1280x720")!)
        #expect(sized.mode == DisplayMode(width: 1280, height: 720, refreshMillihertz: 60000))
    }

    @Test func kmssinkSetsTheFirstModeOfTheSizeAndTheChoiceSaysWhenThatDiffers() throws {
        let fifty = try DisplayChoice.choose(cards: [pc], mode: ModeRequest("1920x1080@50")!)
        #expect(fifty.modeKMSSinkSets.refreshMillihertz == 60000)
        let sixty = try DisplayChoice.choose(cards: [pc], mode: .automatic)
        #expect(sixty.modeKMSSinkSets == sixty.mode)
    }

    @Test func aModeTheDisplayLacksIsRefusedWithTheModesItHas() {
        #expect {
            try DisplayChoice.choose(cards: [pc], mode: ModeRequest("3840x2160@60")!)
        } throws: { error in
            let e = error as! DisplayError
            return e.code == .noSuchMode && e.message.contains("--mode 3840x2160@60")
                && e.message.contains("1920x1080@60 (preferred), 1920x1080@59.94, 1920x1080@50, 1920x1080i@60, 1280x720@50")
        }
        let thirty = #expect(throws: DisplayError.self) { try DisplayChoice.choose(cards: [pc], mode: ModeRequest("1920x1080@30")!) }
        #expect(thirty?.code == .noSuchMode && thirty?.kind == .notFound)
    }

    @Test func aNamedConnectorIsUsedAndAnUnpluggedOneIsSaidSo() throws {
        let second = DisplayCard(path: "/dev/dri/card1", driver: "virtio_gpu", connectors: [
            DisplayConnector(id: 35, name: "Virtual-1", connection: .connected, modes: [DisplayMode(width: 1024, height: 768, refreshMillihertz: 60000)]),
        ])
        let virtual = try DisplayChoice.choose(cards: [pc, second], connectorName: "virtual-1", mode: .automatic)
        #expect(virtual.card.path == "/dev/dri/card1" && virtual.connector.id == 35 && virtual.mode.width == 1024)
        #expect { try DisplayChoice.choose(cards: [pc, second], connectorName: "DP-1", mode: .automatic) } throws: {
            ($0 as! DisplayError).code == .noConnectedDisplay && "\($0)".contains("DP-1 on /dev/dri/card0: no display is connected")
        }
        #expect { try DisplayChoice.choose(cards: [pc], connectorName: "HDMI-A-2", mode: .automatic) } throws: {
            ($0 as! DisplayError).code == .noSuchConnector
                && "\($0)" == "--connector HDMI-A-2: no such connector; there are /dev/dri/card0 (i915): DP-1 disconnected, HDMI-A-1 connected"
        }
    }

    @Test func noDeviceNoDisplayAndUnreadableDevicesEachSaySo() {
        #expect { try DisplayChoice.choose(cards: [], mode: .automatic) } throws: {
            ($0 as! DisplayError).code == .noDevice && "\($0)".hasPrefix("no display device in /dev/dri")
        }
        let denied = DisplayError(.cannotOpen, "/dev/dri/card0: cannot open (Permission denied): add the user to the video group")
        #expect { try DisplayChoice.choose(cards: [], mode: .automatic, problems: [denied]) } throws: { ($0 as! DisplayError) == denied }
        let dark = DisplayCard(path: "/dev/dri/card0", driver: "i915", connectors: [unplugged])
        #expect { try DisplayChoice.choose(cards: [dark], mode: .automatic) } throws: {
            "\($0)" == "no display is connected: /dev/dri/card0 (i915): DP-1 disconnected (is the TV on and its cable in?)"
        }
    }

    @Test func modeRequestsParse() {
        #expect(ModeRequest("auto") == .automatic)
        #expect(ModeRequest("AUTO") == .automatic)
        #expect(ModeRequest("1920x1080") == .size(width: 1920, height: 1080, refreshMillihertz: nil))
        #expect(ModeRequest("1920x1080@60") == .size(width: 1920, height: 1080, refreshMillihertz: 60000))
        #expect(ModeRequest("720x576@59.94") == .size(width: 720, height: 576, refreshMillihertz: 59940))
        for bad in ["", "1920", "1920x", "x1080", "1920x1080@", "1920x1080@0", "1920x1080@sixty", "1x1", "1920x1080@60@60"] {
            #expect(ModeRequest(bad) == nil, "\(bad)")
        }
        #expect(ModeRequest("1920x1080@59.94")!.description == "1920x1080@59.94")
        #expect(DisplayMode(width: 1920, height: 1080, refreshMillihertz: 50000, interlaced: true).description == "1920x1080i@50")
        #expect(DisplayMode(width: 640, height: 480, refreshMillihertz: 59940).refresh == 60)
    }
}
