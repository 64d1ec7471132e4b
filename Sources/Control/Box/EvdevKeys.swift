import Foundation
import Logging

/// Key presses from Linux input devices (`/dev/input/event*`: keyboards, USB remotes, air mice,
/// IR receivers through rc-core), read on a thread of their own, never on the cooperative pool.
///
/// Watches `directory` with inotify: devices present at start and devices that appear later are
/// opened (and grabbed with `grab`, so their keys do not reach a console); a device that goes away
/// is closed. A press (value 1) and an auto-repeat (value 2) of a mapped key produce a ``Key``;
/// a release (0) produces nothing, so a held key keeps retargeting the flip. A device that cannot
/// be opened is logged once, with the path and the reason.
///
/// ``keys`` has a single consumer and ends on ``stop()`` or when its consumer stops iterating.
public final class EvdevKeys: Sendable {
    public let keys: AsyncStream<Key>
    public let directory: String
    private let state: SharedState

    /// How often the reading thread checks whether it should stop, and retries a missing directory.
    static let stopCheck: Int32 = 200

    public init(directory: String = "/dev/input", map: EvdevKeyMap = .standard, grab: Bool = false, logger: Logger) {
        self.directory = directory
        let state = SharedState()
        self.state = state
        keys = KeyReaderThread.start(name: "flipbox-evdev", state: state) { sink in
            var reader = Reader(directory: directory, map: map, grab: grab, logger: logger, state: state, sink: sink)
            reader.run()
        }
    }

    deinit { stop() }

    /// Stops reading; the thread closes every device within ``stopCheck`` milliseconds.
    public func stop() { state.stop() }

    /// The paths of the devices open now, sorted.
    public var openDevices: [String] { state.devices }

    /// Whether `directory` (by default `/dev/input`) can be listed, i.e. evdev input is worth trying.
    public static func canRead(directory: String = "/dev/input") -> Bool { EvdevSyscalls.canRead(directory: directory) }

    /// The reading thread's state; only that thread touches it.
    private struct Reader {
        struct Device {
            var path: String
            var fd: Int32
            var name: String
            var pending: [UInt8] = []
        }

        let directory: String
        let map: EvdevKeyMap
        let grab: Bool
        let logger: Logger
        let state: SharedState
        let sink: AsyncStream<Key>.Continuation
        var devices: [Device] = []
        var watch: Int32?
        /// Paths already reported as unopenable, with the reason, so each is said once.
        var reported: [String: Errno] = [:]
        var directoryReported = false

        init(directory: String, map: EvdevKeyMap, grab: Bool, logger: Logger, state: SharedState,
             sink: AsyncStream<Key>.Continuation) {
            self.directory = directory
            self.map = map
            self.grab = grab
            self.logger = logger
            self.state = state
            self.sink = sink
        }

        mutating func run() {
            var sinceWatchAttempt = 0
            while !state.isStopped {
                if watch == nil, sinceWatchAttempt % 10 == 0 { startWatching() }
                sinceWatchAttempt += 1
                let fds = (watch.map { [$0] } ?? []) + devices.map(\.fd)
                guard !fds.isEmpty else {
                    Thread.sleep(forTimeInterval: Double(EvdevKeys.stopCheck) / 1000)
                    continue
                }
                let ready = EvdevSyscalls.poll(fds, timeoutMilliseconds: EvdevKeys.stopCheck)
                var readyDevices = Set<Int32>()
                for (fd, isReady) in zip(fds, ready) where isReady && fd != watch { readyDevices.insert(fd) }
                if let watch, ready.first == true { directoryChanged(EvdevSyscalls.readChanges(watch)) }
                for fd in readyDevices { readDevice(fd) }
            }
            for device in devices { EvdevSyscalls.close(device.fd) }
            devices = []
            if let watch { EvdevSyscalls.close(watch) }
            state.setDevices([])
            sink.finish()
        }

