import Foundation

/// The player's resources at one moment (from `/api/v1/status`).
struct SoakReading {
    var pipelines: Int
    var openFiles: Int
    var residentBytes: Int
    /// The C heap: held by the player (a leak grows it), and freed but kept by the allocator.
    var heapInUseBytes = 0
    var heapFreeBytes = 0
    /// The player's open files by kind (`socket`, `pipe`, `eventfd`, `file`...), from its
    /// `/proc/PID/fd`: where a drift comes from.
    var fileKinds: [String: Int] = [:]

    /// Each figure's median over `readings` (nil when there are none).
    static func median(_ readings: [SoakReading]) -> SoakReading? {
        guard !readings.isEmpty else { return nil }
        func mid(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }
        return SoakReading(pipelines: mid(readings.map(\.pipelines)), openFiles: mid(readings.map(\.openFiles)),
                           residentBytes: mid(readings.map(\.residentBytes)), heapInUseBytes: mid(readings.map(\.heapInUseBytes)),
                           heapFreeBytes: mid(readings.map(\.heapFreeBytes)))
    }

    /// The kind of an open file from its `/proc/PID/fd` link: `socket:[123]` is `socket`,
    /// `anon_inode:[eventfd]` is `eventfd`, `/dev/dri/card0` is `device`, a path is `file`.
    static func kind(ofLink link: String) -> String {
        if link.hasPrefix("socket:") { return "socket" }
        if link.hasPrefix("pipe:") { return "pipe" }
        if link.hasPrefix("anon_inode:") {
            let name = link.dropFirst("anon_inode:".count).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return name.isEmpty ? "anon_inode" : name
        }
        if link.hasPrefix("/dev/") { return "device" }
        return "file"
    }

    /// The open files of process `pid` by kind; empty when they cannot be read. Sockets are told
    /// apart by protocol and TCP state from the process's `/proc/PID/net` tables: `tcp listen`,
    /// `tcp established`, `tcp close-wait`, `udp`, `unix`...
    static func fileKinds(pid: Int32) -> [String: Int] {
        let directory = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        let sockets = socketKinds(pid: pid)
        var kinds: [String: Int] = [:]
        for entry in entries {
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry) else { continue }
            var kind = kind(ofLink: link)
            if kind == "socket", let inode = link.split(separator: "[").last?.dropLast(), let known = sockets[String(inode)] { kind = known }
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    /// The whole of a `/proc` file. (`String(contentsOfFile:)` stops after its first read of a
    /// file whose size says 0, which cut the socket tables short: sockets past the cut looked
    /// like sockets in no table.)
    static func procText(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Socket inode → `tcp STATE`, `udp`, `unix` or `netlink`, from `/proc/PID/net/{tcp,tcp6,udp,udp6,unix,netlink}`.
    static func socketKinds(pid: Int32) -> [String: String] {
        // The TCP states of include/net/tcp_states.h, by their hex code in the table.
        let states = ["01": "established", "02": "syn-sent", "03": "syn-recv", "04": "fin-wait1", "05": "fin-wait2",
                      "06": "time-wait", "07": "close", "08": "close-wait", "09": "last-ack", "0A": "listen", "0B": "closing"]
        var kinds: [String: String] = [:]
        for (table, name) in [("tcp", "tcp"), ("tcp6", "tcp"), ("udp", "udp"), ("udp6", "udp")] {
            guard let text = procText("/proc/\(pid)/net/\(table)") else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                kinds[String(fields[9])] = name == "tcp" ? "tcp \(states[String(fields[3])] ?? String(fields[3]))" : name
            }
        }
        // The inode's column: 7th in the unix table, 10th in the netlink table.
        for (table, column) in [("unix", 6), ("netlink", 9)] {
            guard let text = procText("/proc/\(pid)/net/\(table)") else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > column { kinds[String(fields[column])] = table }
            }
        }
        return kinds
    }
}

/// What the soak counted while it ran.
struct SoakStatistics {
    var crashes = 0
    var unanswered = 0
    var statuses: [Int: Int] = [:]
    var flips = 0
    var failedFlips = 0
    var warmLatencies: [Double] = []
    var coldLatencies: [Double] = []
    var cardsOnWarm = 0
    /// Sources that came back and whose channel is not up again yet.
    var returns: [(channel: Int, at: ContinuousClock.Instant)] = []
    var recoveries: [Double] = []
    /// The same, by channel (index into the lineup).
    var recoveryByChannel: [Int: [Double]] = [:]

