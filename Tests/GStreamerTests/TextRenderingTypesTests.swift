import GStreamer
import Testing

/// GStreamer's set-up settles the types that text overlays and SVG rendering share (pango's
/// font maps), so a decoder pipeline parsed on one thread and an SVG drawn on another can never
/// be the first to register them at the same moment: that deadlocked a box (its decoders never
/// started and it did not stop).
@Suite struct TextRenderingTypesTests {
    @Test func pangosFontMapTypesExistOnceGStreamerIsUp() throws {
        try GStreamer.initialize()
        try #require(GStreamer.hasElement("cc708overlay") && GStreamer.hasElement("textoverlay"), "the overlays are installed")
        #expect(GStreamer.isTypeRegistered("PangoCairoFcFontMap"), "pango's cairo font map is registered at set-up")
        #expect(GStreamer.isTypeRegistered("PangoFontMap"))
    }
}
