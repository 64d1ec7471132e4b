import Foundation
import Testing
@testable import Lineup

/// Paths of files the tests read, found from this file's location (no bundle resources).
enum Fixtures {
    /// `Tests/LineupTests`.
    static let directory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
    /// The repository root.
    static let repository = directory.deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String {
        directory.appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    static func example(_ name: String) -> String {
        repository.appendingPathComponent("Channels/examples").appendingPathComponent(name).path
    }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("lineup-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Checks M3U text as if read from `/lineups/test.m3u`.
func checkM3U(_ text: String, file: String = "/lineups/test.m3u") -> LineupReport {
    LineupLoader.check(text: text, file: file, format: .m3u)
}

/// Checks YAML text as if read from `/lineups/test.yaml`.
func checkYAML(_ text: String, file: String = "/lineups/test.yaml") -> LineupReport {
    LineupLoader.check(text: text, file: file, format: .yaml)
}

extension LineupReport {
    /// Error messages as `LINE: message`, for compact expectations.
    var errorLines: [String] { errors.map { "\($0.line): \($0.message)" } }
    var warningLines: [String] { warnings.map { "\($0.line): \($0.message)" } }
}
