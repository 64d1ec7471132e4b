import Foundation
import GStreamer
@testable import Headend
import Logging
import TestSupport
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

        /// Appends the GOPs of `seconds` (five 1000-byte frames each) on the manual clock;
        /// `check` runs after every entry.
        static func append(_ seconds: Range<Int>, to buffer: TimeshiftBuffer, check: () -> Void = {}) {
            for second in seconds {
                for frame in 0..<5 {
                    buffer.append(entry(second: second, frame: frame), at: t0.addingTimeInterval(Double(second) + Double(frame) * 0.2))
                    check()
                }
            }
        }

        /// Whether the index is one run of GOPs, no hole in it.
        static func isContiguous(_ index: [TimeshiftBuffer.GOPInfo]) -> Bool {
            zip(index, index.dropFirst()).allSatisfy { $1.serial == $0.serial + 1 }
        }

        /// A real full disk: a 1 MB tmpfs that takes 30 s of GOPs, then is filled up. The buffer
        /// drops its disk part and keeps only what fits in its memory cap (never more, checked
        /// after every entry), says why (`diskRefusal`: full, the directory and the system's
        /// reason), tries again every 10 s (still full: still refused, told once), and once
        /// space is freed, goes back to disk and its window grows again.
        @Test(.enabled(if: SmallFilesystem.canMount, "mounts a small tmpfs: needs root"))
        func aFullDiskKeepsTheBufferInItsMemoryCapAndSaysSoUntilSpaceFrees() async throws {
            let disk = try SmallFilesystem(bytes: 1 << 20)
            defer { disk.unmount() }
            let cap = 12_000
            let warnings = WarningRecorder()
            let buffer = try TimeshiftBuffer(channel: "9", settings: TimeshiftSettings(window: .seconds(600), memoryBytes: cap, directory: disk.directory),
                                             logger: Logger(label: "full-disk-test") { _ in warnings })
            defer { buffer.close() }

            Self.append(0..<30, to: buffer)
            #expect(await eventually(within: 10) { buffer.index.dropLast(3).allSatisfy(\.onDisk) }, "the disk takes GOPs")
            #expect(buffer.diskRefusal == nil)

            try disk.fill()
            Self.append(30..<40, to: buffer)
            #expect(await eventually(within: 10) { buffer.diskRefusal != nil }, "the full disk is noticed")
            let refusal = try #require(buffer.diskRefusal)
            #expect(refusal.full, "ENOSPC is a full disk: \(refusal.message)")
            #expect(refusal.message.contains("No space left on device") && refusal.message.contains(disk.directory.path), "\(refusal.message)")
            #expect(refusal.message.contains("12 KB of memory") && refusal.message.contains("every 10 s"), "\(refusal.message)")
            // Whatever deleting the disk part freed is taken too: the disk stays full.
            try disk.fill()

            // In memory only, within the cap, after every entry; the window shrinks to what that holds.
            var over: [Int] = []
            Self.append(40..<60, to: buffer) { if buffer.bytesInMemory > cap { over.append(buffer.bytesInMemory) } }
            #expect(over.isEmpty, "memory over the \(cap)-byte cap: \(over)")
            let index = buffer.index
            #expect(!index.isEmpty && !index.contains(where: \.onDisk), "nothing on disk: \(index.map(\.onDisk))")
            #expect(Self.isContiguous(index), "no hole in the window: \(index.map(\.serial))")
            let range = try #require(buffer.range)
            #expect(range.upperBound.timeIntervalSince(range.lowerBound) < 3, "the window is what 12 KB holds: \(range)")
            #expect(try buffer.read(index[0].serial).first?.isKeyframe == true, "and readable")
            #expect(buffer.diskRefusal?.full == true, "retried (every 10 s) and still full")
            // The log line is written just after the refusal is set.
            #expect(await eventually(within: 5) { warnings.count { $0.contains("No space left on device") } == 1 }
                    && warnings.count { $0.contains("No space left on device") } == 1, "told once, not per GOP or retry: \(warnings.all)")

            // Space frees: at the next retry the disk takes GOPs again and the window grows back.
            disk.free()
            Self.append(60..<80, to: buffer)
            #expect(await eventually(within: 10) { buffer.diskRefusal == nil }, "the disk takes writes again")
            Self.append(80..<110, to: buffer)
            #expect(await eventually(within: 10) { buffer.index.dropLast(3).allSatisfy(\.onDisk) }, "older GOPs go to disk again")
            #expect(buffer.index.count >= 30, "the window grows past what memory holds: \(buffer.index.count) GOPs")
            #expect(Self.isContiguous(buffer.index))
            #expect(await eventually(within: 5) { buffer.bytesInMemory <= cap }, "\(buffer.bytesInMemory)")
        }

        /// A disk that refuses for another reason (here the channel's directory is a plain file,
        /// so no segment file opens; this runs without root): the same, with `full` false.
        @Test func aDiskThatRefusesWritesKeepsTheBufferInItsMemoryCapUntilItTakesThemAgain() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-refused-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let cap = 12_000
            let warnings = WarningRecorder()
            let buffer = try TimeshiftBuffer(channel: "8", settings: TimeshiftSettings(window: .seconds(600), memoryBytes: cap, directory: directory),
                                             logger: Logger(label: "refused-disk-test") { _ in warnings })
            defer { buffer.close() }
            try FileManager.default.removeItem(at: buffer.directory)
            try Data("not a directory".utf8).write(to: buffer.directory)
            Self.append(0..<20, to: buffer)
            #expect(await eventually(within: 10) { buffer.diskRefusal != nil }, "\(warnings.all)")
            let refusal = try #require(buffer.diskRefusal)
            #expect(!refusal.full && refusal.message.contains("Not a directory") && refusal.message.contains(buffer.directory.path), "\(refusal.message)")

            var over: [Int] = []
            Self.append(20..<40, to: buffer) { if buffer.bytesInMemory > cap { over.append(buffer.bytesInMemory) } }
            #expect(over.isEmpty, "memory over the \(cap)-byte cap: \(over)")
            #expect(buffer.index.count <= 3 && !buffer.index.contains(where: \.onDisk) && Self.isContiguous(buffer.index),
                    "the newest GOPs, in memory: \(buffer.index.map(\.serial))")
            #expect(await eventually(within: 5) { warnings.count { $0.contains("Not a directory") } == 1 }
                    && warnings.count { $0.contains("Not a directory") } == 1, "told once: \(warnings.all)")

            try FileManager.default.removeItem(at: buffer.directory)
            try FileManager.default.createDirectory(at: buffer.directory, withIntermediateDirectories: true)
            Self.append(40..<60, to: buffer)
            #expect(await eventually(within: 10) { buffer.diskRefusal == nil }, "the disk takes writes again")
            Self.append(60..<90, to: buffer)
            #expect(await eventually(within: 10) { buffer.index.dropLast(3).allSatisfy(\.onDisk) && buffer.index.count >= 30 },
                    "back on disk, the window grows: \(buffer.index.count) GOPs")
        }
    }
}
