import CFFmpeg
import Foundation

/// Reads media files and URLs with libavformat (and libavcodec for HDR metadata that only the
/// bitstream carries): the one file that touches FFmpeg's C API.
///
/// Blocking: `probe` runs on the caller's thread; every wait is bounded by the options'
/// timeout through libavformat's interrupt callback. `probe(_:options:) async` runs it on a
/// dispatch queue so it never holds a Swift concurrency thread.
public enum MediaProbe {
    public static func probe(_ source: String, options: ProbeOptions = ProbeOptions()) async throws(ProbeError) -> MediaInfo {
        let result: Result<MediaInfo, ProbeError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do throws(ProbeError) {
                    continuation.resume(returning: .success(try probeBlocking(source, options: options)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Probes `source` (a path or a URL libavformat knows: file, http, https, udp, rtp, tcp,
    /// rtsp, hls...) on this thread.
    public static func probeBlocking(_ source: String, options: ProbeOptions = ProbeOptions()) throws(ProbeError) -> MediaInfo {
        _ = quiet
        let timeoutMicros = Int64(options.timeout.components.seconds) * 1_000_000 + options.timeout.components.attoseconds / 1_000_000_000_000
        let deadline = UnsafeMutablePointer<cffmpeg_deadline>.allocate(capacity: 1)
        defer { deadline.deallocate() }
        deadline.pointee = cffmpeg_deadline(deadline_us: av_gettime_relative() + timeoutMicros, expired: 0)

        var context: UnsafeMutablePointer<AVFormatContext>?
        let opened = cffmpeg_open(source, deadline, timeoutMicros, &context)
        guard opened >= 0, let context else {
            throw classify(opened, source: source, expired: deadline.pointee.expired != 0, timeout: options.timeout)
        }
        var contextVar: UnsafeMutablePointer<AVFormatContext>? = context
        defer { avformat_close_input(&contextVar) }
        let found = avformat_find_stream_info(context, nil)
        if found < 0 {
            throw classify(found, source: source, expired: deadline.pointee.expired != 0, timeout: options.timeout)
        }
        if deadline.pointee.expired != 0 { throw ProbeError.timedOut(source: source, after: options.timeout) }
        if context.pointee.nb_streams == 0 {
            throw ProbeError.notMedia(source: source, reason: "no audio or video streams found")
        }
        // Text shown as ANSI art (the `tty` demuxer takes any .txt), or a guess from a few bytes.
        let demuxer = string(context.pointee.iformat.pointee.name) ?? ""
        if demuxer == "tty" { throw ProbeError.notMedia(source: source, reason: "it is text") }
        if context.pointee.probe_score <= cffmpeg_probe_score_guess() {
            throw ProbeError.notMedia(source: source, reason: "only a weak guess at \(demuxer) (score \(context.pointee.probe_score) of 100)")
        }
        var info = describe(context, source: source)
        // Sampling gets a timeout of its own; running out of it only ends the sample.
        deadline.pointee = cffmpeg_deadline(deadline_us: av_gettime_relative() + timeoutMicros, expired: 0)
        if options.sampleSeconds > 0 { sample(context, into: &info, seconds: options.sampleSeconds) }
        return info
    }

    /// FFmpeg's own log lines are not for the person running the box: errors come back as values.
    private static let quiet: Void = av_log_set_level(AV_LOG_QUIET)

    private static func classify(_ code: Int32, source: String, expired: Bool, timeout: Duration) -> ProbeError {
        if expired || code == cffmpeg_error_exit() || code == -ETIMEDOUT { return .timedOut(source: source, after: timeout) }
        let reason = errorText(code)
        if code == -ENOENT { return .notFound(source: source, reason: "no such file") }
        if code == cffmpeg_error_invalid_data() || code == cffmpeg_error_eof() { return .notMedia(source: source, reason: reason) }
        // A local file libavformat guessed a format for and then could not read.
        if code == -EINVAL, !source.contains("://") { return .notMedia(source: source, reason: reason) }
        return .failed(source: source, reason: reason)
    }

    private static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { String(cString: cffmpeg_error_text(code, $0.baseAddress, 256)) }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

    private static func tags(_ dictionary: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var entry: UnsafePointer<AVDictionaryEntry>? = nil
        while let next = cffmpeg_dict_next(dictionary, entry) {
            if let key = string(next.pointee.key), let value = string(next.pointee.value) { out[key] = value }
            entry = next
        }
        return out
    }

    private static func seconds(_ value: Int64, _ base: AVRational) -> Double? {
        guard value != cffmpeg_nopts(), base.den != 0 else { return nil }
        return Double(value) * Double(base.num) / Double(base.den)
    }

    private static func describe(_ context: UnsafeMutablePointer<AVFormatContext>, source: String) -> MediaInfo {
        let format = context.pointee.iformat.pointee
        let microseconds = AVRational(num: 1, den: 1_000_000)
        var info = MediaInfo(source: source, container: string(format.name) ?? "?", containerName: string(format.long_name) ?? "",
                             duration: context.pointee.duration > 0 ? seconds(context.pointee.duration, microseconds) : nil,
                             startTime: seconds(context.pointee.start_time, microseconds),
                             bitrate: context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil,
                             tags: tags(context.pointee.metadata))
        for p in 0..<Int(context.pointee.nb_programs) {
            guard let program = context.pointee.programs[p] else { continue }
            let indices = (0..<Int(program.pointee.nb_stream_indexes)).map { Int(program.pointee.stream_index[$0]) }
            info.programs.append(.init(number: Int(program.pointee.program_num), streams: indices, tags: tags(program.pointee.metadata)))
        }
        for c in 0..<Int(context.pointee.nb_chapters) {
            guard let chapter = context.pointee.chapters[c] else { continue }
            let base = chapter.pointee.time_base
            let metadata = tags(chapter.pointee.metadata)
            info.chapters.append(Chapter(start: seconds(chapter.pointee.start, base) ?? 0, end: seconds(chapter.pointee.end, base) ?? 0,
                                         title: metadata["title"]))
        }
        for s in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[s] else { continue }
            info.streams.append(describe(stream))
        }
        return info
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>) -> MediaInfo.Stream {
        let par = stream.pointee.codecpar.pointee
        let kind: MediaInfo.Kind = switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
        let descriptor = avcodec_descriptor_get(par.codec_id)
        let metadata = tags(stream.pointee.metadata)
        var out = MediaInfo.Stream(
            index: Int(stream.pointee.index), id: stream.pointee.id != 0 ? Int(stream.pointee.id) : nil, kind: kind,
            codec: string(avcodec_get_name(par.codec_id)) ?? "unknown", codecName: string(descriptor?.pointee.long_name),
            profile: par.profile >= 0 ? string(avcodec_profile_name(par.codec_id, par.profile)) : nil,
            level: par.level > 0 ? Int(par.level) : nil, bitrate: par.bit_rate > 0 ? Int(par.bit_rate) : nil,
            language: metadata["language"].flatMap { $0 == "und" ? nil : $0 },
            isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0, tags: metadata)
        if kind == .video {
            var rate = stream.pointee.avg_frame_rate
            if rate.den == 0 || rate.num == 0 { rate = stream.pointee.r_frame_rate }
            let pixel = AVPixelFormat(par.format)
            let transfer = string(av_color_transfer_name(par.color_trc))
            var video = MediaInfo.Video(
                width: Int(par.width), height: Int(par.height),
                frameRate: rate.den != 0 && rate.num != 0 ? (Double(rate.num) / Double(rate.den) * 1000).rounded() / 1000 : nil,
                pixelFormat: par.format >= 0 ? string(av_get_pix_fmt_name(pixel)) : nil,
                bitDepth: par.format >= 0 ? av_pix_fmt_desc_get(pixel).map { Int($0.pointee.comp.0.depth) } : nil,
                fieldOrder: fieldOrder(par.field_order),
                colorPrimaries: named(av_color_primaries_name(par.color_primaries), unless: par.color_primaries == AVCOL_PRI_UNSPECIFIED),
                colorTransfer: named(av_color_transfer_name(par.color_trc), unless: par.color_trc == AVCOL_TRC_UNSPECIFIED),
                colorMatrix: named(av_color_space_name(par.color_space), unless: par.color_space == AVCOL_SPC_UNSPECIFIED),
                colorRange: named(av_color_range_name(par.color_range), unless: par.color_range == AVCOL_RANGE_UNSPECIFIED),
                dynamicRange: transfer == "smpte2084" ? "PQ" : transfer == "arib-std-b67" ? "HLG" : nil)
            var mastering = cffmpeg_mastering()
            var light = cffmpeg_light_level()
            let hasMastering = cffmpeg_stream_hdr(stream, &mastering, &light) != 0
            video.hdr = hdr(hasMastering ? mastering : nil, light, from: "container")
            out.video = video
        } else if kind == .audio {
            var layout = [CChar](repeating: 0, count: 64)
            let text = layout.withUnsafeMutableBufferPointer { buffer in
                withUnsafePointer(to: stream.pointee.codecpar.pointee) { String(cString: cffmpeg_layout_text($0, buffer.baseAddress, 64)) }
            }
            out.audio = .init(sampleRate: Int(par.sample_rate), channels: Int(par.ch_layout.nb_channels), channelLayout: text.isEmpty ? nil : text)
        }
        return out
    }

    private static func named(_ text: UnsafePointer<CChar>?, unless unspecified: Bool) -> String? {
        unspecified ? nil : string(text)
    }

    private static func fieldOrder(_ order: AVFieldOrder) -> String? {
        switch order {
        case AV_FIELD_PROGRESSIVE: "progressive"
        case AV_FIELD_TT: "top-first"
        case AV_FIELD_BB: "bottom-first"
        case AV_FIELD_TB: "top-coded-bottom-first"
        case AV_FIELD_BT: "bottom-coded-top-first"
        default: nil
        }
    }

    private static func hdr(_ m: cffmpeg_mastering?, _ light: cffmpeg_light_level, from: String) -> MediaInfo.HDRMetadata? {
        guard m != nil || light.present != 0 else { return nil }
        var out = MediaInfo.HDRMetadata(from: from)
        if let m, m.has_primaries != 0 {
            out.primaries = [[m.red_x, m.red_y], [m.green_x, m.green_y], [m.blue_x, m.blue_y], [m.white_x, m.white_y]]
                .map { $0.map { ($0 * 10000).rounded() / 10000 } }
        }
        if let m, m.has_luminance != 0 {
            out.minLuminance = (m.min_luminance * 10000).rounded() / 10000
            out.maxLuminance = m.max_luminance
        }
        if light.present != 0 {
            out.maxCLL = Int(light.max_cll)
            out.maxFALL = Int(light.max_fall)
        }
        return out
    }

    /// Reads packets for `seconds` of stream time (or until the sampling deadline or the end):
    /// keyframe intervals per video stream, and HDR metadata from the first decoded frame of a
    /// video stream whose container did not carry it.
    private static func sample(_ context: UnsafeMutablePointer<AVFormatContext>, into info: inout MediaInfo, seconds limit: Double) {
        var keyframes: [Int: [Double]] = [:]
        var decoders: [Int: UnsafeMutablePointer<AVCodecContext>] = [:]
        defer { for (_, d) in decoders { var d: UnsafeMutablePointer<AVCodecContext>? = d; avcodec_free_context(&d) } }
        for stream in info.streams where stream.kind == .video && stream.video?.hdr == nil
            && ["hevc", "av1", "vp9", "h264"].contains(stream.codec) {
            if let s = context.pointee.streams[stream.index], let decoder = cffmpeg_open_decoder(s) { decoders[stream.index] = decoder }
        }
        var first: [Int: Double] = [:]
        var sampled = 0.0
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        defer { av_packet_free(&packet); av_frame_free(&frame) }
        guard let packet, let frame else { return }
        var reads = 0
        while av_read_frame(context, packet) >= 0 {
            defer { av_packet_unref(packet) }
            reads += 1
            let index = Int(packet.pointee.stream_index)
            guard index < info.streams.count, let stream = context.pointee.streams[index] else { continue }
            let time = seconds(packet.pointee.pts != cffmpeg_nopts() ? packet.pointee.pts : packet.pointee.dts, stream.pointee.time_base)
            if let time {
                let start = first[index] ?? time
                first[index] = start
                sampled = max(sampled, time - start)
                if info.streams[index].kind == .video, cffmpeg_pkt_keyframe(packet) != 0 { keyframes[index, default: []].append(time) }
            }
            if let decoder = decoders[index] {
                if avcodec_send_packet(decoder, packet) >= 0, avcodec_receive_frame(decoder, frame) >= 0 {
                    var mastering = cffmpeg_mastering()
                    var light = cffmpeg_light_level()
                    let has = cffmpeg_frame_hdr(frame, &mastering, &light) != 0
                    info.streams[index].video?.hdr = hdr(has ? mastering : nil, light, from: "bitstream")
                    av_frame_unref(frame)
                    var done: UnsafeMutablePointer<AVCodecContext>? = decoders.removeValue(forKey: index)
                    avcodec_free_context(&done)
                }
            }
            if sampled >= limit && decoders.isEmpty { break }
            if reads > 200_000 { break }
        }
        info.sampledSeconds = (sampled * 1000).rounded() / 1000
        for (index, times) in keyframes {
            let sorted = Set(times).sorted()
            info.streams[index].keyframesSampled = sorted.count
            guard sorted.count >= 2 else { continue }
            let mean = (sorted.last! - sorted.first!) / Double(sorted.count - 1)
            info.streams[index].keyframeInterval = (mean * 1000).rounded() / 1000
        }
    }
}
