extension ImageCodec {
    /// Renders an SVG document at its own size (its `width`/`height`) to BGRA, with librsvg
    /// (`rsvgdec`). Direct, without type-finding: a document that opens with a long comment is
    /// still recognised. Blocking; call off the media thread and off the cooperative pool.
    public static func renderSVG(_ document: String) throws(GStreamerError) -> BGRAImage {
        let pipeline = try Pipeline(description: "appsrc name=src caps=image/svg+xml ! rsvgdec ! videoconvert ! video/x-raw,format=BGRA ! appsink name=sink sync=false max-buffers=1")
        defer { pipeline.shutdown() }
        guard let src = pipeline.appSource(named: "src"), let sink = pipeline.appSink(named: "sink") else {
            throw GStreamerError(.decode, "internal: no appsrc/appsink")
        }
        _ = try? pipeline.setState(.paused)
        src.push(Buffer(bytes: Array(document.utf8)))
        src.endOfStream()
        guard let sample = sink.pullPreroll(timeout: 5 * .second), let buffer = sample.buffer, let caps = sample.caps,
              let w = caps.int("width"), let h = caps.int("height") else {
            let reason = pipeline.firstError ?? "nothing rendered"
            throw GStreamerError(.decode, "cannot render the SVG: \(reason)")
        }
        return BGRAImage(width: w, height: h, pixels: packed(buffer: buffer, width: w, height: h, caps: caps))
    }
}
