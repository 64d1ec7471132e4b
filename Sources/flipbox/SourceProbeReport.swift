import Foundation
import Lineup
import MediaProbe

/// `flipbox lineup check --probe`: every channel's sources probed with libavformat (four at a
/// time, each bounded by the timeout), one line per source in lineup order.
enum SourceProbeReport {
    /// Prints the report; returns how many sources could not be probed.
    static func run(_ lineup: Lineup, file: String, timeout: Duration) async -> Int {
        let jobs = lineup.channels.flatMap { channel in channel.sources.map { (channel, $0) } }
        var lines = [String?](repeating: nil, count: jobs.count)
        var failures = 0
        await withTaskGroup(of: (Int, String, Bool).self) { group in
            var next = 0
            func add() {
                guard next < jobs.count else { return }
                let (index, (channel, source)) = (next, jobs[next])
                next += 1
                // A bare relative path is relative to the lineup, as the player takes it.
                let target = source.contains("://") || source.hasPrefix("/") ? source
                    : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(source)
                group.addTask { await line(channel: channel, source: target, timeout: timeout).map { (index, $0.0, $0.1) } ?? (index, "", true) }
            }
            for _ in 0..<4 { add() }
            for await (index, text, ok) in group {
                lines[index] = text
                if !ok { failures += 1 }
                add()
            }
        }
        for line in lines.compactMap({ $0 }) where !line.isEmpty { print(line) }
        print("probe: \(jobs.count - failures) of \(jobs.count) sources answered")
        return failures
    }

    /// One source's line and whether it answered (nil text for synthetic sources).
    static func line(channel: Channel, source: String, timeout: Duration) async -> (String, Bool)? {
        let label = "\(channel.location): channel \(channel.number) '\(channel.name)'"
        if SourceScheme(url: source) == .test { return ("\(label): \(source): synthetic, not probed", true) }
        do {
            let info = try await MediaProbe.probe(ProbeCommand.probeTarget(source), options: ProbeOptions(timeout: timeout, sampleSeconds: 3))
            return ("\(label): \(summary(info))", true)
        } catch {
            return ("\(label): error: \(error)", false)
        }
    }

    /// `mpegts: h264 High 1280x720 25 fps (keyframe every 2.00 s), aac eng, aac fra; 3 chapters`.
    static func summary(_ info: MediaInfo) -> String {
        var parts: [String] = []
        for s in info.streams where s.kind == .video || s.kind == .audio {
            var text = s.codec + (s.profile.map { " \($0)" } ?? "")
            if let v = s.video {
                text += " \(v.width)x\(v.height)"
                if let rate = v.frameRate { text += " \(rate.formatted(.number.precision(.fractionLength(0...3)))) fps" }
                if let range = v.dynamicRange { text += " \(range)" }
                if let interval = s.keyframeInterval { text += " (keyframe every \(String(format: "%.2f", interval)) s)" }
            }
            if let language = s.language { text += " \(language)" }
            parts.append(text)
        }
        var out = "\(info.container): " + (parts.isEmpty ? "no audio or video" : parts.joined(separator: ", "))
        if !info.chapters.isEmpty { out += "; \(info.chapters.count) chapters" }
        return out
    }
}
