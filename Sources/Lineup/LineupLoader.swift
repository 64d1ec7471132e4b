import Foundation

/// Reads lineup files (extended M3U or native YAML) and checks them.
///
/// Every problem of a file is collected, not just the first; a lineup is
/// returned only when none of them is an error. Never traps on any input.
public enum LineupLoader {
    /// Larger files are refused rather than read into memory.
    public static let maximumFileSize = 32 * 1024 * 1024

    /// Loads the lineup at `path`; the format comes from the extension
    /// (`.m3u`, `.m3u8`, `.yaml`, `.yml`), else from the content.
    public static func load(path: String) throws(LineupError) -> Lineup {
        try check(path: path).get()
    }

    /// Parses `text` as if read from `file` (used in messages and to resolve relative paths).
    public static func parse(text: String, file: String = "<memory>", format: LineupFormat) throws(LineupError) -> Lineup {
        try check(text: text, file: file, format: format).get()
    }

    /// Like `load(path:)`, but returns warnings too, for `flipbox lineup check`.
    public static func check(path: String) -> LineupReport {
        switch read(path: path) {
        case .failure(let failure): return failure.report
        case .success(let (data, absolute)):
            var report = check(data: data, file: path, format: LineupFormat(path: path))
            report.lineup?.file = absolute
            return report
        }
    }

    /// The bytes of the lineup file at `path` and its absolute path, or a report of why not.
    static func read(path: String) -> Result<(Data, String), ReadFailure> {
        let absolute = LogoResolution.absolutePath(path, baseDirectory: FileManager.default.currentDirectoryPath)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            return .failure(failure(path, "no such file"))
        }
        if isDirectory.boolValue {
            return .failure(failure(path, "is a directory, not a lineup file (give the path of a .m3u or .yaml file)"))
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: absolute)
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            // A FIFO would block the box for good, /dev/zero would never end.
            let kind = switch type {
            case .typeCharacterSpecial: "a character device"
            case .typeBlockSpecial: "a block device"
            case .typeSocket: "a socket"
            default: "a FIFO or another special file"
            }
            return .failure(failure(path, "is \(kind), not a lineup file (give the path of a .m3u or .yaml file)"))
        }
        if let size = attributes?[.size] as? NSNumber, size.intValue > maximumFileSize {
            return .failure(failure(path, "is \(size.intValue / 1024 / 1024) MiB; a lineup file may be at most \(maximumFileSize / 1024 / 1024) MiB"))
        }
        do {
            return .success((try Data(contentsOf: URL(fileURLWithPath: absolute)), absolute))
        } catch {
            return .failure(failure(path, "cannot be read: \(error.localizedDescription)"))
        }
    }

    /// A lineup file that cannot be read, as a report.
    struct ReadFailure: Error {
        var report: LineupReport
    }

    /// Checks raw bytes; `format` nil means sniff the content.
    public static func check(data: Data, file: String, format: LineupFormat?) -> LineupReport {
        switch LineupText.decode(data) {
        case .success(let text):
            return check(text: text, file: file, format: format)
        case .failure(let problem):
            return LineupReport(lineup: nil, diagnostics: [LineupDiagnostic(.error, file: file, line: problem.line, problem.message)])
        }
    }

    /// Checks `text`; `format` nil means sniff the content.
    public static func check(text: String, file: String = "<memory>", format: LineupFormat?) -> LineupReport {
        let absolute = LogoResolution.absolutePath(file, baseDirectory: FileManager.default.currentDirectoryPath)
        let baseDirectory = (absolute as NSString).deletingLastPathComponent
        var log = DiagnosticLog(file: file)
        let chosen = format ?? LineupFormat(sniffing: text)
        let draft: LineupDraft = switch chosen {
        case .m3u: M3UParser.parse(text, log: &log)
        case .yaml: YAMLLineupParser.parse(text, log: &log)
        }
        let lineup = LineupAssembler.assemble(draft, file: file, baseDirectory: baseDirectory, log: &log)
        if format == nil, chosen == .yaml, log.hasErrors {
            log.warning(0, "no #EXTM3U header, so the file was read as a YAML lineup")
        }
        return LineupReport(lineup: lineup, diagnostics: log.sorted)
    }

    private static func failure(_ file: String, _ message: String) -> ReadFailure {
        ReadFailure(report: LineupReport(lineup: nil, diagnostics: [LineupDiagnostic(.error, file: file, line: 0, message)]))
    }
}
