import ArgumentParser
import CommandSupport
import Foundation
import Guide
import Lineup

struct GuideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guide", abstract: "Import and query the programme guide (XMLTV).",
        subcommands: [Import.self, Now.self, Example.self, Bench.self])

    struct StateOptions: ParsableArguments {
        @Option(help: "Where the guide is stored (guide.sqlite). Default: $FLIPBOX_STATE_DIR, $XDG_STATE_HOME/flipbox or ~/.local/state/flipbox.")
        var stateDir: String?

        var directory: String {
            StateDirectory.resolve(stateDir)
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import XMLTV guides (files or http(s) URLs, plain or .gz) into the store, replacing what it held.",
            discussion: "Several guides are merged. On any error the stored guide is kept and the error says which file and line.")

        @Argument(help: "XMLTV files or URLs.")
        var sources: [String]

        @OptionGroup var state: StateOptions

        func run() async throws {
            let absolute = sources.map { source in
                source.contains("://") || source.hasPrefix("/") ? source
                    : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(source)
            }
            let guide = try Guide(stateDirectory: state.directory, lineup: Lineup(channels: [], guideURLs: absolute))
            do {
                let summary = try await guide.refresh()
                print("imported \(summary.programmes) programmes on \(summary.channels) channels in \(String(format: "%.2f", summary.seconds)) s into \(guide.store.path)")
                if summary.skipped > 0 {
                    print("skipped \(summary.skipped) unusable programme(s):")
                    for reason in summary.skipReasons { print("  \(reason)") }
                }
            } catch {
                FileHandle.standardError.write(Data("flipbox: \(error)\nthe stored guide was kept\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    struct Example: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a made-up XMLTV guide for a lineup's channels, starting now (for a box with no guide source).",
            discussion: "Programmes of 30 to 90 minutes with titles, descriptions and VCHIP ratings from TV-G to TV-MA; each channel matches by its guide id, else its id.")

        @Argument(help: "The lineup. Default: the demo lineup in Channels/.")
        var lineup: String?

        @Option(help: "Where to write the guide.")
        var out: String

        @Option(help: "How many hours of programmes.")
        var hours: Int = 48

        func run() throws {
            guard let path = lineup ?? DemoLineup.locate() else { throw ValidationError("no lineup given and the demo lineup was not found") }
            guard (1...24 * 14).contains(hours) else { throw ValidationError("--hours must be from 1 to 336") }
            let loaded: Lineup
            do { loaded = try LineupLoader.load(path: path) } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(2)
            }
            do { try ExampleGuide.write(to: out, lineup: loaded, hours: hours) } catch {
                FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
                throw ExitCode(1)
            }
            print("wrote \(hours) hours of programmes for \(loaded.channels.count) channels to \(out)")
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what is on now and next, from the stored guide.",
            discussion: "Refreshes the guide first when the store is empty, older than guide-refresh or from other sources.")

        @Argument(help: "A channel number; default: every channel.")
        var channel: String?

        @Option(help: "The lineup. Default: the demo lineup in Channels/.")
        var lineup: String?

        @Option(help: "The instant, ISO 8601 (e.g. 2026-11-22T20:15:00+01:00). Default: now.")
        var at: String?

        @OptionGroup var state: StateOptions

        func run() async throws {
            guard let path = lineup ?? DemoLineup.locate() else { throw ValidationError("no lineup given and the demo lineup was not found") }
            // Read as play reads it: a playlist URL, a source, a lineup that names one.
            let loaded = try await loadLineup(path: path, stateDirectory: state.directory, logger: makeLogger(verbose: false))
            var instant = Date()
            if let at {
                guard let parsed = GuideTime.parse(at) else { throw ValidationError("--at '\(at)' is not an ISO 8601 time such as 2026-11-22T20:15:00+01:00") }
                instant = parsed
            }
            var channels = loaded.channels
            if let channel {
                guard let number = ChannelNumber(channel), let found = loaded.channel(number: number) else {
                    throw ValidationError("no channel \(channel) in \(path)")
                }
                channels = [found]
            }
            let guide = try Guide(stateDirectory: state.directory, lineup: loaded)
            if guide.sources.isEmpty { throw ValidationError("\(path) names no guide (url-tvg in M3U, guide: in YAML)") }
            if guide.needsRefresh() {
                do { try await guide.refresh() } catch {
                    FileHandle.standardError.write(Data("flipbox: guide refresh failed, showing the stored guide: \(error)\n".utf8))
                }
            }
            for channel in channels {
                let (now, next) = guide.nowNext(channelID: channel.id, at: instant)
                print("\(channel.number)\t\(channel.name)\tnow: \(Self.describe(now))\tnext: \(Self.describe(next))")
            }
        }

        static func describe(_ programme: Programme?) -> String {
            guard let programme else { return "-" }
            let formatter = DateFormatter()
            formatter.dateFormat = "HH:mm"
            return "\(formatter.string(from: programme.start))-\(formatter.string(from: programme.stop)) \(programme.title)"
        }
    }

    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a guide, import it and print the import time, peak memory growth and now/next lookup times.")

        @Option(help: "Programmes in the generated guide.")
        var programmes = 100_000

        @Option(help: "Channels in the generated guide.")
        var channels = 200

        @Option(help: "now/next lookups to time.")
        var lookups = 10_000

        func run() async throws {
            let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("flipbox-guide-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let file = (directory as NSString).appendingPathComponent("bench.xml")
            let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600 - 6 * 3600)
            try SyntheticGuide.write(to: file, programmes: programmes, channels: channels, start: start)
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            let lineup = Lineup(channels: (1...channels).map {
                Channel(id: "bench\($0).example", number: ChannelNumber($0), name: "Bench Channel \($0)", sources: ["test://snow"])
            }, guideURLs: [file])
            let guide = try Guide(stateDirectory: directory, lineup: lineup)

            let before = ProcessUsage.now().residentBytes
            ProcessUsage.resetPeakResident()
            let clock = ContinuousClock()
            let began = clock.now
            let summary = try await guide.refresh()
            let importTime = clock.now - began
            let peakGrowth = ProcessUsage.peakResidentBytes() - before

            var samples: [Duration] = []
            samples.reserveCapacity(lookups)
            var generator = SystemRandomNumberGenerator()
            var found = 0
            for _ in 0..<lookups {
                let channel = "bench\(Int.random(in: 1...channels, using: &generator)).example"
                let instant = start.addingTimeInterval(Double.random(in: 0...(6 * 3600), using: &generator))
                let t0 = clock.now
                let result = guide.nowNext(channelID: channel, at: instant)
                samples.append(clock.now - t0)
                if result.now != nil { found += 1 }
            }
            samples.sort()
            func ms(_ d: Duration) -> String { String(format: "%.3f", d.milliseconds) }
            let t0 = clock.now
            let grid = try guide.programmes(channelIDs: lineup.channels.prefix(20).map(\.id), from: start, to: start.addingTimeInterval(3 * 3600))
            let gridTime = clock.now - t0

            print("guide bench: \(programmes) programmes on \(channels) channels, \(size / 1_000_000) MB of XML")
            print("import: \(String(format: "%.2f", importTime.seconds)) s (\(summary.programmes) stored), peak RSS growth \(peakGrowth / 1_000_000) MB")
            print("now/next: \(lookups) lookups, median \(ms(samples[samples.count / 2])) ms, p99 \(ms(samples[samples.count * 99 / 100])) ms, max \(ms(samples.last ?? .zero)) ms (\(found) with a programme on)")
            print("grid: 20 channels x 3 h, \(grid.values.map(\.count).reduce(0, +)) programmes in \(ms(gridTime)) ms")
        }
    }
}
