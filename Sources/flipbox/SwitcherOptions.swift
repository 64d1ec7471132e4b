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

    @Option(help: "With timeshift on, warm channels not on screen keep their last seconds too, so a flip can go back to before it (e.g. 60s, 1s to 10m; off). Setting: timeshift-warm.")
    var timeshiftWarm: String?

    /// Applies the options over the lineup's settings (read and checked when the lineup was
    /// loaded) over the defaults already in `options`.
    func apply(to options: inout PlayerOptions, lineup: Lineup, lineupPath: String) throws {
        let settings = lineup.settings
        var s = options.switcher
        s.cardDelay = try cardDelay.map { try Self.duration($0, "--card-delay", within: .zero ... .seconds(10)) } ?? settings.cardDelay ?? s.cardDelay
        s.cardMinimum = try cardMinimum.map { try Self.duration($0, "--card-minimum", within: .zero ... .seconds(10)) } ?? settings.cardMinimum ?? s.cardMinimum
        s.tuneTimeout = try tuneTimeout.map { try Self.duration($0, "--tune-timeout", within: .milliseconds(500) ... .seconds(120)) } ?? settings.tuneTimeout ?? s.tuneTimeout
        let skipRule = try skip.map { text in
            guard let rule = LineupSettings.Skip(text) else { throw ValidationError("--skip must be hidden, failed, hidden,failed or none, not '\(text)'") }
            return rule
        } ?? settings.skip
        if let skipRule {
            s.skipHidden = skipRule.hidden
            s.skipFailed = skipRule.failed
        }
        s.scope = try flipScope.map { text in
            guard let scope = FlipScope(text) else { throw ValidationError("--flip-scope must be all, favourites or group, not '\(text)'") }
            return scope
        } ?? settings.flipScope ?? s.scope
        s.lockedFlip = try lockedFlip.map { text in
            guard let rule = LockedFlip(rawValue: text.lowercased()) else { throw ValidationError("--locked-flip must be skip or card, not '\(text)'") }
            return rule
        } ?? settings.lockedFlip ?? s.lockedFlip
        options.switcher = s
        do {
            options.parental = try ParentalRules(settings: parental.map { ["parental": $0] } ?? settings.parental)
        } catch {
            throw ValidationError(parental == nil ? "\(lineupPath): settings.\(error)" : "--\(error)")
        }
        options.pinDirectory = StateDirectory.resolve(stateDir)
        if let upNextSeconds {
            guard let seconds = Double(upNextSeconds), (0...3600).contains(seconds) else {
                throw ValidationError("--up-next-seconds must be a number of seconds from 0 (never) to 3600, not '\(upNextSeconds)'")
            }
            options.upNextSeconds = seconds
        } else if let seconds = settings.upNextSeconds {
            options.upNextSeconds = seconds
        }
        if let locked {
            var numbers: Set<ChannelNumber> = []
            for part in locked.split(separator: ",") {
                let t = part.trimmingCharacters(in: .whitespaces)
                guard let n = ChannelNumber(t) else { throw ValidationError("--locked: '\(t)' is not a channel number") }
                guard lineup.index(of: n) != nil else { throw ValidationError("--locked: there is no channel \(n) to lock") }
                numbers.insert(n)
            }
            options.locked = numbers
        } else if let numbers = settings.locked {
            options.locked = Set(numbers)
        }
        if options.startChannel == nil { options.startChannel = settings.start }
        do {
            if let shift = try TimeshiftSettings.resolve(window: timeshift, memory: timeshiftMemory, warm: timeshiftWarm, lineup: settings) {
                options.timeshift = shift
            }
        } catch {
            throw ValidationError("\(error)")
        }
        options.interstitials = try interstitialsDirectory(settings: settings, lineupPath: lineupPath)
        if let stateDir {
            options.stateFile = (stateDir as NSString).appendingPathComponent("state.json")
        } else {
            options.stateFile = LastChannelStore.defaultPath()
        }
    }

    private func interstitialsDirectory(settings: LineupSettings, lineupPath: String) throws -> String? {
        let lineupDir = (lineupPath as NSString).deletingLastPathComponent
        if let given = interstitials ?? settings.interstitials.map({ ($0 as NSString).isAbsolutePath ? $0 : (lineupDir as NSString).appendingPathComponent($0) }) {
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

    /// `80ms`, `0.4s`, `8s`, `30m`, `2h`, or a plain number of milliseconds (`Duration(setting:)`).
    static func duration(_ text: String, _ origin: String, within range: ClosedRange<Duration>) throws -> Duration {
        guard let d = Duration(setting: text) else { throw ValidationError("\(origin) must be a duration like 80ms, 8s or 30m, not '\(text)'") }
        guard range.contains(d) else {
            throw ValidationError("\(origin) must be between \(range.lowerBound) and \(range.upperBound), not '\(text)'")
        }
        return d
    }
}