    mutating func add(_ a: SoakAPI.Answer) {
        guard let status = a.status else { unanswered += 1; return }
        statuses[status, default: 0] += 1
        guard a.isFlip else { return }
        flips += 1
        if !a.ok { failedFlips += 1; return }
        guard let latency = a.latencyMs else { return }
        switch a.path {
        case "warm":
            warmLatencies.append(latency)
            if a.cardShown { cardsOnWarm += 1 }
        case "cold": coldLatencies.append(latency)
        default: break
        }
    }
}

/// The soak's verdict, as text or JSON.
struct SoakReport {
    var seconds: Double
    var requests: Int
    var statistics: SoakStatistics
    var warm: SoakReading?
    var end: SoakReading?
    /// Gaps and still pictures on the display after the warm-up.
    var display: SoakOutputVerdict
    var channels: [String]
    /// Misbehaviours carried out, by kind (`death`, `http-reset`...), zeros included.
    var events: [String: Int]
    /// What the HTTP and HLS servers did for the player (`SoakSources.serverFigures`).
    var servers: [String: [String: Int]]
    /// The player's memory once a minute while flipping (one reading each, not settled): whether
    /// it levels off, and whether the heap it holds or only what the allocator keeps moves.
    var memory: [MemoryPoint] = []
    /// How the player ended: `running` at the end of a run, or its signal or exit status.
    var playerExit: String
    var log: String

    struct MemoryPoint {
        var minute: Int
        var resident: Int
        var heapInUse: Int
        var heapFree: Int
    }

    /// Relative change from the warm-up reading to the end.
    static func drift(_ a: Int?, _ b: Int?) -> Double? {
        guard let a, let b, a > 0 else { return nil }
        return Double(b - a) / Double(a)
    }

    var rssDrift: Double? { Self.drift(warm?.residentBytes, end?.residentBytes) }
    /// The heap the player holds: what a leak moves (resident memory also moves with what the
    /// allocator keeps).
    var heapDrift: Double? { Self.drift(warm?.heapInUseBytes, end?.heapInUseBytes) }
    var fileDrift: Double? { Self.drift(warm?.openFiles, end?.openFiles) }
    var pipelinesEqual: Bool { warm != nil && warm?.pipelines == end?.pipelines }

    /// Each kind of open file after the warm-up and at the end, the largest change first.
    var fileKindChanges: [(kind: String, warm: Int, end: Int)] {
        let a = warm?.fileKinds ?? [:], b = end?.fileKinds ?? [:]
        return Set(a.keys).union(b.keys).map { ($0, a[$0] ?? 0, b[$0] ?? 0) }
            .sorted { abs($0.2 - $0.1) != abs($1.2 - $1.1) ? abs($0.2 - $0.1) > abs($1.2 - $1.1) : $0.0 < $1.0 }
    }

    var passed: Bool {
        statistics.crashes == 0 && statistics.unanswered == 0 && pipelinesEqual
            && (rssDrift.map { $0 < 0.05 } ?? false) && (fileDrift.map { $0 < 0.05 } ?? false)
            && display.gapsMet && display.stillsMet
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        BenchReport.percentile(values.sorted(), p)
    }

