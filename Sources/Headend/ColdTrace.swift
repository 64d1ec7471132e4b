import Foundation

/// TEMPORARY: timestamps along the cold path (FLIPBOX_TRACE=1), to see where a cold flip's time goes.
enum ColdTrace {
    static let enabled = ProcessInfo.processInfo.environment["FLIPBOX_TRACE"] != nil
    nonisolated(unsafe) static var origin: [String: ContinuousClock.Instant] = [:]
    static let lock = NSLock()
    static func start(_ key: String) {
        guard enabled else { return }
        lock.withLock { origin[key] = .now }
        FileHandle.standardError.write(Data("trace \(key) start\n".utf8))
    }
    static func mark(_ key: String, _ what: @autoclosure () -> String) {
        guard enabled else { return }
        guard let t0 = lock.withLock({ origin[key] }) else { return }
        let ms = Double((ContinuousClock.now - t0).components.attoseconds) / 1e15 + Double((ContinuousClock.now - t0).components.seconds) * 1000
        FileHandle.standardError.write(Data(String(format: "trace %@ %8.1f ms %@\n", key, ms, what()).utf8))
    }
}
