import Foundation
import Guide
import Lineup

/// The guide as the scheduler takes it: programmes of the guide store on lineup channels, each
/// with ``GuideProgramme/derivedID(channel:start:)`` (the store's row ids change at every import).
public enum RecordingGuide {
    /// Programmes on at some moment in `from..<to` on the lineup's channels that the guide
    /// matches. Blocks the calling thread for one read of the store.
    public static func programmes(
        lineup: Lineup, match: GuideMatch, store: GuideStore, from: Date, to: Date
    ) throws(GuideError) -> [GuideProgramme] {
        let channels = lineup.channels.compactMap { channel in
            match.guideChannel(for: channel.id).map { (number: channel.number, guideChannel: $0) }
        }
        let byGuideChannel = try store.programmes(guideChannels: channels.map(\.guideChannel), from: from, to: to)
        return programmes(byGuideChannel, on: channels)
    }

    /// Each lineup channel gets its guide channel's programmes (two lineup channels on one guide
    /// channel get one each); in channel order, then time.
    public static func programmes(
        _ byGuideChannel: [String: [Programme]], on channels: [(number: ChannelNumber, guideChannel: String)]
    ) -> [GuideProgramme] {
        channels.sorted { $0.number < $1.number }.flatMap { channel in
            (byGuideChannel[channel.guideChannel] ?? []).sorted { $0.start < $1.start }.map { p in
                GuideProgramme(id: GuideProgramme.derivedID(channel: channel.number, start: p.start), channel: channel.number,
                               programme: p)
            }
        }
    }
}
