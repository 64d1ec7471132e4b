import Foundation

/// The other executable of the pair `flipbox` and `flipbox-lab`, which are built (and, where the
/// lab is wanted, installed) side by side: `flipbox bench|soak|replay` run the lab, and the lab's
/// soak and recording bench run `flipbox play`.
public enum SiblingExecutable {
    /// Nothing executable by that name in the running executable's directory.
    public struct Missing: Error, CustomStringConvertible {
        public var name: String
        public var path: String
        public var description: String {
            "\(name) is not installed next to \(SiblingExecutable.running.lastPathComponent): no executable at \(path)"
        }
    }

    /// The running executable, symbolic links resolved: /proc/self/exe (Linux), else its argv[0].
    public static var running: URL {
        let me = FileManager.default.fileExists(atPath: "/proc/self/exe") ? "/proc/self/exe" : CommandLine.arguments[0]
        return URL(fileURLWithPath: me).resolvingSymlinksInPath()
    }

    /// The path of `name` in the running executable's directory; `Missing` when nothing there
    /// can be run.
    public static func path(_ name: String) throws -> String {
        let path = running.deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(name: name, path: path) }
        return path
    }
}