    var summary: [String: Any] {
        let s = statistics
        func r1(_ v: Double?) -> Any { v.map { ($0 * 10).rounded() / 10 } ?? NSNull() }
        func r1000(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        func reading(_ r: SoakReading?) -> Any {
            r.map { ["pipelines": $0.pipelines, "openFiles": $0.openFiles, "residentMB": r1(Double($0.residentBytes) / 1_048_576),
                     "heapInUseMB": r1(Double($0.heapInUseBytes) / 1_048_576), "heapFreeMB": r1(Double($0.heapFreeBytes) / 1_048_576)] } ?? NSNull()
        }
        return [
            "passed": passed, "seconds": r1(seconds), "requests": requests, "channels": channels,
            "events": events, "servers": servers,
            "crashes": s.crashes, "unanswered": s.unanswered,
            "statuses": Dictionary(uniqueKeysWithValues: s.statuses.map { ("\($0.key)", $0.value) }),
            "flips": s.flips, "failed_flips": s.failedFlips,
            "warm_flips": ["count": s.warmLatencies.count, "p50_ms": r1(Self.percentile(s.warmLatencies, 0.5)),
                           "p95_ms": r1(Self.percentile(s.warmLatencies, 0.95)), "max_ms": r1(s.warmLatencies.max()),
                           "card_shown": s.cardsOnWarm],
            "cold_flips": ["count": s.coldLatencies.count, "p50_ms": r1(Self.percentile(s.coldLatencies, 0.5)),
                           "max_ms": r1(s.coldLatencies.max())],
            "recovery_s": ["count": s.recoveries.count, "p50": r1(Self.percentile(s.recoveries, 0.5)),
                           "max": r1(s.recoveries.max()), "not_recovered": s.returns.count,
                           "max_by_channel": Dictionary(uniqueKeysWithValues: s.recoveryByChannel.map { channel, times in
                               ("\(channel + 1) \(channel < channels.count ? channels[channel] : "?")", r1(times.max()))
                           })],
            "after_warmup": reading(warm), "end": reading(end),
            "rss_drift": r1(rssDrift.map { $0 * 100 }), "heap_drift": r1(heapDrift.map { $0 * 100 }), "open_files_drift": r1(fileDrift.map { $0 * 100 }),
            "pipelines_equal": pipelinesEqual, "player_log": log, "player_exit": playerExit,
            "display": [
                "gaps_over_100ms": display.gapsOver100Ms, "longest_gap_ms": r1(display.longestGapMs),
                "longest_gap_channel": display.longestGap?.channel ?? NSNull(),
                "longest_gaps": display.longestGaps.map { ["at": $0.at.ISO8601Format(.iso8601.time(includingFractionalSeconds: true)),
                                                           "ms": r1($0.ms), "channel": $0.channel ?? NSNull()] as [String: Any] },
                "longest_still_s": r1000(display.longestStillSeconds), "longest_still_channel": display.longestStill?.channel ?? NSNull(),
                "stills_over_gop": display.stillsOverGOP, "stills_during_outages": display.stillsExcused, "stills_seen": display.stillsSeen, "frames_shown": display.framesShown, "gop_s": display.gop,
            ] as [String: Any],
            "memory_by_minute": memory.map { ["minute": $0.minute, "residentMB": r1(Double($0.resident) / 1_048_576),
                                              "heapInUseMB": r1(Double($0.heapInUse) / 1_048_576), "heapFreeMB": r1(Double($0.heapFree) / 1_048_576)] },
            "open_files_by_kind": fileKindChanges.map { ["kind": $0.kind, "after_warmup": $0.warm, "end": $0.end] },
        ]
    }

    func json() -> String {
        let data = (try? JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    func text() -> String {
        let s = statistics
        func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "-" }
        func r(_ x: SoakReading?) -> String {
            x.map { "\($0.pipelines) pipelines, \($0.openFiles) open files, \(f(Double($0.residentBytes) / 1_048_576)) MB resident, "
                + "heap \(f(Double($0.heapInUseBytes) / 1_048_576)) MB held + \(f(Double($0.heapFreeBytes) / 1_048_576)) MB kept free" } ?? "not read"
        }
        return """
            Flipbox soak: \(requests) requests in \(f(seconds)) s over \(channels.count) hostile channels (\(channels.joined(separator: ", ")))
            misbehaviours: \(events.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            servers: \(servers.sorted { $0.key < $1.key }.map { kind in "\(kind.key) " + kind.value.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }.joined(separator: "; "))
            verdict: \(passed ? "PASSED" : "FAILED")
            crashes: \(s.crashes) (the player: \(playerExit))
            requests without an answer within 10 s: \(s.unanswered)
            answers by status: \(s.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
            flips: \(s.flips), failed \(s.failedFlips)
            warm flips: \(s.warmLatencies.count), p50 \(f(Self.percentile(s.warmLatencies, 0.5))) ms, p95 \(f(Self.percentile(s.warmLatencies, 0.95))) ms, max \(f(s.warmLatencies.max())) ms, card shown \(s.cardsOnWarm)
            cold flips: \(s.coldLatencies.count), p50 \(f(Self.percentile(s.coldLatencies, 0.5))) ms, max \(f(s.coldLatencies.max())) ms
            returning sources: \(s.recoveries.count) recovered, p50 \(f(Self.percentile(s.recoveries, 0.5))) s, max \(f(s.recoveries.max())) s, \(s.returns.count) not yet
            after warm-up: \(r(warm))
            at the end:    \(r(end))
            display: longest gap \(f(display.longestGapMs)) ms\(display.longestGap?.channel.map { " (channel \($0))" } ?? ""), \(display.gapsOver100Ms) over 100 ms; longest unchanging picture on a flowing channel \(String(format: "%.2f", display.longestStillSeconds)) s\(display.longestStill?.channel.map { " (channel \($0))" } ?? ""), \(display.stillsOverGOP) over one GOP (\(f(display.gop)) s), \(display.stillsExcused) more during source outages (\(display.stillsSeen) runs of 0.5 s or more seen)
            drift: resident \(f(rssDrift.map { $0 * 100 })) %, heap held \(f(heapDrift.map { $0 * 100 })) %, open files \(f(fileDrift.map { $0 * 100 })) %, pipelines \(pipelinesEqual ? "equal" : "differ")
            open files by kind (after warm-up → end): \(fileKindChanges.map { "\($0.kind) \($0.warm) → \($0.end)" }.joined(separator: ", "))
            player log: \(log)
            """
    }
}
