import Foundation
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// Which timeshift a box runs with: each option (`--timeshift`, `--timeshift-memory`,
    /// `--timeshift-warm`) over the lineup's setting (flat or in the group `timeshift: {...}`)
    /// over the default.
    @Suite struct TimeshiftSettingsResolution {
        static let directory = URL(fileURLWithPath: "/tmp/flipbox-timeshift-settings")

        func resolve(window: String? = nil, memory: String? = nil, warm: String? = nil,
                     lineup: [String: String] = [:]) throws(TimeshiftSettings.InvalidOption) -> TimeshiftSettings? {
            try TimeshiftSettings.resolve(window: window, memory: memory, warm: warm, lineup: LineupSettings(lineup), directory: Self.directory)
        }

        @Test func offUnlessTheCommandLineOrTheLineupTurnsItOn() throws {
            #expect(try resolve() == nil)
            #expect(try resolve(memory: "8MB", lineup: ["timeshift-memory": "8MB", "timeshift-warm": "20s"]) == nil,
                    "memory and warm seconds alone turn nothing on")
            let defaults = try #require(try resolve(window: "30m"))
            #expect(defaults.window == .seconds(1800) && defaults.memoryBytes == TimeshiftSettings.defaultMemoryBytes)
            #expect(defaults.warmSeconds == nil && !defaults.resumePosition && defaults.directory == Self.directory)
        }

        @Test func theLineupOverTheDefaults() throws {
            let flat = try #require(try resolve(lineup: ["timeshift": "30m", "timeshift-memory": "8MB", "timeshift-warm": "20s", "resume-position": "true"]))
            #expect(flat.window == .seconds(1800) && flat.memoryBytes == 8 << 20 && flat.warmSeconds == .seconds(20) && flat.resumePosition)
            let group = try #require(try resolve(lineup: ["timeshift.minutes": "30", "timeshift.memory": "8MB", "timeshift.warm-seconds": "20"]))
            #expect(group.window == .seconds(1800) && group.memoryBytes == 8 << 20 && group.warmSeconds == .seconds(20),
                    "the group form reads the same")
        }

        @Test func theCommandLineOverTheLineup() throws {
            let lineup = ["timeshift.minutes": "30", "timeshift.memory": "8MB", "timeshift.warm-seconds": "20", "resume-position": "true"]
            let shift = try #require(try resolve(window: "10m", memory: "1MB", warm: "45s", lineup: lineup))
            #expect(shift.window == .seconds(600) && shift.memoryBytes == 1 << 20 && shift.warmSeconds == .seconds(45))
            #expect(shift.resumePosition, "what the command line does not say comes from the lineup")
            let onlyWarm = try #require(try resolve(warm: "5s", lineup: lineup))
            #expect(onlyWarm.window == .seconds(1800) && onlyWarm.memoryBytes == 8 << 20 && onlyWarm.warmSeconds == .seconds(5))
            #expect(try resolve(warm: "off", lineup: lineup)?.warmSeconds == nil, "--timeshift-warm off turns the lineup's off")
            #expect(try resolve(window: "off", lineup: lineup) == nil, "--timeshift off turns the lineup's off")
        }

        @Test func aBadOptionSaysWhichAndWhy() {
            func message(_ body: () throws(TimeshiftSettings.InvalidOption) -> TimeshiftSettings?) -> String {
                do { _ = try body(); return "accepted" } catch { return error.description }
            }
            #expect(message { () throws(TimeshiftSettings.InvalidOption) in try resolve(window: "30m", warm: "20m") }
                == "--timeshift-warm must be between 1.0 seconds and 600.0 seconds, not '20m'")
            #expect(message { () throws(TimeshiftSettings.InvalidOption) in try resolve(window: "30m", warm: "soon") }
                == "--timeshift-warm must be a duration like 80ms, 8s or 30m, not 'soon'")
            #expect(message { () throws(TimeshiftSettings.InvalidOption) in try resolve(window: "5s") }
                == "--timeshift must be between 10.0 seconds and 86400.0 seconds, not '5s'")
            #expect(message { () throws(TimeshiftSettings.InvalidOption) in try resolve(window: "30m", memory: "lots") }
                == "--timeshift-memory 'lots' is not a size such as 256MB, 1G or 512KB")
            #expect(message { () throws(TimeshiftSettings.InvalidOption) in try resolve(warm: "60s") }
                == "--timeshift-warm 60s needs timeshift on (--timeshift, or timeshift: in the lineup's settings)")
        }
    }
}
