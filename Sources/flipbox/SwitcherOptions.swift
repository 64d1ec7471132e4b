import ArgumentParser
import Foundation
import Headend
import Lineup
import Parental
import Switcher

/// The switcher's command-line options; each falls back to the lineup's `settings`, then to
/// the built-in default.
struct SwitcherOptions: ParsableArguments {
    @Option(help: "Show the channel card when a flip has no picture after this long (e.g. 80ms). Setting: card-delay.")
    var cardDelay: String?

    @Option(help: "Keep a card up at least this long (e.g. 400ms). Setting: card-minimum.")
    var cardMinimum: String?

    @Option(help: "A flip with no picture after this long fails with a no-signal card (e.g. 8s). Setting: tune-timeout.")
    var tuneTimeout: String?

    @Option(help: "What next/previous skip: hidden, failed, hidden,failed or none. Setting: skip.")
    var skip: String?

    @Option(help: "What next/previous visit: all, favourites or group (the current channel's). Setting: flip-scope.")
    var flipScope: String?

    @Option(help: "Locked channel numbers, comma-separated (the lock card until the PIN is given). Setting: locked.")
    var locked: String?

    @Option(help: "Parental rules, e.g. 'VCHIP=TV-PG, FSK=12, unrated=lock, unlock=2h' (replaces the lineup's). Setting: parental.")
    var parental: String?

    @Option(help: "What next/previous do with locked channels: skip, or card (stop on them, lock card up). Setting: locked-flip.")
    var lockedFlip: String?

    @Option(help: "Seconds before a programme ends that \"Up next\" shows (0: never). Setting: up-next-seconds. Default: 60.")
    var upNextSeconds: String?

    @Option(help: "The card templates directory. Setting: interstitials. Default: Interstitials/ next to Channels/.")
    var interstitials: String?

    @Option(help: "Where the last channel is remembered. Default: $FLIPBOX_STATE_DIR, $XDG_STATE_HOME/flipbox or ~/.local/state/flipbox.")
    var stateDir: String?

    /// Applies the options and the lineup's settings to `options`.
    @Option(help: "Keep this much of the channel on screen to pause and rewind (e.g. 30m; off). Setting: timeshift.")
    var timeshift: String?

    @Option(help: "Timeshift data kept in memory per channel before it goes to disk (e.g. 64MB). Setting: timeshift-memory.")
    var timeshiftMemory: String?

