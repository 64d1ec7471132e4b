/// Where the keyboard remote shows its lines and the number being typed.
///
/// Both closures may be called from any task, one call at a time per line.
public struct RemoteDisplay: Sendable {
    /// Prints one finished line (a flip result, the info line).
    public var showLine: @Sendable (String) -> Void
    /// Shows the number being typed, or hides it on nil.
    public var showEntry: @Sendable (String?) -> Void

    public init(showLine: @escaping @Sendable (String) -> Void, showEntry: @escaping @Sendable (String?) -> Void) {
        self.showLine = showLine
        self.showEntry = showEntry
    }

    /// Standard error. On a terminal the typed number is shown in place (`\r`) and replaced by the
    /// next line; elsewhere only finished lines are written.
    public static var standardError: RemoteDisplay {
        let isTerminal = Syscalls.isTerminal(2)
        let clear = "\r\u{1B}[K"
        return RemoteDisplay(
            showLine: { line in Syscalls.writeStandardError((isTerminal ? clear : "") + line + "\n") },
            showEntry: { text in
                guard isTerminal else { return }
                Syscalls.writeStandardError(clear + (text.map { "# \($0)_" } ?? ""))
            }
        )
    }
}
