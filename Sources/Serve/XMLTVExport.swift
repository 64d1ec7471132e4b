import Foundation
import Guide
import Lineup

/// The guide as an XMLTV document for the lineup's channels (ids as in `/lineup.m3u`'s
/// `tvg-id`), with the programmes the guide store holds for them. Pure.
enum XMLTVExport {
    static func document(channels: [Channel], programmes: [String: [Programme]], baseURL: String) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE tv SYSTEM \"xmltv.dtd\">\n<tv generator-info-name=\"Flipbox\">\n"
        for channel in channels {
            xml += "  <channel id=\"\(escape(channel.id))\">\n    <display-name>\(escape(channel.name))</display-name>\n"
            xml += "    <display-name>\(escape(channel.number.description))</display-name>\n"
            if let logo = LineupExport.logoPath(channel) { xml += "    <icon src=\"\(escape(baseURL + logo))\"/>\n" }
            xml += "  </channel>\n"
        }
        for channel in channels {
            for p in programmes[channel.id] ?? [] {
                xml += "  <programme start=\"\(time(p.start))\" stop=\"\(time(p.stop))\" channel=\"\(escape(channel.id))\">\n"
                xml += "    <title>\(escape(p.title))</title>\n"
                if let s = p.subTitle { xml += "    <sub-title>\(escape(s))</sub-title>\n" }
                if let d = p.description { xml += "    <desc>\(escape(d))</desc>\n" }
                for c in p.categories { xml += "    <category>\(escape(c))</category>\n" }
                if let icon = p.icon { xml += "    <icon src=\"\(escape(icon))\"/>\n" }
                if let e = p.episodeXMLTVNS { xml += "    <episode-num system=\"xmltv_ns\">\(escape(e))</episode-num>\n" }
                if let e = p.episodeOnScreen { xml += "    <episode-num system=\"onscreen\">\(escape(e))</episode-num>\n" }
                for r in p.ratings {
                    let system = r.system.map { " system=\"\(escape($0))\"" } ?? ""
                    xml += "    <rating\(system)>\n      <value>\(escape(r.value))</value>\n    </rating>\n"
                }
                if let star = p.starRating { xml += "    <star-rating>\n      <value>\(escape(star))</value>\n    </star-rating>\n" }
                xml += "  </programme>\n"
            }
        }
        return xml + "</tv>\n"
    }

    /// XMLTV's `YYYYMMDDhhmmss +0000`.
    static func time(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d%02d%02d%02d +0000", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    static func escape(_ text: String) -> String { XMLText.escape(text) }
}
