import Display
import Foundation
import Testing

/// The probe against real files: what it says about a directory with no devices and about
/// device nodes that are not DRM devices. (A real DRM device is probed in the guest: `make vm-test`.)
@Suite struct DisplayProbeTests {
    func directory(_ files: [String: String?]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-dri-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, target) in files {
            let path = (dir as NSString).appendingPathComponent(name)
            if let target { try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target) }
            else { FileManager.default.createFile(atPath: path, contents: Data("not a device".utf8)) }
        }
        return dir
    }

    @Test func aDirectoryWithoutCardsHasNoDevice() throws {
        let dir = try directory(["renderD128": nil, "by-path": nil])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let found = DisplayProbe.cards(in: dir)
        #expect(found.cards.isEmpty && found.problems.isEmpty)
        #expect { try DisplayProbe.choose(in: dir, mode: .automatic) } throws: {
            ($0 as! DisplayError).code == .noDevice && "\($0)".hasPrefix("no display device in \(dir)")
        }
        #expect { try DisplayProbe.choose(in: "/nonexistent/dri", mode: .automatic) } throws: { ($0 as! DisplayError).code == .noDevice }
    }

    @Test func nodesThatAreNotDRMDevicesAreNamedInNumberOrder() throws {
        let dir = try directory(["card10": "/dev/null", "card2": nil, "card1": "/nonexistent/card"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let found = DisplayProbe.cards(in: dir)
        #expect(found.cards.isEmpty)
        #expect(found.problems.map(\.code) == [.cannotOpen, .notModeSetting, .notModeSetting])
        #expect(found.problems.map(\.message) == [
            "\(dir)/card1: cannot open (No such file or directory)",
            "\(dir)/card2 is not a DRM device",
            "\(dir)/card10 is not a DRM device",
        ])
        // The first problem is what a choice says when nothing could be read.
        #expect { try DisplayProbe.choose(in: dir, mode: .automatic) } throws: { "\($0)" == "\(dir)/card1: cannot open (No such file or directory)" }
    }
}
