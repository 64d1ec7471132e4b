import Display
import Testing

/// A connector's presence from the statuses the kernel shows, as a TV is switched off and on.
@Suite struct ConnectorPresenceTests {
    @Test func aDisplaySwitchedOffAndOnIsLostThenBack() {
        var p = ConnectorPresence()
        #expect(p.read("connected\n") == nil, "the first reading only sets the state")
        #expect(p.read("connected\n") == nil)
        #expect(p.read("disconnected\n") == .lost)
        #expect(p.read("disconnected\n") == nil)
        #expect(p.read("unknown\n") == nil, "still not connected")
        #expect(p.read("connected\n") == .back)
    }

    @Test func aBoxStartedWithTheTVOffSeesItComeBack() {
        var p = ConnectorPresence()
        #expect(p.read("disconnected") == nil)
        #expect(p.read("connected") == .back)
    }

    @Test func theStatusFileIsTheKernelsNameForTheCardAndConnector() {
        #expect(ConnectorPresence.statusPath(devicePath: "/dev/dri/card1", connector: "HDMI-A-2") == "/sys/class/drm/card1-HDMI-A-2/status")
    }
}
