import Foundation
import TestSupport
import Testing
@testable import GStreamer

/// Reading a buffer never changes it: a GOP cache's entries are read by several threads at once
/// (decoders, the timeshift writer, the republisher), and a parser's output is now and then in
/// several memory blocks.
@Suite struct BufferTests {
    init() throws { try GStreamer.initialize() }

    /// A buffer with one reference counts as writable, and a plain map merges its blocks into it
    /// in place. Read here, it keeps its blocks.
    @Test func readingABufferOfSeveralBlocksLeavesItsBlocksAlone() {
        let buffer = Buffer(parts: [[1, 2], [3, 4, 5], [6]])
        #expect(buffer.memoryCount == 3)
        #expect(buffer.bytes() == [1, 2, 3, 4, 5, 6])
        let sum = buffer.withBytes { raw in raw.reduce(0) { $0 + Int($1) } }
        #expect(sum == 21)
        #expect(buffer.memoryCount == 3)
        #expect(buffer.size == 6)
    }

    /// Many threads reading one buffer of several blocks at once each see all of its bytes, and
    /// the buffer is as it was. (A read that merged the blocks in place freed the blocks another
    /// thread could be reading.)
    @Test func manyThreadsReadOneBufferAtOnce() async {
        let parts: [[UInt8]] = (0..<6).map { block in (0..<200).map { UInt8((block * 200 + $0) % 251) } }
        let expected = parts.flatMap { $0 }
        let buffer = Buffer(parts: parts)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // Threads of their own: each reads all the while, as a streaming thread does.
                    (try? await offPool {
                        var wrong = 0
                        for _ in 0..<3000 where buffer.bytes() != expected || buffer.size != expected.count { wrong += 1 }
                        return wrong
                    }) ?? 3000
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(buffer.memoryCount == parts.count)
    }
}
