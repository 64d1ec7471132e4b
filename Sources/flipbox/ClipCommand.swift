import ArgumentParser
import CommandSupport
import Foundation
import Headend
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `flipbox clip CHANNEL --from -60s --to now -o out.mp4`: asks the running box for a clip of
/// its timeshift buffer (`POST /api/v1/clips`), waits for it and saves it.
struct ClipCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clip",
        abstract: "Save a clip of a channel's timeshift buffer from the running box (no re-encoding, or only at its ends with --exact).",
        discussion: """
            FROM and TO are now, a time before the live edge (-60s, -1m30s, -90) or an ISO 8601 time. \
            The clip starts at the keyframe at or before FROM; with --exact it starts at FROM and \
            ends at TO to the frame (only the partial GOP at each end is re-encoded). The format follows the output's \
            extension (.mp4, .mkv, .ts) unless --format says. Exit status 1 when the box refuses \
            (the message says why, with the buffer's range for a range outside it).
            """)

    @Argument(help: "The channel number.")
    var channel: String

    // `.unconditional`: `--from -60s` takes the value although it starts with a dash.
    @Option(parsing: .unconditional, help: "Start: -60s, -5m, now, or an ISO 8601 time.")
    var from = "-60s"

    @Option(parsing: .unconditional, help: "End: now, -10s, or an ISO 8601 time.")
    var to = "now"

    @Option(name: [.customShort("o"), .long], help: "The file to write.")
    var output: String

    @Option(help: "mp4, mkv or ts. Default: from the output's extension, else mp4.")
    var format: String?

    @Flag(help: "Cut at FROM and TO to the frame, re-encoding only the partial GOP at each end (default: cut at keyframes, nothing re-encoded).")
    var exact = false

    @Option(help: "The box's control API.")
    var url = "http://127.0.0.1:8642"

    @Option(help: "Bearer token for the control API. Also FLIPBOX_TOKEN.")
    var token: String?

    @Option(help: "How long to wait for the clip (e.g. 5m).")
    var timeout = "5m"

    func run() async throws {
        let ext = (output as NSString).pathExtension.lowercased()
        let byExtension = ["mp4": "mp4", "m4v": "mp4", "mov": "mp4", "mkv": "mkv", "ts": "ts", "m2ts": "ts", "mts": "ts"][ext]
        if format == nil, byExtension == nil, !ext.isEmpty {
            throw ValidationError("cannot tell the format from '.\(ext)': name the file .mp4, .mkv or .ts, or give --format")
        }
        let chosen = (format ?? byExtension ?? "mp4").lowercased()
        guard ClipContainer(rawValue: chosen) != nil else { throw ValidationError("--format must be mp4, mkv or ts, not '\(chosen)'") }
        let limit = try SwitcherOptions.duration(timeout, "--timeout", within: .seconds(1)...Duration.seconds(3600))
        let api = ClipClient(base: url.hasSuffix("/") ? String(url.dropLast()) : url,
                             token: token ?? ProcessInfo.processInfo.environment["FLIPBOX_TOKEN"])
        let started = ContinuousClock.now
        try await api.reporting(as: "clip", url: url) { api in
            let body = try JSONSerialization.data(withJSONObject: ["channel": channel, "from": from, "to": to, "format": chosen, "exact": exact] as [String: Any])
            let (status, answer) = try await api.send("POST", "/api/v1/clips", body: body)
            guard status == 202, let job = try? JSONDecoder().decode(ClipJob.self, from: answer) else { throw ClipClient.refusal(status, answer) }
            while true {
                let (status, data) = try await api.send("GET", "/api/v1/clips/\(job.id)")
                if status == 200 {
                    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                    let seconds = (ContinuousClock.now - started).seconds
                    print("\(output): channel \(job.channel), \(data.count) bytes, \(String(format: "%.2f", seconds)) s")
                    return
                }
                guard status == 202 else { throw ClipClient.refusal(status, data) }
                guard ContinuousClock.now - started < limit else {
                    throw ClipClient.Failure(text: "the clip was not ready within \(timeout) (job \(job.id))")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
