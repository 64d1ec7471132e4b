import Foundation
import Testing
@testable import Lineup

/// Logos are judged by their first bytes: a picture of at most 4096 pixels on a side.
@Suite struct LogoImageTests {
    /// A PNG's signature and IHDR chunk declaring `width` x `height` (no pixels follow).
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return Data(bytes + [8, 6, 0, 0, 0, 0, 0, 0, 0])
    }

    /// A real 1 x 1 PNG.
    static let onePixelPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    @Test func picturesAreKnownByTheirFirstBytes() throws {
        #expect(try LogoImage.inspect(Self.onePixelPNG).get() == LogoImage(kind: .png, width: 1, height: 1))
        // JPEG: an APP0 segment, then SOF0 with height 0x0020 and width 0x0040.
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x20, 0x00, 0x40, 0x01, 0x01, 0x11, 0x00])
        #expect(try LogoImage.inspect(jpeg).get() == LogoImage(kind: .jpeg, width: 64, height: 32))
        let gif = Data(Array("GIF89a".utf8) + [0x10, 0x00, 0x08, 0x00, 0, 0, 0])
        #expect(try LogoImage.inspect(gif).get() == LogoImage(kind: .gif, width: 16, height: 8))
        var vp8x = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
        vp8x += [99, 0, 0, 49, 0, 0]  // canvas 100 x 50, stored minus one
        #expect(try LogoImage.inspect(Data(vp8x)).get() == LogoImage(kind: .webp, width: 100, height: 50))
        let svg = #"<?xml version="1.0"?><!-- a logo --><svg xmlns="http://www.w3.org/2000/svg" width="120px" height="2in"/>"#
        #expect(try LogoImage.inspect(Data(svg.utf8)).get() == LogoImage(kind: .svg, width: 120, height: 192))
        #expect(try LogoImage.inspect(Data(#"<svg viewBox="0 0 300 100"></svg>"#.utf8)).get() == LogoImage(kind: .svg, width: 300, height: 100))
        #expect(try LogoImage.inspect(Data("<svg/>".utf8)).get() == LogoImage(kind: .svg, width: nil, height: nil))
    }

    /// The process environment, a JSON answer, a PIN file: no picture, whatever the name says.
    @Test func otherFilesAreNoLogos() {
        for text in ["FLIPBOX_TOKEN=s3cret\u{0}HOME=/root\u{0}", #"{"channel":5,"state":"playing"}"#, "", "<html><body>hi</body></html>", "<svgx/>"] {
            #expect(LogoImage.inspect(Data(text.utf8)) == .failure(.notAnImage), "\(text)")
        }
        #expect(LogoImage.inspect(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == .failure(.unreadableHeader))
        #expect(LogoImage.inspect(Data([0xFF, 0xD8, 0xFF, 0xD9])) == .failure(.unreadableHeader))
    }

    /// A 30000 x 30000 PNG of about a megabyte decodes to 3.6 GB: refused from its header.
    @Test func hugeDeclaredSizesAreRefused() {
        #expect(LogoImage.inspect(Self.pngHeader(width: 30000, height: 30000)) == .failure(.tooLarge(.png, width: 30000, height: 30000)))
        #expect(LogoImage.inspect(Self.pngHeader(width: 4096, height: 4096)) == .success(LogoImage(kind: .png, width: 4096, height: 4096)))
        #expect(LogoImage.inspect(Self.pngHeader(width: 4097, height: 1)) == .failure(.tooLarge(.png, width: 4097, height: 1)))
        #expect(LogoImage.inspect(Self.pngHeader(width: 0xFFFF_FFFF, height: 1)) == .failure(.tooLarge(.png, width: 0xFFFF_FFFF, height: 1)))
        #expect(LogoImage.inspect(Self.pngHeader(width: 0, height: 10)) == .failure(.empty(.png)))
        let svg = #"<svg width="1e30" height="10"/>"#
        #expect(LogoImage.inspect(Data(svg.utf8)) == .failure(.tooLarge(.svg, width: Int(Int32.max), height: 10)))
        #expect(LogoImage.inspect(Data(#"<svg viewBox="0 0 100000 10"/>"#.utf8)) == .failure(.tooLarge(.svg, width: 100000, height: 10)))
        let message = LogoImageProblem.tooLarge(.png, width: 30000, height: 30000).description
        #expect(message.contains("30000 x 30000") && message.contains("4096"))
    }

    /// Any bytes: an answer, never a trap.
    @Test func arbitraryBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let prefixes: [[UInt8]] = [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8),
                                   Array("RIFF\0\0\0\0WEBPVP8L".utf8), Array("RIFF\0\0\0\0WEBPVP8 ".utf8), Array("<svg ".utf8)]
        for prefix in prefixes {
            for length in 0..<64 {
                let bytes = prefix + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = LogoImage.inspect(Data(bytes))
            }
        }
    }
}

