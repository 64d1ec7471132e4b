import Foundation

/// The `flipbox play` command line the installed service runs: the unit's `ExecStart` with its
/// `Environment=` defaults and `EnvironmentFile=` settings substituted as systemd does (`$VAR`
/// splits on white space, `${VAR}` stays one word).
struct ServiceCommandLine: Sendable, Equatable {
    /// `play`'s arguments, without the program and the `play` word.
    var arguments: [String]

    /// Reads the unit (and the environment files it names); nil when there is no unit there.
    static func read(unit: String) -> ServiceCommandLine? {
        guard let text = try? String(contentsOfFile: unit, encoding: .utf8) else { return nil }
        return parse(unit: text) { path in try? String(contentsOfFile: path, encoding: .utf8) }
    }

    /// `readFile` answers the unit's `EnvironmentFile=` paths (a leading `-` means optional).
    static func parse(unit: String, readFile: (String) -> String?) -> ServiceCommandLine? {
        var environment: [String: String] = [:]
        var execStart: String?
        for raw in unit.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("Environment=") {
                for (key, value) in assignments(String(line.dropFirst("Environment=".count))) { environment[key] = value }
            } else if line.hasPrefix("EnvironmentFile=") {
                var path = String(line.dropFirst("EnvironmentFile=".count))
                if path.hasPrefix("-") { path.removeFirst() }
                for fileLine in (readFile(path) ?? "").split(separator: "\n") {
                    let entry = fileLine.trimmingCharacters(in: .whitespaces)
                    guard !entry.hasPrefix("#"), let eq = entry.firstIndex(of: "=") else { continue }
                    environment[String(entry[..<eq])] = unquote(String(entry[entry.index(after: eq)...]))
                }
            } else if line.hasPrefix("ExecStart=") {
                execStart = String(line.dropFirst("ExecStart=".count))
            }
        }
        guard let execStart else { return nil }
        var words: [String] = []
        for word in execStart.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
            if word.hasPrefix("${"), word.hasSuffix("}") {
                words.append(environment[String(word.dropFirst(2).dropLast())] ?? "")
            } else if word.hasPrefix("$") {
                words += (environment[String(word.dropFirst())] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            } else {
                words.append(word)
            }
        }
        guard let play = words.firstIndex(of: "play") else { return nil }
        return ServiceCommandLine(arguments: Array(words[(play + 1)...]))
    }

    /// `A=1 "B=two words"` → [A: 1, B: two words].
    private static func assignments(_ text: String) -> [(String, String)] {
        var result: [(String, String)] = [], current = "", quoted = false
        func flush() {
            if let eq = current.firstIndex(of: "=") {
                result.append((String(current[..<eq]), String(current[current.index(after: eq)...])))
            }
            current = ""
        }
        for ch in text {
            if ch == "\"" { quoted.toggle() } else if ch == " " && !quoted { flush() } else { current.append(ch) }
        }
        flush()
        return result
    }

    private static func unquote(_ value: String) -> String {
        let v = value.trimmingCharacters(in: .whitespaces)
        if v.count >= 2, let f = v.first, f == "\"" || f == "'", v.last == f { return String(v.dropFirst().dropLast()) }
        return v
    }
}
