@testable import Headend
import Testing

/// The channels being made room for: a channel two requests make room for at once stays marked
/// (no plan connects it) until the last of them ends.
@Suite struct RoomMarksTests {
    @Test func aChannelTwoRequestsMakeRoomForStaysMarkedUntilBothEnd() {
        var marks = RoomMarks()
        marks.insert(3)
        marks.insert(3)
        marks.insert(5)
        #expect(Set(marks.slots) == [3, 5])
        marks.remove(3)
        #expect(marks.contains(3), "the client still makes room for channel 4 after the flip to it ended")
        marks.remove(3)
        #expect(!marks.contains(3))
        marks.remove(3)
        #expect(!marks.contains(3) && marks.slots == [5], "a stray end changes nothing")
    }
}
