import ArgumentParser
import Foundation
import MediaProbe

/// `flipbox probe URL|FILE [--json] [--timeout 10s]`: what a source holds, read by libavformat.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Show what a media file or stream URL holds (container, streams, codecs, colour, HDR, chapters).",
        discussion: """
            Reads the source with libavformat: container, programs, streams with codec, profile, \
            resolution, frame rate, field order, colour and HDR metadata, languages, chapters, tags, \
            bitrate, and the keyframe interval measured over the first seconds of packets. A source \
            that does not answer within --timeout fails; so does a file that is not media (exit status 1).
            """)

    @Argument(help: "A file path or URL (file, http(s), udp, rtp, rtsp, srt, HLS .m3u8).")
    var source: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Option(help: "How long to wait for the source (e.g. 10s, 500ms); keyframe sampling gets as long again.")
    var timeout = "10s"

    @Option(help: "Stream time to sample for keyframe intervals (e.g. 10s).")
    var sample = "10s"

    func run() async throws {
        let options = ProbeOptions(
            timeout: try SwitcherOptions.duration(timeout, "--timeout", within: .milliseconds(100)...Duration.seconds(600)),
            sampleSeconds: try SwitcherOptions.duration(sample, "--sample", within: .zero...Duration.seconds(600)).seconds)
        do {
            let info = try await MediaProbe.probe(Self.probeTarget(source), options: options)
            print(json ? info.json() : info.text)
        } catch {
            FileHandle.standardError.write(Data("flipbox probe: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// libavformat's name for a lineup source: `file://` URLs become paths; `udp://@group:port` loses the `@`.
    static func probeTarget(_ source: String) -> String {
        if source.hasPrefix("file://") { return URL(string: source)?.path ?? String(source.dropFirst(7)) }
        if source.hasPrefix("udp://@") || source.hasPrefix("rtp://@") {
            return source.replacingOccurrences(of: "://@", with: "://")
        }
        return source
    }
}
