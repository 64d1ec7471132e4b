import Foundation
import Guide
import Parental
import Switcher

/// The XMLTV guide as the player asks it: now and next on a channel.
struct GuideProgrammes: ProgrammeGuide {
    let guide: Guide

    func nowNext(channelID: String, at instant: Date) -> NowNext {
        let found = guide.nowNext(channelID: channelID, at: instant)
        return NowNext(now: found.now.map(Self.summary), next: found.next.map(Self.summary))
    }

    static func summary(_ p: Programme) -> ProgrammeSummary {
        ProgrammeSummary(title: p.title, start: p.start, end: p.stop, description: p.description, rating: p.ratings.first?.value,
                         ratings: p.ratings.map { ContentRating(system: $0.system, value: $0.value) })
    }
}
