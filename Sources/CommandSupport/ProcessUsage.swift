import Foundation
import Lineup

/// CPU time and resident memory of this process, from /proc (Linux).
public struct ProcessUsage: Sendable {
    /// User + system CPU time.
    public var cpu: Duration
    /// Resident set size in bytes.
    public var residentBytes: Int

    public static func now() -> ProcessUsage { of(process: "self") }

    /// The usage of process `pid` (zero when it is gone).
    public static func of(pid: Int32) -> ProcessUsage { of(process: "\(pid)") }

    private static func of(process: String) -> ProcessUsage {
        var cpu: Duration = .zero
        if let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after "pid (comm)": state is field 3; utime 14, stime 15 (clock ticks).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) {
                let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
                cpu = .milliseconds(Int64((u + s) / ticks * 1000))
            }
        }
        var rss = 0
        if let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) {
            rss = (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return ProcessUsage(cpu: cpu, residentBytes: rss)
    }

    /// Share of one core used between `a` and `b` over `wall`.
    public static func coreShare(from a: ProcessUsage, to b: ProcessUsage, over wall: Duration) -> Double {
        let w = wall.seconds
        return w > 0 ? (b.cpu - a.cpu).seconds / w : 0
    }
}

extension ProcessUsage {
    /// The peak resident set size since the start or the last ``resetPeakResident()`` (VmHWM).
    public static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// Starts the peak resident set size again from the current one (Linux: `clear_refs` 5).
    public static func resetPeakResident() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }
}
