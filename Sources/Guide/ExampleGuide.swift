import Foundation
import Lineup

/// Writes a made-up XMLTV guide for the channels of a lineup, starting at the current half hour:
/// back-to-back programmes of 30 to 90 minutes with titles, descriptions, categories and VCHIP
/// ratings from TV-G to TV-MA, so the banner, the cards, the on-screen guide and the parental
/// rules have something to show on a box with no guide source. Each guide channel takes the lineup
/// channel's guide id (`guide:`/`tvg-id`), else its id, and its name, so it matches.
public enum ExampleGuide {
    static let shows: [(title: String, category: String, rating: String, description: String)] = [
        ("Morning News", "News", "TV-G", "The day's stories, the weather and the traffic."),
        ("Nature Hour", "Documentary", "TV-G", "A year in the life of a river, from the spring thaw to the first frost."),
        ("Cartoon Club", "Children", "TV-Y7", "Three short cartoons and a song."),
        ("The Quiz", "Entertainment", "TV-PG", "Four players, twelve questions, one prize."),
        ("City Detectives", "Drama", "TV-14", "A missing painting leads the team to an old friend."),
        ("Midnight Thriller", "Film", "TV-MA", "A stranger arrives in a snowed-in town. Not for children."),
        ("Sports Tonight", "Sport", "TV-PG", "Results, goals and interviews."),
        ("Cooking at Home", "Lifestyle", "TV-G", "Bread, soup and a cake in one hour."),
    ]

    /// Writes `hours` of programmes for every channel of `lineup` to `path`, from the half hour
    /// holding `start`.
    public static func write(to path: String, lineup: Lineup, start: Date = Date(), hours: Int = 48) throws(GuideError) {
        let origin = Int64((start.timeIntervalSince1970 / 1800).rounded(.down) * 1800)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv generator-info-name=\"flipbox guide example\">\n"
        for channel in lineup.channels {
            xml += "  <channel id=\"\(escape(channel.guideID ?? channel.id))\"><display-name>\(escape(channel.name))</display-name></channel>\n"
        }
        for (c, channel) in lineup.channels.enumerated() {
            var t = origin - 1800
            var n = c
            while t < origin + Int64(hours) * 3600 {
                let show = shows[n % shows.count]
                let minutes = Int64([30, 60, 90, 60][(n + c) % 4])
                xml += """
                      <programme start="\(XMLTVTime.format(t, offsetMinutes: 0))" stop="\(XMLTVTime.format(t + minutes * 60, offsetMinutes: 0))" channel="\(escape(channel.guideID ?? channel.id))">
                        <title lang="en">\(escape(show.title))</title>
                        <desc lang="en">\(escape(show.description))</desc>
                        <category lang="en">\(show.category)</category>
                        <rating system="VCHIP"><value>\(show.rating)</value></rating>
                      </programme>

                    """
                t += minutes * 60
                n += 1
            }
        }
        xml += "</tv>\n"
        do {
            try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw GuideError(.unreadable, "cannot write the guide: \(error.localizedDescription)", source: path)
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
