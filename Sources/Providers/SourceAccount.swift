import Foundation
import Lineup

/// The account a source argument names (`USER@HOST[:PORT]`) and where its password comes from:
/// an environment variable, or the first line of a file another variable names; never the
/// command line, where it would show in the process list and the shell's history.
struct SourceAccount: Sendable {
    /// What the password is for, in messages: `Xtream`, `Tvheadend`.
    var kind: String
    var passwordVariable: String
    var passwordFileVariable: String

    /// Where to put the password, for messages.
    var advice: String {
        "put it in $\(passwordVariable), or in a file (readable by the box's user only) named by $\(passwordFileVariable)"
    }

    /// The password `environment` gives (the variable first, else the file); nil when it gives
    /// none. Throws a message naming `source` (never the password) when the file cannot be read
    /// or the password is no password.
    func password(in environment: [String: String], for source: String) throws(Problem) -> String? {
        let password: String
        if let given = environment[passwordVariable], !given.isEmpty {
            password = given
        } else if let file = environment[passwordFileVariable], !file.isEmpty {
            password = try readPassword(file: file).password
        } else {
            return nil
        }
        try Self.check(password, for: source)
        return password
    }

    /// The password in `file` (a lineup's `password-file`), checked as every password is, and a
    /// warning when others may read the file.
    func password(file: String, for source: String) throws(Problem) -> (password: String, warning: String?) {
        let read = try readPassword(file: file)
        try Self.check(read.password, for: source)
        return read
    }

    static func check(_ password: String, for source: String) throws(Problem) {
        guard password.count <= 256, !password.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw Problem("\(source): the password must be at most 256 characters without control characters")
        }
    }

    /// The warning for a password file others may read, when the password comes from one.
    func fileWarning(in environment: [String: String]) -> String? {
        guard environment[passwordVariable]?.isEmpty ?? true, let file = environment[passwordFileVariable], !file.isEmpty else { return nil }
        return try? readPassword(file: file).warning
    }

    /// The password in `file` (its first line, at most 4 KB), and a warning when others may read it.
    func readPassword(file: String) throws(Problem) -> (password: String, warning: String?) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        guard let attributes, let data = FileManager.default.contents(atPath: file) else {
            throw Problem("\(file): the \(kind) password file cannot be read")
        }
        guard data.count <= 4096 else { throw Problem("\(file): more than 4 KB; a password file holds the password alone") }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let password = line.trimmingCharacters(in: .whitespaces)
        guard !password.isEmpty else { throw Problem("\(file): the \(kind) password file is empty") }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        let warning = mode & 0o004 != 0 ? "\(file): anyone on this machine may read the \(kind) password in it; make it the box's user's only (chmod 600)" : nil
        return (password, warning)
    }

    /// Whether `name` (percent-decoded) may be a username: 1 to 128 characters, no control
    /// characters, no `/`.
    static func validUsername(_ name: String) -> Bool {
        (1...128).contains(name.count) && !name.contains("/")
            && !name.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) }
    }

    /// Whether `host` is `NAME`, `NAME:PORT`, `[IPv6]` or `[IPv6]:PORT`, the port 1 to 65535.
    static func validHost(_ host: String) -> Bool {
        var name = host
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            guard let port = Int(host[host.index(after: colon)...]), (1...65535).contains(port) else { return false }
            name = String(host[..<colon])
        }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return (1...253).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-:".contains($0)) }
    }

    /// `text` percent-encoded for a URL's user-info, path or query (RFC 3986's unreserved kept).
    static func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .urlUnreserved) ?? text }

    /// A password that cannot be had, said for the person running the box.
    struct Problem: Error, Sendable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
