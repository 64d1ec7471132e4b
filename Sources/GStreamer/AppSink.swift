import CGStreamer

/// An `appsink`: hands samples to Swift.
public final class AppSink: Element, @unchecked Sendable {
    /// Calls `handler` for every new sample, on the streaming thread.
    ///
    /// The handler copies or forwards data and returns; it never blocks on Swift concurrency and
    /// never changes pipeline state. Set once, before the pipeline starts.
    public func onSample(_ handler: @escaping @Sendable (Sample) -> Void) {
        typealias Handler = @Sendable (Sample) -> Void
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = { sink, data in
            guard let sink, let s = gst_app_sink_pull_sample(sink) else { return GST_FLOW_OK }
            CallbackBox<Handler>.from(data).value(Sample(takingOwnership: s))
            return GST_FLOW_OK
        }
        gst_app_sink_set_callbacks(fb_appsink(object), &callbacks, CallbackBox<Handler>(handler).retainedPointer(),
                                   { data in CallbackBox<Handler>.release(data) })
    }

    /// Waits up to `timeout` for the preroll sample (pipelines in PAUSED).
    public func pullPreroll(timeout: ClockTime) -> Sample? {
        gst_app_sink_try_pull_preroll(fb_appsink(object), timeout).map { Sample(takingOwnership: $0) }
    }

    /// Waits up to `timeout` for the next sample (pipelines in PLAYING).
    public func pullSample(timeout: ClockTime) -> Sample? {
        gst_app_sink_try_pull_sample(fb_appsink(object), timeout).map { Sample(takingOwnership: $0) }
    }
}

/// An `appsrc`: Swift pushes buffers into a pipeline. Pushing is thread-safe.
public final class AppSource: Element, @unchecked Sendable {
    public var caps: Caps? {
        get { gst_app_src_get_caps(fb_appsrc(object)).map { Caps(takingOwnership: $0) } }
        set { gst_app_src_set_caps(fb_appsrc(object), newValue?.pointer) }
    }

    /// Pushes a buffer (the pipeline takes its own reference). False when the pipeline is
    /// flushing, stopped or errored.
    @discardableResult
    public func push(_ buffer: Buffer) -> Bool {
        gst_app_src_push_buffer(fb_appsrc(object), gst_buffer_ref(buffer.pointer)) == GST_FLOW_OK
    }

    /// Ends the stream for good: the source takes nothing more until it is stopped (READY).
    public func endOfStream() {
        _ = gst_app_src_end_of_stream(fb_appsrc(object))
    }

    /// Ends the stream after the buffers pushed so far (decoders give out all they hold), but
    /// only until `flush()`: unlike `endOfStream()`, the source itself does not stop taking data.
    @discardableResult
    public func endOfStreamUntilFlushed() -> Bool {
        gst_element_send_event(pointer, gst_event_new_eos()) != 0
    }

    /// Flushes the pipeline downstream of the source (its end-of-stream included) and starts a
    /// new segment. What the elements negotiated stays: caps, a decoder's open codec, a
    /// converter's tables. False when the source is not running.
    @discardableResult
    public func flush() -> Bool {
        gst_element_seek(pointer, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1) != 0
    }
}
