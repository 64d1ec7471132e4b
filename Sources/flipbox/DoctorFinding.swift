/// One line of `flipbox doctor`: what was checked, what was found, and what to do about it.
struct DoctorFinding: Sendable, Hashable, CustomStringConvertible {
    enum Verdict: String, Sendable, Hashable {
        /// Works.
        case ok
        /// The box plays, with less (no sound, no remote, the last channel not remembered).
        case note
        /// The box cannot play as configured.
        case problem
    }

    var verdict: Verdict
    /// `display`, `input`, `sound`, `gstreamer`, `lineup`, `keymap`, `pools`, `state`, `api`, `cec`.
    var subject: String
    var detail: String
    /// What to do; nil when nothing needs doing.
    var fix: String?

    static func ok(_ subject: String, _ detail: String) -> DoctorFinding {
        DoctorFinding(verdict: .ok, subject: subject, detail: detail, fix: nil)
    }

    static func note(_ subject: String, _ detail: String, fix: String? = nil) -> DoctorFinding {
        DoctorFinding(verdict: .note, subject: subject, detail: detail, fix: fix)
    }

    static func problem(_ subject: String, _ detail: String, fix: String? = nil) -> DoctorFinding {
        DoctorFinding(verdict: .problem, subject: subject, detail: detail, fix: fix)
    }

    /// `ok    display    …`, `NOTE  sound      … (fix: …)`, `FAIL  lineup     … (fix: …)`.
    var description: String {
        let mark = switch verdict { case .ok: "ok  "; case .note: "NOTE"; case .problem: "FAIL" }
        let padded = subject.padding(toLength: 10, withPad: " ", startingAt: 0)
        return "\(mark)  \(padded)\(detail)\(fix.map { " (fix: \($0))" } ?? "")"
    }
}

/// Every finding of one `doctor` run, and whether the box can play.
struct DoctorReport: Sendable {
    var findings: [DoctorFinding]

    var canPlay: Bool { !findings.contains { $0.verdict == .problem } }

    /// The last line: `doctor: this box can play (2 notes)` or `… cannot play: 1 problem`.
    var summary: String {
        let problems = findings.filter { $0.verdict == .problem }.count
        let notes = findings.filter { $0.verdict == .note }.count
        if problems > 0 { return "doctor: this box cannot play: \(problems) problem\(problems == 1 ? "" : "s")" }
        return "doctor: this box can play" + (notes > 0 ? " (\(notes) note\(notes == 1 ? "" : "s"))" : "")
    }
}
