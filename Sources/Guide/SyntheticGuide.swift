import Foundation

/// Writes a made-up XMLTV guide of a given size, for the bench and tests: `channels` channels
/// named `Bench Channel N` (ids `benchN.example`), back-to-back programmes of 20 to 60 minutes
/// from `start`, each with a title, sub-title, description, two categories, episode numbers,
/// a rating and a star rating. Written as it is generated: memory stays flat.
public enum SyntheticGuide {
    /// Writes `programmes` programmes spread over `channels` channels to `path` (plain XML).
    public static func write(to path: String, programmes: Int, channels: Int, start: Date) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw GuideError(.unreadable, "cannot create the file", source: path)
        }
        defer { try? handle.close() }
        var chunk = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE tv SYSTEM \"xmltv.dtd\">\n<tv generator-info-name=\"flipbox bench\">\n"
        func flush(force: Bool = false) throws {
            if force || chunk.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        let channelCount = max(1, channels)
        for c in 1...channelCount {
            chunk += "  <channel id=\"bench\(c).example\">\n    <display-name>Bench Channel \(c)</display-name>\n    <icon src=\"http://logos.example/\(c).png\"/>\n  </channel>\n"
        }
        let perChannel = (programmes + channelCount - 1) / channelCount
        var written = 0
        let origin = Int64(start.timeIntervalSince1970)
        for c in 1...channelCount {
            var t = origin
            for n in 0..<perChannel where written < programmes {
                let minutes = Int64(20 + (n * 7 + c * 13) % 41)
                let stop = t + minutes * 60
                chunk += """
                      <programme start="\(XMLTVTime.format(t, offsetMinutes: 60))" stop="\(XMLTVTime.format(stop, offsetMinutes: 60))" channel="bench\(c).example">
                        <title lang="en">Programme \(n) on \(c)</title>
                        <sub-title lang="en">Part \(n % 12 + 1)</sub-title>
                        <desc lang="en">An invented programme for measuring the guide import: number \(n) of channel \(c), &amp; a little more text to make it the size of a real description.</desc>
                        <category lang="en">Bench</category>
                        <category lang="en">\(n % 2 == 0 ? "News" : "Film")</category>
                        <episode-num system="xmltv_ns">\(n / 10) . \(n % 10) . 0/1</episode-num>
                        <episode-num system="onscreen">S\(n / 10 + 1)E\(n % 10 + 1)</episode-num>
                        <rating system="VCHIP"><value>TV-PG</value></rating>
                        <star-rating><value>\(n % 5 + 1)/5</value></star-rating>
                      </programme>

                    """
                t = stop
                written += 1
                try flush()
            }
        }
        chunk += "</tv>\n"
        try flush(force: true)
    }
}
