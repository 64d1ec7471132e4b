import Foundation
@testable import Headend
import Lineup
import Testing

/// The pure rules of moving in a buffer: previous/next marker, clamping to the buffer, linear
/// breaks, what counts as watched. A fixed clock: times are offsets from `t0`.
@Suite struct TimeshiftNavigationTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func t(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
    let buffer = t(0)...t(600)

    @Test func previousSkipsAMarkerJustPassedAndNextTakesTheOldestAhead() {
        let markers = [Self.t(100), Self.t(200), Self.t(300)]
        #expect(TimeshiftNavigation.previous(markers, from: Self.t(250)) == Self.t(200))
        #expect(TimeshiftNavigation.previous(markers, from: Self.t(201)) == Self.t(100), "within the grace: the one before")
        #expect(TimeshiftNavigation.previous(markers, from: Self.t(90)) == nil)
        #expect(TimeshiftNavigation.next(markers, from: Self.t(150)) == Self.t(200))
        #expect(TimeshiftNavigation.next(markers, from: Self.t(200)) == Self.t(300), "the marker the picture is at is not next")
        #expect(TimeshiftNavigation.next(markers, from: Self.t(300)) == nil)
        #expect(TimeshiftNavigation.next([], from: Self.t(0)) == nil)
    }

    @Test func aSeekBeforeTheBufferLandsAtItsStartAndSaysTheRange() {
        let landing = TimeshiftNavigation.landing(from: Self.t(300), to: Self.t(-50), buffer: buffer, breaks: [], linear: false)
        guard case .at(let time, let adjustment?) = landing else { Issue.record("\(landing)"); return }
        #expect(time == Self.t(0) && adjustment.reason == .beforeBuffer && adjustment.requested == Self.t(-50))
        #expect(adjustment.message.contains(TimeshiftTime.format(Self.t(0))) && adjustment.message.contains(TimeshiftTime.format(Self.t(600))))
    }

    @Test func pastOrNearTheLiveEdgeIsLive() {
        #expect(TimeshiftNavigation.landing(from: Self.t(300), to: Self.t(599.5), buffer: buffer, breaks: [], linear: false) == .live(nil))
        guard case .live(let adjustment?) = TimeshiftNavigation.landing(from: Self.t(300), to: Self.t(700), buffer: buffer, breaks: [], linear: false) else {
            Issue.record("past live is live, with a note"); return
        }
        #expect(adjustment.reason == .pastLive)
        #expect(TimeshiftNavigation.landing(from: Self.t(300), to: Self.t(400), buffer: buffer, breaks: [], linear: false) == .at(Self.t(400), nil))
    }

    @Test func linearBreaksStopAForwardSeekAtTheFirstUnwatchedBreak() {
        let breaks = [TimeshiftBreak(start: Self.t(200), end: Self.t(230), watched: true, origin: .lineup),
                      TimeshiftBreak(start: Self.t(350), end: Self.t(380), origin: .scte35),
                      TimeshiftBreak(start: Self.t(450), end: Self.t(480), origin: .lineup)]
        // Over a watched break and onto an unwatched one: its start.
        let landing = TimeshiftNavigation.landing(from: Self.t(100), to: Self.t(500), buffer: buffer, breaks: breaks, linear: true)
        guard case .at(let time, let adjustment?) = landing else { Issue.record("\(landing)"); return }
        #expect(time == Self.t(350) && adjustment.reason == .unwatchedBreak)
        // Going live over it too.
        #expect(TimeshiftNavigation.landing(from: Self.t(400), to: Self.t(620), buffer: buffer, breaks: breaks, linear: true)
                .time == Self.t(450))
        // Without linear breaks, nothing stops it.
        #expect(TimeshiftNavigation.landing(from: Self.t(100), to: Self.t(500), buffer: buffer, breaks: breaks, linear: false) == .at(Self.t(500), nil))
        // Backwards is free; stopping before a break is free.
        #expect(TimeshiftNavigation.landing(from: Self.t(500), to: Self.t(100), buffer: buffer, breaks: breaks, linear: true) == .at(Self.t(100), nil))
        #expect(TimeshiftNavigation.landing(from: Self.t(100), to: Self.t(340), buffer: buffer, breaks: breaks, linear: true) == .at(Self.t(340), nil))
        // From inside an unwatched break, forward stays where it is.
        #expect(TimeshiftNavigation.landing(from: Self.t(360), to: Self.t(400), buffer: buffer, breaks: breaks, linear: true).time == Self.t(360))
    }

    @Test func aBreakIsWatchedWhenOnePlayedPartCoversIt() {
        var watched = WatchedTime()
        watched.add(Self.t(100), Self.t(210))
        #expect(!watched.covers(Self.t(200), Self.t(230)))
        watched.add(Self.t(210.5), Self.t(229.5))
        #expect(watched.covers(Self.t(200), Self.t(230)), "parts a keyframe apart merge; the ends have a second's slack")
        #expect(watched.spans.count == 1)
        watched.add(Self.t(300), Self.t(310))
        #expect(watched.spans.count == 2 && !watched.covers(Self.t(200), Self.t(320)))
        watched.forget(before: Self.t(250))
        #expect(watched.spans == [Self.t(300)...Self.t(310)])
    }

    @Test func theTimelineCountsWhatPlaysUntilItStopsAndForgetsWhatLeftTheBuffer() {
        var timeline = TimeshiftTimeline()
        let schedule = try! BreakSchedule(parsing: "\(TimeshiftTime.format(Self.t(100))) for 20s")
        timeline.startPlaying(at: Self.t(90))
        #expect(timeline.breaks(schedule: schedule, in: buffer, position: Self.t(105)).map(\.watched) == [false])
        #expect(timeline.breaks(schedule: schedule, in: buffer, position: Self.t(121)).map(\.watched) == [true], "the open part counts")
        timeline.stopPlaying(at: Self.t(110))
        #expect(timeline.breaks(schedule: schedule, in: buffer, position: Self.t(200)).map(\.watched) == [false], "stopped midway")
        let cued = [DateInterval(start: Self.t(300), duration: 30), DateInterval(start: Self.t(700), duration: 30)]
        #expect(timeline.breaks(schedule: nil, cued: cued, in: buffer, position: Self.t(0)).map(\.origin) == [.scte35],
                "a cued break in the buffer, as scte35 (the one after it is outside)")

        let first = timeline.addMarker(at: Self.t(50), name: nil)
        let second = timeline.addMarker(at: Self.t(20), name: "Kick-off")
        #expect(first.name == "Marker 1" && second.id == 2 && timeline.markers.map(\.id) == [2, 1])
        #expect(timeline.removeMarker(id: 1) && !timeline.removeMarker(id: 1))
        timeline.forget(before: Self.t(30))
        #expect(timeline.markers.isEmpty)
    }
}

extension TimeshiftNavigation.Landing {
    var time: Date? {
        if case .at(let time, _) = self { return time }
        return nil
    }
}