/// The address rules, without the network.
@Suite struct LogoSourcePolicyTests {
    @Test func loopbackLinkLocalAndUnspecifiedAreRefused() throws {
        let policy = LogoSourcePolicy(ownPorts: [8642, 5004])
        for (address, word) in [("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.1", "loopback"),
                                ("169.254.169.254", "link-local"), ("fe80::1", "link-local"), ("febf::1", "link-local"),
                                ("0.0.0.0", "unspecified"), ("::", "unspecified")] {
            let refusal = try #require(policy.refusal(host: "logos.example", port: 80, addresses: ["93.184.216.34", address], ownAddresses: []),
                                       "\(address) is refused")
            #expect(refusal.description.contains(word) && refusal.description.contains("--allow-logo-host logos.example"), "\(refusal)")
        }
        #expect(policy.refusal(host: "logos.example", port: 80, addresses: ["93.184.216.34", "2001:db8::1", "fec0::1"], ownAddresses: []) == nil)
        #expect(policy.refusal(host: "logos.example", port: 80, addresses: [], ownAddresses: [])?.description.contains("does not resolve") == true)
    }

    @Test func theBoxsOwnPortsOnItsOwnAddressesAreRefused() {
        let policy = LogoSourcePolicy(ownPorts: [8642, 5004])
        #expect(policy.refusal(host: "192.168.1.20", port: 8642, addresses: ["192.168.1.20"], ownAddresses: ["192.168.1.20"])?
            .description.contains("own address, on port 8642") == true)
        #expect(policy.refusal(host: "192.168.1.20", port: 80, addresses: ["192.168.1.20"], ownAddresses: ["192.168.1.20"]) == nil)
        #expect(policy.refusal(host: "192.168.1.30", port: 8642, addresses: ["192.168.1.30"], ownAddresses: ["192.168.1.20"]) == nil)
    }

    @Test func theOwnerAllowsHostsOnTheCommandLine() {
        let policy = LogoSourcePolicy(allowedHosts: ["LocalHost", "[::1]", "127.0.0.1"])
        #expect(policy.refusal(host: "localhost", port: 8080, addresses: ["127.0.0.1"], ownAddresses: []) == nil)
        #expect(policy.refusal(host: "::1", port: 8080, addresses: ["::1"], ownAddresses: []) == nil)
        #expect(policy.refusal(host: "127.0.0.1", port: 8080, addresses: ["127.0.0.1"], ownAddresses: []) == nil)
        #expect(policy.refusal(host: "127.0.0.2", port: 8080, addresses: ["127.0.0.2"], ownAddresses: []) != nil)
    }

    @Test func systemFilesAreRefusedAfterLinksAreResolved() throws {
        for path in ["/proc/self/environ", "/proc", "/sys/class/net", "/dev/zero", "/dev/../proc/1/environ"] {
            #expect(throws: LogoRefusal.self, "\(path)") { try LogoSourcePolicy.resolveFile(path).get() }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-logo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("logo.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/environ")
        #expect(throws: LogoRefusal.self) { try LogoSourcePolicy.resolveFile(link).get() }
    }
}
