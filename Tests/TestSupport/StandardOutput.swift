import Foundation

/// Runs `executable ARGUMENTS` to its end, its input empty; its standard output (its errors are
/// dropped: an empty output is the caller's to judge).
public func standardOutput(of executable: URL, _ arguments: [String]) throws -> Data {
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return data
}

/// `tool ARGUMENTS`, found on the PATH: its standard output.
public func output(of tool: String, _ arguments: [String]) throws -> Data {
    try standardOutput(of: URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments)
}
