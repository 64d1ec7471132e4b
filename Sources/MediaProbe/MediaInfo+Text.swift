import Foundation

extension MediaInfo {
    /// A report for a person: the container, then one line per program, stream and chapter.
    public var text: String {
        var lines: [String] = []
        var head = "\(source): \(containerName.isEmpty ? container : "\(containerName) (\(container))")"
        if let duration { head += ", \(Self.clock(duration))" }
        if let bitrate { head += ", \(Self.rate(bitrate))" }
        lines.append(head)
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { lines.append("  \(key): \(value)") }
        for program in programs {
            let name = program.tags["service_name"].map { " '\($0)'" } ?? ""
            lines.append("  program \(program.number)\(name): streams \(program.streams.map(String.init).joined(separator: ", "))")
        }
        for stream in streams { lines.append("  " + Self.line(stream)) }
        if sampledSeconds > 0 { lines.append("  (keyframes sampled over \(String(format: "%.1f", sampledSeconds)) s)") }
        for (number, chapter) in chapters.enumerated() {
            lines.append("  chapter \(number + 1): \(Self.clock(chapter.start))–\(Self.clock(chapter.end))\(chapter.title.map { " \($0)" } ?? "")")
        }
        return lines.joined(separator: "\n")
    }

    static func line(_ s: Stream) -> String {
        var parts = ["#\(s.index)\(s.id.map { " [0x\(String($0, radix: 16))]" } ?? "") \(s.kind.rawValue): \(s.codec)"]
        if let profile = s.profile { parts[0] += " \(profile)" }
        if let level = s.level { parts[0] += " @ level \(s.codec == "hevc" ? String(format: "%.1f", Double(level) / 30) : s.codec == "h264" ? String(format: "%.1f", Double(level) / 10) : String(level))" }
        if let v = s.video {
            var picture = "\(v.width)x\(v.height)"
            if let rate = v.frameRate { picture += " \(rate.formatted(.number.precision(.fractionLength(0...3)))) fps" }
            parts.append(picture)
            if let fieldOrder = v.fieldOrder { parts.append(fieldOrder == "progressive" ? "progressive" : "interlaced (\(fieldOrder))") }
            if let pixel = v.pixelFormat { parts.append(pixel + (v.bitDepth.map { " (\($0)-bit)" } ?? "")) }
            let colour = [v.colorPrimaries, v.colorTransfer, v.colorMatrix, v.colorRange].compactMap { $0 }
            if !colour.isEmpty { parts.append("colour " + colour.joined(separator: "/")) }
            if let range = v.dynamicRange { parts.append("HDR \(range)") }
            if let hdr = v.hdr {
                var text: [String] = []
                if let max = hdr.maxLuminance, let min = hdr.minLuminance { text.append("mastering \(min)–\(max) cd/m²") }
                if let cll = hdr.maxCLL, let fall = hdr.maxFALL { text.append("MaxCLL \(cll), MaxFALL \(fall)") }
                parts.append(text.joined(separator: ", ") + " (\(hdr.from))")
            }
        }
        if let a = s.audio {
            parts.append("\(a.sampleRate) Hz \(a.channelLayout ?? "\(a.channels) channels")")
        }
        if let bitrate = s.bitrate { parts.append(rate(bitrate)) }
        if let language = s.language { parts.append("language \(language)") }
        if let interval = s.keyframeInterval { parts.append("keyframe every \(String(format: "%.2f", interval)) s") }
        else if s.kind == .video, let n = s.keyframesSampled { parts.append(n == 1 ? "one keyframe sampled" : "no keyframe sampled") }
        if s.isDefault, s.kind == .audio { parts.append("default") }
        return parts.joined(separator: ", ")
    }

    static func rate(_ bits: Int) -> String {
        bits >= 1_000_000 ? String(format: "%.2f Mb/s", Double(bits) / 1e6) : "\(bits / 1000) kb/s"
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds)
        let fraction = Int(((seconds - Double(whole)) * 1000).rounded())
        return String(format: "%d:%02d:%02d.%03d", whole / 3600, whole / 60 % 60, whole % 60, fraction)
    }

    /// JSON with sorted keys (the `--json` output).
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }
}
