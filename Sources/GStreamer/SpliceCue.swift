import CGStreamer

/// One SCTE-35 splice_insert from an MPEG-TS, as `tsdemux` forwards it: a break starting
/// (out of network) or ending (back in), at a moment of the pipeline's running time.
public struct SpliceInsert: Sendable, Hashable {
    /// The splice_event_id: the same break's cues share it.
    public var eventID: UInt32
    /// splice_event_cancel_indicator: the event announced under `eventID` is off.
    public var isCancel: Bool
    /// True at the start of a break (out of network), false at its end (back in).
    public var outOfNetwork: Bool
    /// When the splice happens, in the ingest pipeline's running time (the time base of its
    /// buffers); nil: immediate (when the cue arrives).
    public var runningTime: ClockTime?
    /// break_duration, when the cue gives one.
    public var duration: ClockTime?
    /// break_duration's auto_return: the stream comes back by itself at the end.
    public var autoReturn: Bool

    public init(eventID: UInt32, isCancel: Bool = false, outOfNetwork: Bool, runningTime: ClockTime?,
                duration: ClockTime? = nil, autoReturn: Bool = false) {
        self.eventID = eventID
        self.isCancel = isCancel
        self.outOfNetwork = outOfNetwork
        self.runningTime = runningTime
        self.duration = duration
        self.autoReturn = autoReturn
    }
}

/// What an SCTE-35 splice_info_section passing an ingest carries.
public enum SpliceCommand: Sendable, Hashable {
    case insert(SpliceInsert)
    /// splice_null or bandwidth_reservation: a heartbeat, no splice.
    case empty
    /// A section Flipbox does not read; the text names it (`time_signal`, `encrypted`, ...).
    case unsupported(String)
    /// A section that does not parse.
    case malformed

    init(kind: fb_splice_kind, insert: fb_splice_insert, command: UInt32) {
        switch kind {
        case FB_SPLICE_INSERT:
            self = .insert(SpliceInsert(
                eventID: insert.event_id, isCancel: insert.cancel != 0, outOfNetwork: insert.out_of_network != 0,
                runningTime: insert.immediate == 0 && insert.has_time != 0 ? insert.running_time : nil,
                duration: insert.has_duration != 0 ? insert.duration : nil, autoReturn: insert.auto_return != 0))
        case FB_SPLICE_EMPTY:
            self = .empty
        case FB_SPLICE_UNSUPPORTED:
            switch command {
            case 0x04: self = .unsupported("splice_schedule")
            case 0x06: self = .unsupported("time_signal")
            case 0xFF: self = .unsupported("private command")
            case 0x105: self = .unsupported("component splice_insert")
            case 0x05: self = .unsupported("encrypted splice_insert")
            default: self = .unsupported(String(format: "command 0x%02x", command))
            }
        default:
            self = .malformed
        }
    }
}

/// Why splice sections of an MPEG-TS were not let through to its demuxer.
public enum SpliceSectionRejection: Sendable, Hashable {
    /// A section that does not parse (its packets were turned into null packets).
    case malformed
    /// Data not in whole 188-byte packets: sections cannot be checked, cues are off.
    case unaligned
}

extension Pad {
    /// Calls `handler` with every SCTE-35 section passing this pad (custom downstream events
    /// from a `tsdemux` with splice cues on, see `Element.forwardSpliceCues`), on the streaming
    /// thread, in order with the buffers. The handler must be quick and must not block.
    public func onSpliceCommand(_ handler: @escaping @Sendable (SpliceCommand) -> Void) {
        typealias Handler = @Sendable (SpliceCommand) -> Void
        let cb: GstPadProbeCallback = { _, info, data in
            guard let info else { return GST_PAD_PROBE_OK }
            var insert = fb_splice_insert()
            var command: guint = 0
            let kind = fb_probe_info_splice(info, &insert, &command)
            if kind != FB_SPLICE_NOT_A_CUE {
                CallbackBox<Handler>.from(data).value(SpliceCommand(kind: kind, insert: insert, command: command))
            }
            return GST_PAD_PROBE_OK
        }
        _ = fb_pad_add_event_probe(pointer, cb, CallbackBox<Handler>(handler).retainedPointer(),
                                   { data in CallbackBox<Handler>.release(data) })
    }
}

extension Element {
    /// The name of the factory that made this element (`tsdemux`), or nil.
    public var factoryName: String? { fb_element_factory_name(pointer).map { String(cString: $0) } }

    /// For a `tsdemux`: forwards SCTE-35 splice sections downstream as events
    /// (`send-scte35-events`), read with `Pad.onSpliceCommand`. Call before data flows.
    ///
    /// GStreamer 1.22's tsdemux crashes on a forwarded section that does not parse, so every
    /// packet reaching it is checked first (on its streaming thread): packets starting such a
    /// section become null packets and `onRejected` is told `.malformed`; data not in whole
    /// 188-byte packets (which cannot be checked) turns the forwarding off and tells `.unaligned`.
    public func forwardSpliceCues(onRejected: @escaping @Sendable (SpliceSectionRejection) -> Void) {
        guard factoryName == "tsdemux", let sink = staticPad("sink") else { return }
        typealias Handler = @Sendable (SpliceSectionRejection) -> Void
        let cb: GstPadProbeCallback = { pad, info, data in
            guard let pad, let info else { return GST_PAD_PROBE_OK }
            switch fb_probe_info_drop_bad_splices(pad, info) {
            case FB_TS_BAD_SPLICE: CallbackBox<Handler>.from(data).value(.malformed)
            case FB_TS_UNALIGNED: CallbackBox<Handler>.from(data).value(.unaligned)
            default: break
            }
            return GST_PAD_PROBE_OK
        }
        _ = fb_pad_add_buffer_rewrite_probe(sink.pointer, cb, CallbackBox<Handler>(onRejected).retainedPointer(),
                                            { data in CallbackBox<Handler>.release(data) })
        set("send-scte35-events", true)
    }

    /// For an `mpegtsmux` with `scte-35-pid` set: muxes a splice_insert going out of network
    /// (`out`) or back in, at running time `at` (nil: immediate), with `duration` (nil: none).
    /// False when the muxer did not take it.
    @discardableResult
    public func sendSpliceInsert(eventID: UInt32, out: Bool, at runningTime: ClockTime?, duration: ClockTime? = nil) -> Bool {
        fb_send_splice_insert(pointer, eventID, out ? 1 : 0, runningTime ?? .none, duration ?? 0) != 0
    }

    /// For an `mpegtsmux` with `scte-35-pid` set: muxes a time_signal at running time `at` (a
    /// command Flipbox does not read), for tests of unsupported cues.
    @discardableResult
    public func sendSpliceTimeSignal(at runningTime: ClockTime) -> Bool { fb_send_splice_time_signal(pointer, runningTime) != 0 }
}

extension Bin {
    /// Calls `handler` for every element added anywhere inside this bin from now on
    /// (`deep-element-added`), on the thread that adds it: set properties and add probes
    /// there, never change state. The handler must not capture the bin strongly.
    public func onElementAdded(_ handler: @escaping @Sendable (Element) -> Void) {
        typealias Handler = @Sendable (Element) -> Void
        let cb: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { _, _, element, data in
            guard let element else { return }
            CallbackBox<Handler>.from(data).value(Element(retaining: element))
        }
        _ = fb_signal_connect(object, "deep-element-added", unsafeBitCast(cb, to: GCallback.self),
                              CallbackBox<Handler>(handler).retainedPointer(),
                              { data, _ in CallbackBox<Handler>.release(data) })
    }
}
