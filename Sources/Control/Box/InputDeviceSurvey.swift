/// One input device as `flipbox doctor` reports it: its node, its name, or why it cannot be read.
public struct InputDeviceReport: Sendable, Hashable {
    public var path: String
    /// The device's own name (`EVIOCGNAME`), when it could be opened.
    public var name: String?
    /// Why it cannot be opened, e.g. `Permission denied`; nil when it can.
    public var problem: String?
    /// The problem is permissions: the user is not in the `input` group.
    public var permissionDenied: Bool

    public init(path: String, name: String?, problem: String?, permissionDenied: Bool = false) {
        self.path = path
        self.name = name
        self.problem = problem
        self.permissionDenied = permissionDenied
    }
}

extension EvdevKeys {
    /// The `event*` devices in `directory` in number order, each opened, named and closed again
    /// (nothing is grabbed: safe while the service reads them).
    public static func survey(directory: String = "/dev/input") -> [InputDeviceReport] {
        let names = EvdevSyscalls.directoryEntries(directory)
            .compactMap { name -> (Int, String)? in
                guard name.hasPrefix("event"), let n = Int(name.dropFirst(5)) else { return nil }
                return (n, name)
            }
            .sorted { $0.0 < $1.0 }
        return names.map { _, name in
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            switch EvdevSyscalls.openDevice(path) {
            case .success(let fd):
                defer { EvdevSyscalls.close(fd) }
                return InputDeviceReport(path: path, name: EvdevSyscalls.deviceName(fd), problem: nil)
            case .failure(let error):
                return InputDeviceReport(path: path, name: nil, problem: error.description, permissionDenied: error.isPermission)
            }
        }
    }
}
