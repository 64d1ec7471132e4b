import Foundation
import Testing
@testable import Lineup

@Suite struct TestSourceSpecTests {
    @Test func defaults() throws {
        let spec = try TestSourceSpec(url: "test://smpte")
        #expect(spec.pattern == .smpte)
        #expect(spec.color == nil)
        #expect(spec.width == 640 && spec.height == 360)
        #expect(spec.fps == 30)
        #expect(spec.gop == 60)
        #expect(spec.toneHz == nil)
        #expect(spec.volume == 0.3)
        #expect(spec.bitrateKbps == 1500)
        #expect(spec.label == nil)
        #expect(spec.url == "test://smpte")
    }

    @Test func everyParameter() throws {
        let spec = try TestSourceSpec(url: "test://color/FF8000?size=1280x720&fps=25&gop=50&tone=440&volume=0.5&bitrate=4000&label=Hello%20World")
        #expect(spec.pattern == .color)
        #expect(spec.color == TestSourceSpec.Color(red: 255, green: 128, blue: 0))
        #expect(spec.color?.rgb == 0xFF8000)
        #expect(spec.width == 1280 && spec.height == 720)
        #expect(spec.fps == 25)
        #expect(spec.gop == 50)
        #expect(spec.toneHz == 440)
        #expect(spec.volume == 0.5)
        #expect(spec.bitrateKbps == 4000)
        #expect(spec.label == "Hello World")
        #expect(spec.url == "test://color/ff8000?size=1280x720&fps=25&gop=50&tone=440&volume=0.5&bitrate=4000&label=Hello%20World")
        #expect(try TestSourceSpec(url: spec.url) == spec)
    }

    @Test func gopInSecondsUsesFPS() throws {
        #expect(try TestSourceSpec(url: "test://ball?gop=2s").gop == 60)
        #expect(try TestSourceSpec(url: "test://ball?gop=2s&fps=25").gop == 50)
        #expect(try TestSourceSpec(url: "test://ball?fps=60&gop=0.5s").gop == 30)
    }

    @Test func patternsAndAlias() throws {
        for name in ["smpte", "ball", "snow", "gradient", "checkers"] {
            #expect(try TestSourceSpec(url: "test://\(name)").pattern.rawValue == name)
        }
        #expect(try TestSourceSpec(url: "test://bars").pattern == .smpte)
        #expect(try TestSourceSpec(url: "test://SMPTE/").pattern == .smpte)
    }

    @Test(arguments: [
        ("test://", "no pattern", .pattern),
        ("test://plaid", "unknown pattern 'plaid'", .pattern),
        ("test://color", "the colour is missing", .pattern),
        ("test://color/red", "the colour must be 6 hex digits (rrggbb), got 'red'", .pattern),
        ("test://color/ff00001", "the colour must be 6 hex digits", .pattern),
        ("test://smpte/ff0000", "pattern 'smpte' takes no argument", .pattern),
        ("test://smpte?size=big", "size must be WIDTHxHEIGHT", .parameter),
        ("test://smpte?size=641x360", "even width and height", .parameter),
        ("test://smpte?size=8x8", "out of range", .parameter),
        ("test://smpte?fps=0", "fps must be a whole number from 1 to 120", .parameter),
        ("test://smpte?fps=121", "fps must be a whole number from 1 to 120", .parameter),
        ("test://smpte?gop=0", "gop must be a number of frames", .parameter),
        ("test://smpte?gop=xs", "gop in seconds", .parameter),
        ("test://smpte?gop=99999", "too long", .parameter),
        ("test://smpte?tone=5", "tone must be a frequency", .parameter),
        ("test://smpte?tone=nan", "tone must be a frequency", .parameter),
        ("test://smpte?volume=2", "volume must be from 0 to 1", .parameter),
        ("test://smpte?bitrate=1", "bitrate must be kbit/s", .parameter),
        ("test://smpte?speed=2", "unknown parameter 'speed'", .parameter),
        ("test://smpte?fps=", "parameter 'fps' has no value", .parameter),
        ("test://smpte?fps=25&fps=30", "given twice", .parameter),
        ("test://a/b/c", "too many path parts", .pattern),
    ] as [(String, String, TestSourceSpecCode)])
    func rejects(url: String, expected: String, code: TestSourceSpecCode) {
        do {
            _ = try TestSourceSpec(url: url)
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.message.hasPrefix("test source '\(url)': "))
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.code == code, "\(error.message)")
        }
    }
}
