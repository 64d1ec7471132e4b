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

/// One segmentation_descriptor of an SCTE-35 time_signal: a segment of the programme (a break,
/// a placement opportunity, a chapter...) starting or ending at the time_signal's splice time.
public struct SpliceSegmentation: Sendable, Hashable {
    /// segmentation_event_id: a segment's start and end share it.
    public var eventID: UInt32
    /// segmentation_event_cancel_indicator: the segment announced under `eventID` is off.
    public var isCancel: Bool
    /// segmentation_type_id (SCTE-35 table 23): 0x22 break start, 0x34 provider placement
    /// opportunity start, ...; 0 for a cancel.
    public var typeID: UInt8
    /// segmentation_duration, when the descriptor gives one.
    public var duration: ClockTime?

    public init(eventID: UInt32, isCancel: Bool = false, typeID: UInt8, duration: ClockTime? = nil) {
        self.eventID = eventID
        self.isCancel = isCancel
        self.typeID = typeID
        self.duration = duration
    }

    /// Break start, provider or distributor placement opportunity start (0x22, 0x34, 0x36).
    public var startsBreak: Bool { [0x22, 0x34, 0x36].contains(typeID) }
    /// Break end, provider or distributor placement opportunity end (0x23, 0x35, 0x37).
    public var endsBreak: Bool { [0x23, 0x35, 0x37].contains(typeID) }
}

/// An SCTE-35 time_signal: a moment and the segmentation descriptors that say what happens then.
public struct SpliceTimeSignal: Sendable, Hashable {
    /// When, in the ingest pipeline's running time; nil: immediate (when the cue arrives).
    public var runningTime: ClockTime?
    public var segmentations: [SpliceSegmentation]

    public init(runningTime: ClockTime?, segmentations: [SpliceSegmentation]) {
        self.runningTime = runningTime
        self.segmentations = segmentations
    }
}

/// What an SCTE-35 splice_info_section passing an ingest carries.
public enum SpliceCommand: Sendable, Hashable {
    case insert(SpliceInsert)
    /// A time_signal with at least one segmentation descriptor (of any type).
    case timeSignal(SpliceTimeSignal)
    /// splice_null or bandwidth_reservation: a heartbeat, no splice.
    case empty
    /// A section Flipbox does not read; the text names it (`time_signal`, `encrypted`, ...).
    case unsupported(String)
    /// A section that does not parse.
    case malformed