    func apply(to options: inout PlayerOptions, lineup: Lineup, lineupPath: String) throws {
        let settings = lineup.settings
        func pick(_ option: String?, _ key: String) -> (String, String)? {
            if let option { return (option, "--\(key)") }
            if let value = settings[key] { return (value, lineup.settingOrigin(key, path: lineupPath)) }
            return nil
        }
        var s = options.switcher
        if let (text, origin) = pick(cardDelay, "card-delay") { s.cardDelay = try Self.duration(text, origin, within: .zero ... .seconds(10)) }
        if let (text, origin) = pick(cardMinimum, "card-minimum") { s.cardMinimum = try Self.duration(text, origin, within: .zero ... .seconds(10)) }
        if let (text, origin) = pick(tuneTimeout, "tune-timeout") { s.tuneTimeout = try Self.duration(text, origin, within: .milliseconds(500) ... .seconds(120)) }
        if let (text, origin) = pick(skip, "skip") {
            let parts = Set(text.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            guard parts.isSubset(of: ["hidden", "failed", "none"]), !(parts.contains("none") && parts.count > 1) else {
                throw ValidationError("\(origin) must be hidden, failed, hidden,failed or none, not '\(text)'")
            }
            s.skipHidden = parts.contains("hidden")
            s.skipFailed = parts.contains("failed")
        }
        if let (text, origin) = pick(flipScope, "flip-scope") {
            guard let scope = FlipScope(text) else { throw ValidationError("\(origin) must be all, favourites or group, not '\(text)'") }
            s.scope = scope
        }
        if let (text, origin) = pick(lockedFlip, "locked-flip") {
            guard let rule = LockedFlip(rawValue: text.lowercased()) else { throw ValidationError("\(origin) must be skip or card, not '\(text)'") }
            s.lockedFlip = rule
        }
        options.switcher = s
        do {
            options.parental = try ParentalRules(settings: parental.map { ["parental": $0] } ?? settings)
        } catch {
            throw ValidationError(parental == nil ? "\(lineupPath): settings.\(error)" : "--\(error)")
        }
        options.pinDirectory = StateDirectory.resolve(stateDir)
        if let (text, origin) = pick(upNextSeconds, "up-next-seconds") {
            guard let seconds = Double(text), (0...3600).contains(seconds) else {
                throw ValidationError("\(origin) must be a number of seconds from 0 (never) to 3600, not '\(text)'")
            }
            options.upNextSeconds = seconds
        }
        if let (text, origin) = pick(locked, "locked") {
            var numbers: Set<ChannelNumber> = []
            for part in text.split(separator: ",") {
                let t = part.trimmingCharacters(in: .whitespaces)
                guard let n = ChannelNumber(t) else { throw ValidationError("\(origin): '\(t)' is not a channel number") }
                guard lineup.index(of: n) != nil else { throw ValidationError("\(origin): there is no channel \(n) to lock") }
                numbers.insert(n)
            }
            options.locked = numbers
        }
        if options.startChannel == nil, let start = settings["start"] {
            guard let n = ChannelNumber(start), lineup.index(of: n) != nil else {
                throw ValidationError("\(lineup.settingOrigin("start", path: lineupPath)) '\(start)' is not a channel of this lineup")
            }
            options.startChannel = n
        }
        if let (text, origin) = pick(timeshift, "timeshift"), text.lowercased() != "off" {
            var shift = TimeshiftSettings(window: try Self.duration(text, origin, within: .seconds(10) ... .seconds(24 * 3600)),
                                          directory: TimeshiftSettings.defaultDirectory)
            if let (text, origin) = pick(timeshiftMemory, "timeshift-memory") { shift.memoryBytes = try WarmBudget.bytes(text, setting: origin) }
            options.timeshift = shift
        }
        options.interstitials = try interstitialsDirectory(settings: settings, lineupPath: lineupPath)
        if let stateDir {
            options.stateFile = (stateDir as NSString).appendingPathComponent("state.json")
        } else {
            options.stateFile = LastChannelStore.defaultPath()
        }
    }

    private func interstitialsDirectory(settings: [String: String], lineupPath: String) throws -> String? {
        let lineupDir = (lineupPath as NSString).deletingLastPathComponent
        if let given = interstitials ?? settings["interstitials"].map({ ($0 as NSString).isAbsolutePath ? $0 : (lineupDir as NSString).appendingPathComponent($0) }) {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: given, isDirectory: &isDir), isDir.boolValue else {
                throw ValidationError("the card templates directory \(given) does not exist")
            }
            return given
        }
        // Next to the lineup, next to its parent (Channels/../Interstitials), in the working directory.
        let candidates = [
            (lineupDir as NSString).appendingPathComponent("Interstitials"),
            ((lineupDir as NSString).deletingLastPathComponent as NSString).appendingPathComponent("Interstitials"),
            FileManager.default.currentDirectoryPath + "/Interstitials",
            "/usr/local/share/flipbox/Interstitials",
            "/usr/share/flipbox/Interstitials",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("default.svg")) }
    }

    /// `80ms`, `0.4s`, `8s`, `30m`, `2h`, or a plain number of milliseconds.
    static func duration(_ text: String, _ origin: String, within range: ClosedRange<Duration>) throws -> Duration {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var value: Double?
        if t.hasSuffix("ms") { value = Double(t.dropLast(2)) }
        else if t.hasSuffix("s") { value = Double(t.dropLast()).map { $0 * 1000 } }
        else if t.hasSuffix("m") { value = Double(t.dropLast()).map { $0 * 60_000 } }
        else if t.hasSuffix("h") { value = Double(t.dropLast()).map { $0 * 3_600_000 } }
        else { value = Double(t) }
        guard let ms = value, ms.isFinite else { throw ValidationError("\(origin) must be a duration like 80ms, 8s or 30m, not '\(text)'") }
        let d = Duration.milliseconds(Int64(ms.rounded()))
        guard range.contains(d) else {
            throw ValidationError("\(origin) must be between \(range.lowerBound) and \(range.upperBound), not '\(text)'")
        }
        return d
    }
}
