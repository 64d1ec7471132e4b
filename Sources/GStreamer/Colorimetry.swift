import CGStreamer

/// A video stream's colours: matrix, transfer function and primaries, as GStreamer reads them
/// from the stream's caps (`bt709`, `bt2100-pq`, or `1:4:7:1`).
public struct Colorimetry: Sendable, Hashable, CustomStringConvertible {
    /// GStreamer's name for it (`bt601`, `bt709`, `bt2020`, `bt2100-pq`, `bt2100-hlg`, ...).
    public var name: String
    /// The stream did not say: GStreamer takes BT.601 up to 576 lines, BT.709 above.
    public var assumed: Bool
    /// ISO/IEC 23001-8 code points (1 BT.709, 5/6 BT.601, 9 BT.2020; transfer 16 PQ, 18 HLG).
    public var matrix: Int
    public var transfer: Int
    public var primaries: Int
    /// Full range (0-255) rather than limited (16-235 in 8 bits).
    public var fullRange: Bool
    /// The brightest light in the stream's pictures in cd/m², when the stream says (its SEI, as
    /// the parser puts it in the caps: the content light level's MaxCLL, else the mastering
    /// display's peak). HDR pictures are tone-mapped from it (`ColourTransform`).
    public var peakLuminance: Double?

    /// The colorimetry of caps field `text`, or the default for `height` when nil or unreadable.
    public init(_ text: String?, height: Int) {
        var c = GstVideoColorimetry()
        let fallback = height >= 2160 ? "bt2020" : height > 576 ? "bt709" : "bt601"
        if let text, gst_video_colorimetry_from_string(&c, text) != 0 {
            assumed = false
        } else {
            _ = gst_video_colorimetry_from_string(&c, fallback)
            assumed = true
        }
        if let s = gst_video_colorimetry_to_string(&c) {
            name = String(cString: s)
            g_free(s)
        } else {
            name = text ?? fallback
        }
        matrix = Int(gst_video_color_matrix_to_iso(c.matrix))
        transfer = Int(gst_video_transfer_function_to_iso(c.transfer))
        primaries = Int(gst_video_color_primaries_to_iso(c.primaries))
        fullRange = c.range == GST_VIDEO_COLOR_RANGE_0_255
    }

    /// The colours of stream `caps`: `colorimetry` (assumed from the height when it is not
    /// there), and the peak light of the SEI the parser read.
    public init(caps: Caps) {
        self.init(caps.string("colorimetry"), height: caps.int("height") ?? 720)
        var light = GstVideoContentLightLevel()
        var mastering = GstVideoMasteringDisplayInfo()
        if gst_video_content_light_level_from_caps(&light, caps.pointer) != 0, light.max_content_light_level > 0 {
            peakLuminance = Double(light.max_content_light_level)
        } else if gst_video_mastering_display_info_from_caps(&mastering, caps.pointer) != 0,
                  mastering.max_display_mastering_luminance > 0 {
            // In units of 0.0001 cd/m².
            peakLuminance = Double(mastering.max_display_mastering_luminance) / 10000
        }
    }

    /// For people: `BT.601`, `BT.709`, `BT.2020`, `BT.2100 PQ`, `BT.2100 HLG`.
    public var description: String {
        switch (transfer, matrix) {
        case (16, _): "BT.2100 PQ"
        case (18, _): "BT.2100 HLG"
        case (_, 9), (_, 10): "BT.2020"
        case (_, 1): "BT.709"
        case (_, 5), (_, 6): "BT.601"
        default: name
        }
    }

    /// High dynamic range (PQ or HLG): converted to the output's SDR.
    public var isHDR: Bool { transfer == 16 || transfer == 18 }

    /// Wide gamut (BT.2020 primaries) or HDR: converted to the output's SDR colours in linear
    /// light (`ColourRemap`); other streams need their matrix converted only.
    public var needsRemap: Bool { isHDR || primaries == 9 }
}
