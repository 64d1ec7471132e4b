import FlipboxCore
import Foundation
import Lineup

extension TimeshiftSettings {
    /// A command-line option that does not parse, or that asks for what cannot be.
    public struct InvalidOption: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The timeshift a box runs with: each option (`--timeshift`, `--timeshift-memory`,
    /// `--timeshift-warm`, as typed; nil when not given) over the lineup's setting (read and
    /// checked when the lineup was loaded) over the default. Nil when timeshift is off: no
    /// window from either, or `--timeshift off`. `--timeshift-warm off` turns the lineup's
    /// warm seconds off; `--timeshift-warm` with timeshift off is refused, since it would do
    /// nothing.
    public static func resolve(window: String?, memory: String?, warm: String?, lineup settings: LineupSettings,
                               directory: URL = defaultDirectory) throws(InvalidOption) -> TimeshiftSettings? {
        let span: Duration? = if let window {
            window.lowercased() == "off" ? nil : try duration(window, "--timeshift", within: .seconds(10) ... .seconds(24 * 3600))
        } else {
            settings.timeshift
        }
        let warmSpan: Duration? = if let warm {
            warm.lowercased() == "off" ? nil : try duration(warm, "--timeshift-warm", within: .seconds(1) ... .seconds(600))
        } else {
            settings.timeshiftWarm
        }
        guard let span else {
            if let warm, warm.lowercased() != "off" {
                throw InvalidOption(description: "--timeshift-warm \(warm) needs timeshift on (--timeshift, or timeshift: in the lineup's settings)")
            }
            return nil
        }
        var shift = TimeshiftSettings(window: span, directory: directory)
        if let memory {
            do { shift.memoryBytes = try WarmBudget.bytes(memory, setting: "--timeshift-memory") } catch {
                throw InvalidOption(description: "\(error)")
            }
        } else if let bytes = settings.timeshiftMemory?.bytes {
            shift.memoryBytes = bytes
        }
        if let resume = settings.resumePosition { shift.resumePosition = resume }
        shift.warmSeconds = warmSpan
        return shift
    }

    /// `80ms`, `8s`, `30m`, `2h` within `range`, or why not, naming `option`.
    private static func duration(_ text: String, _ option: String, within range: ClosedRange<Duration>) throws(InvalidOption) -> Duration {
        guard let d = Duration(setting: text) else {
            throw InvalidOption(description: "\(option) must be a duration like 80ms, 8s or 30m, not '\(text)'")
        }
        guard range.contains(d) else {
            throw InvalidOption(description: "\(option) must be between \(range.lowerBound) and \(range.upperBound), not '\(text)'")
        }
        return d
    }
}
