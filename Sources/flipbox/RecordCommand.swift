import ArgumentParser
import CommandSupport
import Foundation
import Lineup
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `flipbox record`: the running box's recordings and series rules, through its control API
/// (`/api/v1/recordings`, `/api/v1/recording-rules`).
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "List, schedule and remove the running box's recordings and series rules.",
        discussion: """
            Times are ISO 8601 (2026-11-28T20:00:00Z), now, or from now (+10m, +1h30m). \
            Exit status 1 when the box refuses (the message says why) or cannot be reached.
            """,
        subcommands: [List.self, Add.self, Rule.self, Rules.self, Remove.self, RemoveRule.self, Play.self],
        defaultSubcommand: List.self)

    /// Where the box is: its control API and token.
    struct Box: ParsableArguments {
        @Option(help: "The box's control API.")
        var url = "http://127.0.0.1:8642"

        @Option(help: "Bearer token for the control API. Also FLIPBOX_TOKEN.")
        var token: String?

        var client: ClipClient {
            ClipClient(base: url.hasSuffix("/") ? String(url.dropLast()) : url,
                       token: token ?? ProcessInfo.processInfo.environment["FLIPBOX_TOKEN"])
        }

        /// Runs `body`, turning a refusal or an unreachable box into a message and exit status 1.
        func run(_ body: (ClipClient) async throws -> Void) async throws {
            try await client.reporting(as: "record", url: url, body)
        }
    }

    /// A recording's or a rule's priority and padding.
    struct Scheduling: ParsableArguments {
        @Option(help: "Higher records first when a source has too few streams (-1000...1000).")
        var priority: Int?
        @Option(help: "Padding before a programme (e.g. 1m). Default 1m; a time range has none.")
        var paddingBefore: String?
        @Option(help: "Padding after a programme (e.g. 3m). Default 3m; a time range has none.")
        var paddingAfter: String?

        func add(to body: inout [String: Any]) {
            if let priority { body["priority"] = priority }
            var padding: [String: String] = [:]
            if let paddingBefore { padding["before"] = paddingBefore }
            if let paddingAfter { padding["after"] = paddingAfter }
            if !padding.isEmpty { body["padding"] = padding }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the recordings (scheduled, recording, done, failed) and the schedule's conflicts.")
        @OptionGroup var box: Box
        @Flag(help: "Print the box's JSON as it is.")
        var json = false

        func run() async throws {
            try await box.run { client in
                let answer = try await client.expect(200, "GET", "/api/v1/recordings")
                if json { print(String(decoding: answer, as: UTF8.self)); return }
                let object = try RecordCommand.object(answer)
                let recordings = object["recordings"] as? [[String: Any]] ?? []
                if recordings.isEmpty { print("no recordings") }
                for r in recordings { print(RecordCommand.line(r)) }
                for c in object["conflicts"] as? [[String: Any]] ?? [] {
                    print("conflict: \(c["message"] as? String ?? "")")
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a programme of the guide (channel and its start), or a time range of a channel.",
            discussion: "flipbox record add 5 --programme 2026-11-28T20:00:00Z | flipbox record add 5 --from now --to +30m --title Match")
        @OptionGroup var box: Box
        @Argument(help: "The channel number.")
        var channel: String
        @Option(help: "The programme's start (it is recorded with padding).")
        var programme: String?
        @Option(parsing: .unconditional, help: "A time range's start.")
        var from: String?
        @Option(parsing: .unconditional, help: "A time range's end.")
        var to: String?
        @Option(help: "A time range's title (names the file).")
        var title: String?
        @OptionGroup var scheduling: Scheduling

        func run() async throws {
            var body: [String: Any] = ["channel": channel]
            switch (programme, from, to) {
            case (let p?, nil, nil): body["programme"] = try RecordCommand.time(p, "--programme")
            case (nil, let f?, let t?):
                body["start"] = try RecordCommand.time(f, "--from")
                body["end"] = try RecordCommand.time(t, "--to")
                if let title { body["title"] = title }
            default: throw ValidationError("give --programme (a programme's start), or --from and --to (a time range)")
            }
            scheduling.add(to: &body)
            try await box.run { client in
                let answer = try await client.expect(201, "POST", "/api/v1/recordings", json: body)
                print(RecordCommand.line(try RecordCommand.object(answer)))
            }
        }
    }

    struct Rule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record every programme of a title (a series rule).",
            discussion: "flipbox record rule \"The News\" --channel 5 --days mon,tue,wed,thu,fri --window 19:00-23:00 --new-only --keep 5")
        @OptionGroup var box: Box
        @Argument(help: "The title, or a regular expression with --pattern.")
        var title: String
        @Flag(help: "TITLE is a regular expression found anywhere in the title ((?i) for any case).")
        var pattern = false
        @Option(help: "Only on this channel. Default: any channel.")
        var channel: String?
        @Option(help: "Only on these days: mon,tue,... Default: any day.")
        var days: String?
        @Option(help: "Only programmes starting in this window, e.g. 19:00-23:00.")
        var window: String?
        @Flag(help: "Skip episodes recorded or scheduled already.")
        var newOnly = false
        @Option(help: "Keep only the newest N recordings of the rule.")
        var keep: Int?
        @OptionGroup var scheduling: Scheduling
        @Option(help: "The rule's id (letters, digits, - _ .). Default: one is made.")
        var id: String?

        func run() async throws {
            var body: [String: Any] = ["title": title, "match": pattern ? "pattern" : "exact", "newOnly": newOnly]
            if let channel { body["channel"] = channel }
            if let days { body["days"] = days.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            if let window {
                let ends = window.split(separator: "-")
                guard ends.count == 2 else { throw ValidationError("--window must be FROM-TO such as 19:00-23:00, not '\(window)'") }
                body["window"] = ["from": String(ends[0]), "to": String(ends[1])]
            }
            if let keep { body["keep"] = keep }
            if let id { body["id"] = id }
            scheduling.add(to: &body)
            try await box.run { client in
                let answer = try await client.expect(201, "POST", "/api/v1/recording-rules", json: body)
                let object = try RecordCommand.object(answer)
                let rule = object["rule"] as? [String: Any] ?? [:]
                print("rule \(rule["id"] as? String ?? "?"): \(rule["title"] as? String ?? title)")
                for r in object["recordings"] as? [[String: Any]] ?? [] { print("  " + RecordCommand.line(r)) }
                for note in object["notes"] as? [String] ?? [] { print("  note: \(note)") }
            }
        }
    }

    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the series rules.")
        @OptionGroup var box: Box

        func run() async throws {
            try await box.run { client in
                let rules = try RecordCommand.object(try await client.expect(200, "GET", "/api/v1/recording-rules"))["rules"] as? [[String: Any]] ?? []
                if rules.isEmpty { print("no rules") }
                for r in rules {
                    var what = [(r["match"] as? String) == "pattern" ? "pattern /\(r["title"] as? String ?? "")/" : "“\(r["title"] as? String ?? "")”"]
                    if let c = r["channel"] as? String { what.append("channel \(c)") }
                    if let d = r["days"] as? [String], !d.isEmpty { what.append(d.joined(separator: ",")) }
                    if let w = r["window"] as? [String: Any] { what.append("\(w["from"] as? String ?? "")-\(w["to"] as? String ?? "")") }
                    if r["newOnly"] as? Bool == true { what.append("new only") }
                    if let k = r["keep"] as? Int { what.append("keep \(k)") }
                    print("\(r["id"] as? String ?? "?")  \(what.joined(separator: "  "))")
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a scheduled recording, stop one in progress (what was written is kept), or delete an ended one with its file.")
        @OptionGroup var box: Box
        @Argument(help: "The recording's id, as list gives it.")
        var id: String

        func run() async throws { try await RecordCommand.delete("/api/v1/recordings/", id, said: "removed", box) }
    }

    struct RemoveRule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-rule", abstract: "Remove a series rule (its scheduled recordings go with it).")
        @OptionGroup var box: Box
        @Argument(help: "The rule's id, as rules gives it.")
        var id: String

        func run() async throws { try await RecordCommand.delete("/api/v1/recording-rules/", id, said: "removed rule", box) }
    }

    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a recording on the box's screen: where it was left, from its start, or from a time.",
            discussion: "Then flipbox's timeshift keys (and /api/v1/timeshift) pause and seek in it; live goes back to its channel.")
        @OptionGroup var box: Box
        @Argument(help: "The recording's id, as list gives it.")
        var id: String
        @Option(help: "resume (where it was left), start (the programme's start), or an ISO 8601 time.")
        var from = "resume"
        @Flag(help: "Jump over its ad breaks (SCTE-35 cues, the lineup's breaks) when the picture reaches them.")
        var skipBreaks = false

        func run() async throws {
            let from = ["resume", "start"].contains(self.from) ? self.from : try RecordCommand.time(self.from, "--from")
            try await box.run { client in
                let path = "/api/v1/recordings/\(escaped(id))/play?from=\(escaped(from))" + (skipBreaks ? "&skip-breaks=true" : "")
                let status = try RecordCommand.object(try await client.expect(200, "POST", path))
                let place = status["recording"] as? [String: Any]
                let breaks = (status["breaks"] as? [Any])?.count ?? 0
                print("playing \(place?["title"] as? String ?? id) from \(status["position"] as? String ?? "?")"
                      + (skipBreaks && breaks > 0 ? ", skipping its \(breaks) break\(breaks == 1 ? "" : "s")" : ""))
            }
        }
    }

    /// `DELETE PATH+ID`, expecting 204.
    static func delete(_ path: String, _ id: String, said: String, _ box: Box) async throws {
        try await box.run { client in
            _ = try await client.expect(204, "DELETE", path + escaped(id))
            print("\(said) \(id)")
        }
    }

    /// `now`, `+10m` (from now) or ISO 8601, as ISO 8601.
    static func time(_ text: String, _ option: String, now: Date = Date()) throws -> String {
        if text == "now" { return now.formatted(.iso8601) }
        if text.hasPrefix("+"), let d = Duration(compact: text.dropFirst()) {
            return now.addingTimeInterval(Double(d.components.seconds)).formatted(.iso8601)
        }
        guard (try? Date(text, strategy: .iso8601)) != nil else {
            throw ValidationError("\(option) must be now, +10m (from now) or an ISO 8601 time such as 2026-11-28T20:00:00Z, not '\(text)'")
        }
        return text
    }

    static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? id
    }

    static func object(_ data: Data) throws -> [String: Any] { try ClipClient.object(data) }

    /// `p:5@1795000000  done      5  2026-11-28 20:00-21:00  The News - S01E02  1.2 GB (note)`.
    static func line(_ r: [String: Any]) -> String {
        let start = (r["start"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
        let stop = (r["stop"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
        // The local clock, 24 hours, whatever the locale.
        func local(_ format: Date.FormatString) -> Date.VerbatimFormatStyle {
            Date.VerbatimFormatStyle(format: format, timeZone: .current, calendar: Calendar(identifier: .gregorian))
        }
        let day = start.map { $0.formatted(local("\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)")) } ?? "?"
        let end = stop.map { $0.formatted(local("\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)")) } ?? "?"
        var title = r["title"] as? String ?? "?"
        if let e = r["episode"] as? String { title += " - \(e)" }
        if let s = r["subtitle"] as? String { title += " - \(s)" }
        let bytes = r["bytes"] as? Int64 ?? Int64(r["bytes"] as? Int ?? 0)
        var text = "\(r["id"] as? String ?? "?")  \(r["state"] as? String ?? "?")  \(r["channel"] as? String ?? "?")  \(day)-\(end)  \(title)"
        if bytes > 0 { text += "  " + ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file) }
        if let error = r["error"] as? String { text += "  (\(error))" } else if let note = r["note"] as? String { text += "  (\(note))" }
        return text
    }
}
