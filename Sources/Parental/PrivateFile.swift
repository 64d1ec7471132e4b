import Foundation

/// Files only the box's own user may read (mode 0600), written atomically: the new content goes
/// to a temporary file in the same directory, made 0600 before anything is written to it, synced,
/// and renamed over the old file, so a power cut leaves the old file or the new one, whole.
enum PrivateFile {
    static func write(_ data: Data, to path: String) throws(PINError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw PINError(.storage, "cannot create the state directory \(directory): \(error.localizedDescription)")
        }
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw PINError(.storage, "cannot create \(temporary)")
        }
        do {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw PINError(.storage, "cannot write \(temporary): \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw PINError(.storage, "cannot replace \(path): \(reason)")
        }
    }

    /// The file's permission bits, or nil when it does not exist.
    static func permissions(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }
}
