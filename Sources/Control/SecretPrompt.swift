/// Asks for a secret (a PIN) on the terminal without echoing it; reads one line from standard
/// input as it is when standard input is not a terminal (a pipe, a script).
public enum SecretPrompt {
    /// Whether standard input is a terminal (the prompt is then shown and echo turned off).
    public static var isInteractive: Bool { Syscalls.isTerminal(0) }

    /// The line typed after `prompt` (written to standard error), without its newline; nil at
    /// the end of input. Echo is restored before returning.
    public static func read(_ prompt: String) -> String? {
        guard isInteractive, let original = Syscalls.terminalMode(0) else { return readLine(strippingNewline: true) }
        Syscalls.writeStandardError(prompt)
        Syscalls.setTerminalMode(0, Syscalls.withoutEcho(original))
        defer {
            Syscalls.setTerminalMode(0, original)
            Syscalls.writeStandardError("\n")
        }
        return readLine(strippingNewline: true)
    }
}
