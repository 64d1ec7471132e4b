import Foundation
import GStreamer
@testable import Headend
import Logging
import Testing

extension HeadendTests {
    /// The disk part of a timeshift buffer: GOPs appended to one file per minute on the disk
    /// queue all buffers share, read back by their place, and a minute's file deleted once all
    /// its GOPs left the rolling window. Four minutes of one-second GOPs on a manual clock.
    @Suite struct TimeshiftSegmentFiles {
        init() throws { try GStreamer.initialize() }

        static let t0 = Date(timeIntervalSince1970: 1_800_000_000) // a minute's start

        /// Frame `frame` (0 = keyframe) of the GOP of second `second`: 1000 bytes of one value.
        static func entry(second: Int, frame: Int) -> GOPCache.Entry {
            let pts = ClockTime(UInt64(second) * 1_000_000_000 + UInt64(frame) * 200_000_000)
            let buffer = Buffer(bytes: [UInt8](repeating: UInt8(second % 251), count: 1000), pts: pts, dts: pts, keyframe: frame == 0)
            return GOPCache.Entry(track: .video, buffer: buffer, pts: pts, dts: pts, isKeyframe: frame == 0, caps: nil)
        }

        @Test func gopsShareAFilePerMinuteAndLeaveWithTheirMinute() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-minutes-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let buffer = try TimeshiftBuffer(channel: "7", settings: TimeshiftSettings(window: .seconds(150), memoryBytes: 4096, directory: directory),
                                             logger: testLogger)
            let segments = { ((try? FileManager.default.contentsOfDirectory(atPath: buffer.directory.path)) ?? []).filter { $0.hasSuffix(".seg") }.sorted() }
            for second in 0..<240 {
                for frame in 0..<5 {
                    buffer.append(Self.entry(second: second, frame: frame), at: Self.t0.addingTimeInterval(Double(second) + Double(frame) * 0.2))
                }
            }
            // Everything but the newest GOPs (memory: 4 KiB) lands on disk.
            #expect(await eventually(within: 20) { buffer.index.dropLast(2).allSatisfy(\.onDisk) },
                    "\(buffer.index.filter { !$0.onDisk }.count) GOPs not on disk")
            let index = buffer.index
            let onDisk = index.filter(\.onDisk)
            #expect(index.count >= 150 && index.count <= 152, "the window holds 150 s: \(index.count) GOPs")
            #expect(onDisk.count >= 140, "\(onDisk.count) GOPs on disk")
            // 150 s of GOPs in the files of the minutes they start in: three or four files.
            let files = segments()
            #expect(files.count >= 3 && files.count <= 4, "one file per minute: \(files)")
            let firstMinute = Int(Self.t0.timeIntervalSince1970 / 60)
            #expect(!files.contains("minute-\(firstMinute).seg"), "the first minute left the window: its file is gone (\(files))")
            // Every GOP reads back whole, from its place in its file.
            for gop in onDisk {
                let entries = try buffer.read(gop.serial)
                let second = Int(gop.start.timeIntervalSince(Self.t0).rounded())
                #expect(entries.count == 5 && entries[0].isKeyframe, "GOP \(gop.serial)")
                #expect(entries.allSatisfy { $0.buffer.bytes() == [UInt8](repeating: UInt8(second % 251), count: 1000) }, "GOP of second \(second)")
            }
            buffer.close()
            #expect(await eventually(within: 10) { !FileManager.default.fileExists(atPath: buffer.directory.path) }, "closed: its directory is gone")
        }

        /// Where the disk refuses (here the channel's directory is a plain file, so no segment
        /// file opens; a full disk fails the same way), the GOPs stay in memory, the log says so,
        /// and nothing else changes; once the disk takes writes again, GOPs go to it again.
        @Test func aDiskThatRefusesWritesKeepsTheGOPsInMemory() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-refused-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let warnings = WarningRecorder()
            let buffer = try TimeshiftBuffer(channel: "8", settings: TimeshiftSettings(window: .seconds(600), memoryBytes: 4096, directory: directory),
                                             logger: Logger(label: "refused-disk-test") { _ in warnings })
            try FileManager.default.removeItem(at: buffer.directory)
            try Data("not a directory".utf8).write(to: buffer.directory)
            for second in 0..<20 {
                for frame in 0..<5 { buffer.append(Self.entry(second: second, frame: frame), at: Self.t0.addingTimeInterval(Double(second) + Double(frame) * 0.2)) }
            }
            #expect(await eventually(within: 10) { warnings.all.contains { $0.contains("keeping that GOP in memory") } }, "\(warnings.all)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(warnings.count { $0.contains("keeping that GOP in memory") } == 1, "told once, not per GOP: \(warnings.all)")
            #expect(buffer.index.count == 20 && !buffer.index.contains(where: \.onDisk), "all 20 GOPs kept, in memory: \(buffer.index.count)")
            #expect(buffer.bytesInMemory == 20 * 5000)
            let oldest = try buffer.read(buffer.index[0].serial)
            #expect(oldest.count == 5, "and readable")

            try FileManager.default.removeItem(at: buffer.directory)
            try FileManager.default.createDirectory(at: buffer.directory, withIntermediateDirectories: true)
            buffer.append(Self.entry(second: 20, frame: 0), at: Self.t0.addingTimeInterval(20))
            try await Task.sleep(for: .milliseconds(300))
            let retried = buffer.index.contains(where: \.onDisk)
            #expect(!retried, "not tried again within 10 s")
            buffer.append(Self.entry(second: 40, frame: 0), at: Self.t0.addingTimeInterval(40))
            #expect(await eventually(within: 10) { buffer.index.dropLast(2).allSatisfy(\.onDisk) }, "10 s on, the disk takes them again")
            buffer.close()
        }
    }
}
