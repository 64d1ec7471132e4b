import Foundation

/// A copy the box keeps of what a source said (a lineup, a playlist): it may hold an account's
/// credentials in its stream URLs, so it is the owner's only from its first byte (made 0600
/// before anything is written, in a directory made 0700), and written atomically (a temporary
/// file in the same directory, synced, renamed over the old copy), so a power cut leaves the
/// old copy or the new one, whole.
enum KeptFile {
    static func write(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = (directory as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary])
        }
        do {
            // The mode again, should the umask have taken bits away from it.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }
}