    init(kind: fb_splice_kind, insert: fb_splice_insert, signal: fb_time_signal, command: UInt32) {
        switch kind {
        case FB_SPLICE_TIME_SIGNAL:
            let segments = withUnsafeBytes(of: signal.segments) { Array($0.bindMemory(to: fb_segmentation.self).prefix(Int(signal.count))) }
            guard !segments.isEmpty else {
                self = .unsupported("time_signal")
                return
            }
            self = .timeSignal(SpliceTimeSignal(
                runningTime: signal.has_time != 0 ? signal.running_time : nil,
                segmentations: segments.map {
                    SpliceSegmentation(eventID: $0.event_id, isCancel: $0.cancel != 0, typeID: $0.type_id,
                                       duration: $0.has_duration != 0 ? $0.duration : nil)
                }))
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
    /// A section that does not parse (the packet starting it, or the one completing it when it
    /// spans packets, was turned into a null packet).
    case malformed
    /// Data with no 188-byte packet structure: sections cannot be checked, cues are off.
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
            var signal = fb_time_signal()
            var command: guint = 0
            let kind = fb_probe_info_splice(info, &insert, &signal, &command)
            if kind != FB_SPLICE_NOT_A_CUE {
                CallbackBox<Handler>.from(data).value(SpliceCommand(kind: kind, insert: insert, signal: signal, command: command))
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
    /// packet reaching it is checked first (on its streaming thread), sections longer than a
    /// packet reassembled: the packet starting such a section, or completing it, becomes a null
    /// packet and `onRejected` is told `.malformed`. Data pushed in pieces that are not whole
    /// 188-byte packets (HTTP, HLS, files read in blocks) is cut into whole packets first (at
    /// most 187 bytes wait for the next piece); data with no packet structure (which cannot be
    /// checked) turns the forwarding off and tells `.unaligned`.
    public func forwardSpliceCues(onRejected: @escaping @Sendable (SpliceSectionRejection) -> Void) {
        guard factoryName == "tsdemux", let sink = staticPad("sink") else { return }
        typealias Handler = @Sendable (SpliceSectionRejection) -> Void
        let cb: GstPadProbeCallback = { pad, info, data in
            guard let pad, let info else { return GST_PAD_PROBE_OK }
            switch fb_probe_info_drop_bad_splices(pad, info) {
            case FB_TS_BAD_SPLICE: CallbackBox<Handler>.from(data).value(.malformed)
            case FB_TS_UNALIGNED: CallbackBox<Handler>.from(data).value(.unaligned)
            case FB_TS_HELD: return GST_PAD_PROBE_DROP
            default: break
            }
            return GST_PAD_PROBE_OK
        }
        _ = fb_pad_add_splice_guard(sink.pointer, cb, CallbackBox<Handler>(onRejected).retainedPointer(),
                                            { data in CallbackBox<Handler>.release(data) })
        set("send-scte35-events", true)
    }

    /// For an `mpegtsmux` with `scte-35-pid` set: muxes a splice_insert going out of network
    /// (`out`) or back in, at running time `at` (nil: immediate), with `duration` (nil: none) and
    /// `padding` extra avail descriptors of 10 bytes (for sections longer than a TS packet).
    /// False when the muxer did not take it.
    @discardableResult
    public func sendSpliceInsert(eventID: UInt32, out: Bool, at runningTime: ClockTime?, duration: ClockTime? = nil, padding: Int = 0) -> Bool {
        fb_send_splice_insert(pointer, eventID, out ? 1 : 0, runningTime ?? .none, duration ?? 0, guint(padding)) != 0
    }

    /// For an `mpegtsmux` with `scte-35-pid` set: muxes a time_signal at running time `at`, with
    /// `segmentation` as its one segmentation descriptor (nil: none; its `isCancel` is not sent)
    /// and `padding` extra avail descriptors. For tests.
    @discardableResult
    public func sendSpliceTimeSignal(at runningTime: ClockTime, segmentation: SpliceSegmentation? = nil, padding: Int = 0) -> Bool {
        fb_send_splice_time_signal(pointer, runningTime, segmentation?.eventID ?? 0, segmentation?.typeID ?? 0,
                                   segmentation?.duration ?? 0, guint(padding)) != 0
    }
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

/// The splice guard a `tsdemux` gets with `forwardSpliceCues`, on bytes of its own: what the
/// fuzzer and the tests feed it, a buffer at a time as a pad in push mode is fed (cut into whole
/// packets, sections reassembled across packets and buffers, each complete one checked and, when
/// well formed, parsed by libgstmpegts). Not thread-safe: one feeder.
public final class SpliceGuard {
    /// What the probe does with a buffer.
    public enum Verdict: Sendable, Hashable {
        /// Every packet passes.
        case clean
        /// A packet starting or completing a section that does not parse becomes a null packet.
        case malformed
        /// No whole packet yet: the bytes wait for the next buffer.
        case held
        /// No 188-byte packet structure: cues are off from now on.
        case unaligned
    }

    private let state: UnsafeMutablePointer<fb_splice_guard>

    public init() { state = fb_splice_guard_new() }

    deinit { fb_splice_guard_free(state) }

    public func feed(_ bytes: [UInt8]) -> Verdict {
        guard !bytes.isEmpty else { return .held }
        let check = bytes.withUnsafeBufferPointer { fb_splice_guard_feed(state, $0.baseAddress, gsize($0.count)) }
        switch check {
        case FB_TS_BAD_SPLICE: return .malformed
        case FB_TS_HELD: return .held
        case FB_TS_UNALIGNED: return .unaligned
        default: return .clean
        }
    }
}