        mutating func startWatching() {
            switch EvdevSyscalls.watchDirectory(directory) {
            case .success(let fd):
                watch = fd
                if directoryReported { logger.notice("input: watching \(directory) for devices") }
                for name in EvdevSyscalls.directoryEntries(directory).sorted() where Self.isDevice(name) {
                    open(name)
                }
            case .failure(let error):
                if !directoryReported {
                    directoryReported = true
                    logger.warning("input: cannot watch \(directory) for input devices: \(error)\(error.isPermission ? Self.permissionHint : ""); keys from other inputs still work")
                }
            }
        }

        static let permissionHint = " (add the user running flipbox to the 'input' group: sudo usermod -aG input USER, then log in again or restart the service)"

        static func isDevice(_ name: String) -> Bool { name.hasPrefix("event") }

        mutating func directoryChanged(_ changes: [EvdevSyscalls.DirectoryChange]) {
            for change in changes where Self.isDevice(change.name) {
                let path = directory + "/" + change.name
                if change.removed {
                    // Keys pressed just before the unplug are still in the device's buffer.
                    if let device = devices.first(where: { $0.path == path }) { readDevice(device.fd) }
                    close(path: path, reason: "removed")
                    reported[path] = nil
                } else if change.appeared, !devices.contains(where: { $0.path == path }) {
                    open(change.name)
                }
            }
        }

        mutating func open(_ name: String) {
            let path = directory + "/" + name
            guard !devices.contains(where: { $0.path == path }) else { return }
            switch EvdevSyscalls.openDevice(path) {
            case .success(let fd):
                reported[path] = nil
                let deviceName = EvdevSyscalls.deviceName(fd) ?? name
                var grabbed = ""
                if grab {
                    if let error = EvdevSyscalls.grab(fd) {
                        logger.warning("input: cannot grab \(path) (\(deviceName)): \(error); its keys also reach the console")
                    } else {
                        grabbed = ", grabbed"
                    }
                }
                devices.append(Device(path: path, fd: fd, name: deviceName))
                state.setDevices(devices.map(\.path))
                logger.notice("input: \(deviceName) (\(path)\(grabbed))")
            case .failure(let error):
                // udev may fix permissions just after creating a node: a change of reason is said again.
                guard reported[path] != error else { return }
                reported[path] = error
                logger.warning("input: cannot open \(path): \(error)\(error.isPermission ? Self.permissionHint : "")")
            }
        }

        mutating func close(path: String, reason: String) {
            guard let index = devices.firstIndex(where: { $0.path == path }) else { return }
            let device = devices.remove(at: index)
            EvdevSyscalls.close(device.fd)
            state.setDevices(devices.map(\.path))
            logger.notice("input: \(device.name) (\(path)) \(reason)")
        }

        mutating func readDevice(_ fd: Int32) {
            guard let index = devices.firstIndex(where: { $0.fd == fd }) else { return }
            while true {
                switch EvdevSyscalls.read(fd, capacity: EvdevSyscalls.recordSize * 64) {
                case .bytes(let bytes):
                    devices[index].pending += bytes
                    for record in EvdevSyscalls.takeRecords(from: &devices[index].pending) {
                        guard record.type == EvdevSyscalls.keyEventType, record.value == 1 || record.value == 2,
                              let key = map.key(for: record.code) else { continue }
                        sink.yield(key)
                    }
                case .nothing:
                    return
                case .endOfFile:
                    close(path: devices[index].path, reason: "went away")
                    return
                case .failed(let code):
                    let error = Errno(code)
                    close(path: devices[index].path, reason: error.isNoDevice ? "went away" : "closed: \(error)")
                    return
                }
            }
        }
    }

    /// The flags and the device list shared by the reading thread and its owner.
    private final class SharedState: KeyReaderState, @unchecked Sendable {
        private var open: [String] = []

        var devices: [String] { lock.withLock { open } }
        func setDevices(_ paths: [String]) { lock.withLock { open = paths.sorted() } }
    }
}
