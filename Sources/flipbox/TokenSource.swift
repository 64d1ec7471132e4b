import ArgumentParser
import Foundation

/// A bearer token from where it may be given: a file (`--token-file`, or `$VAR_FILE`), the
/// environment (`$VAR`, e.g. from `/etc/flipbox/flipbox.env`, mode 0600) or, last and warned
/// about, the command line, which every local user can read in `ps`.
struct TokenSource {
    /// The option's name without dashes (`token`, `serve-token`).
    var option: String
    /// The environment variable (`FLIPBOX_TOKEN`); `VAR_FILE` names a file.
    var variable: String

    /// The most bytes a token file may hold.
    static let maxFileSize = 4096

    /// The token, or nil when none is given. Throws a message naming the option or file.
    /// `warn` hears about a token on the command line and a file others may read.
    func resolve(value: String?, file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                 warn: (String) -> Void) throws -> String? {
        if value != nil, file != nil {
            throw ValidationError("give --\(option) or --\(option)-file, not both")
        }
        let token = try given(value: value, file: file, environment: environment, warn: warn)
        if let token, token.count < 16 { warn("the \(option) is \(token.count) characters: one of 16 or more random ones is not guessed (openssl rand -hex 16)") }
        return token
    }

    private func given(value: String?, file: String?, environment: [String: String], warn: (String) -> Void) throws -> String? {
        if let file { return try Self.read(file, what: "--\(option)-file", warn: warn) }
        if let value {
            warn("--\(option) on the command line can be read by every user of this machine (ps); put it in a file of mode 0600 and give --\(option)-file, or set \(variable) in /etc/flipbox/flipbox.env")
            return try Self.check(value, what: "--\(option)")
        }
        if let path = environment["\(variable)_FILE"], !path.isEmpty { return try Self.read(path, what: "\(variable)_FILE", warn: warn) }
        if let text = environment[variable], !text.isEmpty { return try Self.check(text, what: variable) }
        return nil
    }

    /// The token in `path`: its first line, trimmed.
    static func read(_ path: String, what: String, warn: (String) -> Void) throws -> String {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw ValidationError("\(what) \(path): no such file, or it cannot be read")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw ValidationError("\(what) \(path) is not a regular file")
        }
        if let size = (attributes[.size] as? NSNumber)?.intValue, size > maxFileSize {
            throw ValidationError("\(what) \(path) holds \(size) bytes; a token file holds one line")
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            warn("\(what) \(path) can be read by others (mode \(String(mode, radix: 8))); chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(what) \(path) cannot be read (run as a user who may)")
        }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return try check(line.trimmingCharacters(in: .whitespaces), what: "\(what) \(path)")
    }

    /// A token is printable ASCII without spaces (it travels in a header and a URL), at most 256
    /// characters.
    static func check(_ token: String, what: String) throws -> String {
        guard (1...256).contains(token.count), token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw ValidationError("\(what): a token is 1 to 256 printable characters without spaces")
        }
        return token
    }
}
