import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import TestSupport
import Testing

extension HeadendTests {
    /// Broadcast streams as a DVB or IPTV lineup carries them (issue 15), made by ffmpeg and sent
    /// live over UDP on loopback: MPEG-2 576i with MP2, H.264 1080i with AC-3 in two languages,
    /// HEVC 10-bit BT.2020/PQ, radio in several codecs. Checked by the decoded pixels and sound.
    @Suite struct BroadcastStreams {
        init() throws { try GStreamer.initialize() }

        /// Keeps the newest decoded frames and the last seconds of decoded sound (any thread).
        final class Recorder: DecodedFrameSink, @unchecked Sendable {
            private let lock = NSLock()
            private var video: [(feed: FeedID, frame: Buffer)] = []
            private var videoCount = 0
            private var audio: [Int16] = []
            private var audioCount = 0
            func presentVideo(_ frame: Buffer, feed: FeedID) {
                lock.withLock {
                    video.append((feed, frame))
                    videoCount += 1
                    if video.count > 8 { video.removeFirst() }
                }
            }
            func presentAudio(_ samples: Buffer, feed: FeedID) {
                let s = samples.bytes().withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
                lock.withLock {
                    audio += s
                    audioCount += 1
                    if audio.count > 48000 * 2 * 2 { audio.removeFirst(audio.count - 48000 * 2 * 2) }
                }
            }
            var frames: Int { lock.withLock { videoCount } }
            var audioBuffers: Int { lock.withLock { audioCount } }
            var newest: Buffer? { lock.withLock { video.last?.frame } }
            /// The last `ms` of sound, interleaved stereo at 48 kHz.
            func recentAudio(ms: Int) -> [Int16] { lock.withLock { Array(audio.suffix(48 * ms * 2)) } }
            /// Whether `hz` dominates the last 400 ms of sound over `other`.
            func hears(_ hz: Double, over other: Double) -> Bool {
                let a = recentAudio(ms: 400)
                return a.count >= 48 * 300 * 2 && tonePower(a, hz) > 10 * max(tonePower(a, other), 1e-9) && tonePower(a, hz) > 1e-4
            }
        }

        /// A headend over one live loopback channel per clip, with the lineup `settings`.
        final class Rig: @unchecked Sendable {
            let headend: Headend
            let senders: [TransportStreamSender]
            let channels: [Channel]
            let target: DecodeTarget

            init(_ formats: [ClipFormat], target: DecodeTarget = DecodeTarget(width: 320, height: 180), settings: [String: String] = [:]) async throws {
                var senders: [TransportStreamSender] = []
                var channels: [Channel] = []
                for (i, format) in formats.enumerated() {
                    let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
                    let port = freePort()
                    senders.append(try TransportStreamSender(clip: clip, port: port))
                    channels.append(makeChannel(["udp://127.0.0.1:\(port)"], number: i + 1, name: format.description))
                }
                self.senders = senders
                self.channels = channels
                self.target = target
                headend = Headend(lineup: Lineup(channels: channels, settings: settings), policy: .all, target: target, logger: testLogger)
            }

            /// Starts every channel and waits until each can be flipped to warm.
            func warm(within seconds: Double = 20) async -> Bool {
                await headend.applyPolicy(current: 0, last: nil)
                let sources = headend.sources
                return await eventually(within: seconds) {
                    sources.allSatisfy { $0.state == .warm && $0.cache.canStartWarm && ($0.cache.audioCaps != nil) }
                }
            }

            /// Has the colour tables of the channels' HDR and wide-gamut streams built, as a box
            /// does in the background once it sees such a channel (`prepareColourTables`; 0.3 s
            /// in a release build, seconds in a debug one): a flip's first picture waits for them.
            func colourTablesReady() async throws {
                let target = self.target
                for source in headend.sources {
                    guard let caps = source.cache.videoCaps, let colour = DecodeTarget.remapSource(of: caps) else { continue }
                    _ = try await offPool { ColourRemap.shared(from: colour, to: target.colour) }
                }
            }

            /// Waits until a ready first-picture decoder exists for each of `formats`.
            func expectFirstPictureDecoders(for formats: [PictureFormat], _ what: String) async {
                let ready = await eventually(within: 8) {
                    let decoders = await self.headend.firstPictures
                    return formats.allSatisfy { decoders[$0]?.isReady == true }
                }
                let built = await headend.firstPictures.keys.map(\.description)
                #expect(ready, "\(what)\(built)")
            }

            func stop() async {
                await headend.shutdown()
                for s in senders { s.stop() }
            }

            /// The mean colour of the middle of `frame`.
            func colour(_ frame: Buffer?) -> (r: Double, g: Double, b: Double)? { Self.colourReader(target)(frame) }

            /// Reads the mean colour of the middle of a frame of `target`'s size.
            static func colourReader(_ target: DecodeTarget) -> (Buffer?) -> (r: Double, g: Double, b: Double)? {
                { frame in
                    guard let frame,
                          let caps = try? Caps("video/x-raw,format=I420,width=\(target.width),height=\(target.height),framerate=25/1,pixel-aspect-ratio=1/1"),
                          let png = try? ImageCodec.png(frame: frame, caps: caps), let image = try? ImageCodec.decode(bytes: png) else { return nil }
                    let m = image.meanRGB(x: target.width / 4, y: target.height / 4, width: target.width / 2, height: target.height / 2)
                    return (m.r, m.g, m.b)
                }
            }
        }

        static func states(_ h: Headend) -> String { h.states().map(\.description).joined(separator: ", ") }

        @Test func mpeg2InterlacedWithMP2PlaysInItsColourAndSound() async throws {
            var format = ClipFormat.sd576iMPEG2
            format.colour = 0x00C000
            format.colours = .bt601
            format.audioCodec = .mp2
            format.toneHz = 700
            format.seconds = 4
            let rig = try await Rig([format])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let media = try #require(rig.headend.media(of: rig.channels[0]))
            #expect(media.video?.family == .mpeg2 && media.video?.interlaced == true, "video \(String(describing: media.video))")
            #expect(media.video?.colour.description == "BT.601", "colour \(String(describing: media.video?.colour))")
            #expect(media.audio.tracks.map(\.family) == [.mp2], "audio \(media.audio)")

            let recorder = Recorder()
            let (_, path) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            #expect(path == .warm)
            #expect(await eventually(within: 5) { recorder.frames > 10 && recorder.hears(700, over: 1000) },
                    "frames \(recorder.frames), audio buffers \(recorder.audioBuffers)")
            let c = rig.colour(recorder.newest)
            #expect(c.map { $0.g > 170 && $0.r < 40 && $0.b < 40 } == true, "MPEG-2 green decodes green: \(String(describing: c))")
            await rig.stop()
        }

        /// Two AC-3 tracks, German at 440 Hz and English at 1000 Hz: the lineup prefers English;
        /// the viewer switches to German while the picture plays on, and the next flip there
        /// plays German again.
        @Test func h264InterlacedWithTwoAC3LanguagesPlaysTheChosenOne() async throws {
            var format = Self.smallInterlaced
            format.audioCodec = .ac3
            format.audioTracks = [.init(toneHz: 440, language: "deu"), .init(toneHz: 1000, language: "eng")]
            let rig = try await Rig([format], settings: ["audio-languages": "fra, eng"])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let listed = await eventually(within: 5) { rig.headend.audio(of: rig.channels[0]).tracks.count == 2 }
            let audio = rig.headend.audio(of: rig.channels[0])
            #expect(listed && audio.tracks.map(\.language) == ["deu", "eng"], "tracks \(audio.tracks)")
            #expect(audio.tracks.allSatisfy { $0.family == .ac3 })
            #expect(audio.playing == audio.tracks.last?.index, "English is preferred: \(audio)")
            #expect(rig.headend.media(of: rig.channels[0])?.video?.interlaced == true)

            let recorder = Recorder()
            var (feed, _) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            #expect(await eventually(within: 5) { recorder.hears(1000, over: 440) }, "English (1000 Hz) plays first")

            let state = try await rig.headend.selectAudio(.language("deu"), feed: feed)
            #expect(state.playing == state.tracks.first?.index)
            let framesBefore = recorder.frames
            #expect(await eventually(within: 3) { recorder.hears(440, over: 1000) }, "German (440 Hz) plays after the switch")
            #expect(await eventually(within: 3) { recorder.frames > framesBefore + 10 }, "the picture plays on through the switch")

            // Remembered: the next flip to the channel speaks German.
            await rig.headend.deactivate(feed: feed)
            let again = Recorder()
            (feed, _) = try await rig.headend.activate(rig.channels[0], sink: again)
            #expect(await eventually(within: 5) { again.hears(440, over: 1000) }, "German again after a flip")
            await #expect(throws: AudioSelectionError.self) { try await rig.headend.selectAudio(.language("fra"), feed: feed) }
            await #expect(throws: AudioSelectionError.self) { try await rig.headend.selectAudio(.track(2), feed: feed) }
            await rig.stop()
        }

        /// English audio description (700 Hz) listed before the main English sound (1000 Hz), as
        /// ffmpeg marks it (audio type 3): listed as a description, and the main sound plays
        /// unasked; with `audio-description: true` the description plays.
        @Test(arguments: [false, true]) func audioDescriptionPlaysOnlyWhenAskedFor(preferred: Bool) async throws {
            var format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400)
            format.audioTracks = [.init(toneHz: 700, language: "eng", describesPicture: true), .init(toneHz: 1000, language: "eng")]
            let rig = try await Rig([format], settings: preferred ? ["audio-description": "true"] : [:])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let listed = await eventually(within: 5) { rig.headend.audio(of: rig.channels[0]).tracks.count == 2 }
            let audio = rig.headend.audio(of: rig.channels[0])
            #expect(listed && audio.tracks.map(\.describesPicture) == [true, false], "tracks \(audio.tracks)")
            #expect(audio.playing == (preferred ? 0 : 1), "\(audio)")
            let recorder = Recorder()
            let (feed, _) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            let (heard, over) = preferred ? (700.0, 1000.0) : (1000.0, 700.0)
            #expect(await eventually(within: 5) { recorder.hears(heard, over: over) }, "\(Int(heard)) Hz plays")
            await rig.headend.deactivate(feed: feed)
            await rig.stop()
        }

        /// 10-bit HEVC in BT.2020 PQ, a solid colour: red stays red; a grey at PQ's reference
        /// white (signal 0.58, 203 cd/m², BT.2408) shows as a white of the SDR output,
        /// tone-mapped (GStreamer's own remap shows it at luma 35 of 255); on the output and in
        /// the channel's thumbnail.
        @Test(arguments: [0xC00000, 0x949494] as [UInt32])
        func hevc10BitPQIsConvertedForTheOutput(colour: UInt32) async throws {
            var format = Self.small(.hd720HEVC, colour: colour)
            format.colours = .bt2020pq
            let rig = try await Rig([format])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            // The first picture waits for the colour tables (seconds in a debug build on a busy
            // machine): built first, so what is checked is the conversion, not the wait.
            try await rig.colourTablesReady()
            let video = rig.headend.media(of: rig.channels[0])?.video
            #expect(video?.family == .h265 && video?.colour.isHDR == true && video?.colour.description == "BT.2100 PQ",
                    "video \(String(describing: video))")
            let recorder = Recorder()
            _ = try await rig.headend.activate(rig.channels[0], sink: recorder)
            #expect(await eventually(within: 5) { recorder.frames > 10 }, "frames \(recorder.frames)")
            let shown = try #require(rig.colour(recorder.newest))
            // The channel's thumbnail is tone-mapped the same way.
            let thumbnail = try await Thumbnailer().picture(of: rig.headend.sources[0].cache, width: 160)
            let image = try ImageCodec.decode(bytes: thumbnail.jpeg)
            let m = image.meanRGB(x: image.width / 4, y: image.height / 4, width: image.width / 2, height: image.height / 2)
            for (what, c) in [("picture", shown), ("thumbnail", (r: m.r, g: m.g, b: m.b))] {
                if colour == 0xC00000 {
                    #expect(c.r > c.g + 40 && c.r > c.b + 40, "HDR red stays red in the \(what): \(c)")
                } else {
                    // ffmpeg codes this grey's chroma 4 codes off neutral (508 of 1024), which PQ's
                    // steep curve and the gamut conversion turn into a faint green: about 14 of 255.
                    #expect(c.r > 200 && c.g > 200 && c.b > 200 && max(c.r, c.g, c.b) - min(c.r, c.g, c.b) < 24,
                            "PQ reference white shows as a near-white grey in the \(what): \(c)")
                }
            }
            await rig.stop()
        }

        /// The tone mapping takes the stream's own peak from its SEI: a grey at 300 cd/m² (over
        /// reference white) comes out near white when the stream says nothing (1000 cd/m²
        /// assumed: luma 229 by the EETF), and clearly darker when its MaxCLL says 4000 cd/m²
        /// (room kept for brighter highlights: luma 213).
        @Test func hdrToneMappingFollowsTheStreamsContentLightLevel() async throws {
            var format = Self.small(.hd720HEVC, colour: 0x9F9F9F)
            format.colours = .bt2020pq
            var bright = format
            bright.maxContentLight = 4000
            let rig = try await Rig([format, bright])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            try await rig.colourTablesReady()
            #expect(rig.headend.media(of: rig.channels[1])?.video?.colour.peakLuminance == 4000)
            var shown: [Double] = []
            for channel in rig.channels {
                let recorder = Recorder()
                let (feed, _) = try await rig.headend.activate(channel, sink: recorder)
                #expect(await eventually(within: 5) { recorder.frames > 10 }, "frames \(recorder.frames)")
                let c = try #require(rig.colour(recorder.newest))
                shown.append((c.r + c.g + c.b) / 3)
                await rig.headend.deactivate(feed: feed)
            }
            #expect(shown[0] > 222, "300 cd/m² with no light level said: near white, \(shown[0])")
            #expect(shown[1] < shown[0] - 10 && shown[1] > 200, "300 cd/m² under a 4000 cd/m² MaxCLL: darker, \(shown[1]) against \(shown[0])")
            await rig.stop()
        }

        /// A stream that turns from SDR to HDR (10-bit PQ) mid-stream, same codec and size, on
        /// screen: from its next keyframe a new decoder remaps it (a grey at PQ's reference white
        /// shows near white, where the SDR decoder went on would show it dark or mid-grey), and
        /// back to SDR the same way.
        @Test func aStreamThatTurnsHDRIsRemappedFromItsNextKeyframe() async throws {
            let sdr = Self.small(.hd720HEVC, colour: 0x949494)
            var hdr = sdr
            hdr.colours = .bt2020pq
            let rig = try await Rig([sdr], target: DecodeTarget(width: 640, height: 360))
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let recorder = Recorder()
            let (feed, _) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            func grey() -> Double? { rig.colour(recorder.newest).map { ($0.r + $0.g + $0.b) / 3 } }
            #expect(await eventually(within: 5) { grey().map { abs($0 - 148) < 12 } ?? false }, "SDR grey 148: \(String(describing: grey()))")
            let hdrClip = try TransportStreamClip(path: try await hdr.made(in: ClipFormat.cacheDirectory))
            let sdrClip = try TransportStreamClip(path: try await sdr.made(in: ClipFormat.cacheDirectory))
            rig.senders[0].play(hdrClip)
            #expect(await eventually(within: 8) { grey().map { $0 > 200 } ?? false },
                    "PQ reference white, remapped, near white: \(String(describing: grey()))")
            #expect(await rig.headend.decoder(feed: feed)?.change(toVideo: try #require(rig.headend.sources[0].cache.videoCaps)) == nil,
                    "the decoder on screen is one for HDR")
            rig.senders[0].play(sdrClip)
            #expect(await eventually(within: 8) { grey().map { abs($0 - 148) < 12 } ?? false },
                    "back to SDR: grey 148 again, \(String(describing: grey()))")
            await rig.headend.deactivate(feed: feed)
            await rig.stop()
        }

        /// A radio channel (sound only) flips like any other: its sound plays and a still picture
        /// stands for it, warm or cold.
        @Test(arguments: [ClipFormat.AudioCodec.latm, .eac3, .mp2])
        func radioPlaysWithAStillPicture(codec: ClipFormat.AudioCodec) async throws {
            let rig = try await Rig([ClipFormat.radio(codec, toneHz: 600)])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let source = rig.headend.sources[0]
            #expect(source.cache.isAudioOnly && !source.cache.hasKeyframe)
            #expect(rig.headend.media(of: rig.channels[0])?.radio == true)
            let recorder = Recorder()
            let (feed, path) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            #expect(path == .warm)
            #expect(await eventually(within: 5) { recorder.frames > 0 && recorder.hears(600, over: 1000) },
                    "\(codec): frames \(recorder.frames), audio buffers \(recorder.audioBuffers)")
            // The picture is the channel's still (here the stand-in until a card is set), at the output size.
            #expect(recorder.newest?.size == rig.target.width * rig.target.height * 3 / 2)
            rig.headend.stills.set(try VideoFormat(caps: Caps(rig.target.videoCaps)).solidFrame(r: 255, g: 0, b: 0), for: rig.channels[0].id)
            #expect(await eventually(within: 3) { rig.colour(recorder.newest).map { $0.r > 200 && $0.g < 60 } ?? false },
                    "the channel's own picture replaces the stand-in")
            await rig.headend.deactivate(feed: feed)

            // Cold: the flip starts the source and plays from its first sound.
            await rig.headend.setPolicy(.none)
            await rig.headend.applyPolicy(current: nil, last: nil)
            #expect(await eventually(within: 3) { source.state == .cold })
            let cold = Recorder()
            let (_, coldPath) = try await rig.headend.activate(rig.channels[0], sink: cold)
            #expect(coldPath == .cold)
            #expect(await eventually(within: 8) { cold.frames > 0 && cold.hears(600, over: 1000) },
                    "cold \(codec): frames \(cold.frames), audio buffers \(cold.audioBuffers), \(source.state)")
            await rig.stop()
        }

        /// A radio channel in a sink of its own size (a picture-in-picture window): its still
        /// picture comes at that size.
        @Test func radioStillComesAtTheSizeASinkAsksFor() async throws {
            let rig = try await Rig([ClipFormat.radio(.mp2, toneHz: 600)])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let sink = HeadendTests.Activation.SizedRecorder(width: 96, height: 54)
            let (feed, _) = try await rig.headend.activate(rig.channels[0], sink: sink)
            #expect(await eventually(within: 5) { !sink.frames.isEmpty }, "the still picture comes with the first sound")
            let small = try VideoFormat(caps: Caps("video/x-raw,format=I420,width=96,height=54"))
            #expect(sink.frames.allSatisfy { small.fits($0) }, "at the sink's size: \(sink.frames.map(\.size))")
            await rig.headend.deactivate(feed: feed)
            await rig.stop()
        }

        /// AV1 as HLS providers send it (CMAF: fMP4 segments), played where GStreamer has a decoder
        /// for it (aom's `av1dec`, in the bad plugins that deploy/install-deps.sh installs):
        /// through `decodebin`, warm like any channel, in its colour and with its sound.
        @Test func av1InHLSPlaysWhereADecoderExists() async throws {
            try #require(GStreamer.hasElement("av1dec") || GStreamer.hasElement("dav1ddec"), "no AV1 decoder: install gstreamer1.0-plugins-bad")
            let directory = URL(fileURLWithPath: ClipFormat.cacheDirectory).appendingPathComponent("hls-av1-320x180-g1-20s-c2050c0-t500")
            if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("index.m3u8").path) {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                // Seconds of AV1 encoding: on a thread of its own, not the concurrency pool's.
                let status = try await offPool { () throws -> Int32 in
                    let ffmpeg = Process()
                    ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
                    ffmpeg.currentDirectoryURL = directory
                    ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x2050C0:size=320x180:rate=25",
                                        "-f", "lavfi", "-i", "sine=frequency=500:sample_rate=48000", "-t", "20",
                                        "-c:v", "libaom-av1", "-cpu-used", "8", "-g", "25", "-b:v", "300k", "-pix_fmt", "yuv420p",
                                        "-c:a", "aac", "-shortest", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                                        "-hls_segment_type", "fmp4", "index.m3u8"]
                    try ffmpeg.run()
                    ffmpeg.waitUntilExit()
                    return ffmpeg.terminationStatus
                }
                try #require(status == 0, "ffmpeg could not make the AV1 clip")
            }
            let server = try HTTPFileServer(directory: directory)
            defer { server.stop() }
            let channels = [makeChannel([server.url("index.m3u8")], number: 1, name: "AV1")]
            let target = DecodeTarget(width: 320, height: 180)
            let headend = Headend(lineup: Lineup(channels: channels), policy: .all, target: target, logger: testLogger)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            let warm = await eventually(within: 15) { source.state == .warm && source.cache.canStartWarm && source.cache.audioCaps != nil }
            try #require(warm, "not warm: \(source.state)")
            let media = try #require(headend.media(of: channels[0]))
            #expect(media.video?.mediaType == "video/x-av1" && media.video?.family == .other, "video \(String(describing: media.video))")
            let recorder = Recorder()
            let (_, path) = try await headend.activate(channels[0], sink: recorder)
            #expect(path == .warm)
            let rig = Rig.colourReader(target)
            #expect(await eventually(within: 8) {
                recorder.frames > 5 && rig(recorder.newest).map { $0.b > 150 && $0.r < 70 && $0.g > 50 && $0.g < 115 } == true
            }, "the picture is the clip's blue: \(String(describing: rig(recorder.newest))), \(recorder.frames) frames")
            #expect(await eventually(within: 5) { recorder.hears(500, over: 1000) }, "its 500 Hz tone")
            await headend.shutdown()
        }

        /// AAC in LATM sends its configuration only every few hundred milliseconds (ffmpeg: every
        /// 20th frame), and a decoder plays nothing before it: a flip to such a radio station
        /// starts at the frame that last carried it, not at a frame the decoder would drop.
        @Test func aLATMRadioFlipStartsWhereItsConfigurationWasSent() async throws {
            let rig = try await Rig([ClipFormat.radio(.latm, toneHz: 600)])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let cache = rig.headend.sources[0].cache
            #expect(await eventually(within: 5) { cache.snapshot().entries.count > 12 }, "the first 300 ms of sound")
            for _ in 0..<6 {
                let start = cache.snapshot().entries
                let configured = start.filter { GOPCache.carriesLATMConfiguration($0.buffer) }
                #expect(start.count > 4 && configured.count * 4 < start.count, "the configuration is not in every frame: \(configured.count) of \(start.count)")
                #expect(start.first.map { GOPCache.carriesLATMConfiguration($0.buffer) } == true, "starts at a configuration")
                try await Task.sleep(for: .milliseconds(170))
            }
            await rig.stop()
        }

        /// A TV channel with AAC in LATM (DVB-T2 HD in Germany sends HE-AAC so): its sound starts
        /// with its picture after a flip, though the configuration comes only every 20th audio
        /// frame (about 430 ms). The flip takes the sound from the configuration before the
        /// keyframe, decodes it and does not play it. Flips at several moments of the stream.
        /// (Before: a second aacparse in the decoder dropped the sound up to the next configuration.)
        @Test func aLATMTVChannelsSoundStartsWithItsPicture() async throws {
            var format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 6, bitrateKbps: 400, toneHz: 700)
            format.audioCodec = .latm
            let rig = try await Rig([format])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            var offsets: [Int] = []
            for flip in 0..<9 {
                let timing = StartTiming()
                let (feed, path) = try await rig.headend.activate(rig.channels[0], sink: timing)
                #expect(path == .warm)
                let started = await eventually(within: 5) { timing.offset != nil }
                #expect(started, "flip \(flip): picture at \(String(describing: timing.firstPicture)), sound at \(String(describing: timing.firstSound))")
                // The first sound decoded in the process comes about 80 ms late, once (a first
                // use of the audio elements): not counted. A flip soon after a keyframe holds what
                // follows it back until the channel's late-sent sound is there (`DeliveryLag`):
                // the sound starts that much later, with its picture; not counted either.
                let held = await rig.headend.playoutLateness(feed: feed)?.heldMs ?? 0
                if flip > 0, let offset = timing.offset { offsets.append(Int(offset / .milliseconds(1) - held)) }
                await rig.headend.deactivate(feed: feed)
                try await Task.sleep(for: .milliseconds(130))
            }
            // The A/V target after a flip is +40/-60 ms (the bench measures it; 120 here, for a
            // loaded test run). A flip that waited for the next configuration would start its
            // sound 0-430 ms after its picture, depending on where in the stream it flipped: with
            // that defect fewer than a third of the flips start within 120 ms, so 7 of 8 must.
            // One is let off, as a run on 2 loaded cores can hold one start past the target.
            let late = offsets.filter { $0 > 120 }
            #expect(offsets.count == 8 && late.count <= 1, "sound after picture, ms: \(offsets)")
            await rig.stop()
        }

        /// When a feed's first picture and first sound (not silence) arrived.
        final class StartTiming: DecodedFrameSink, @unchecked Sendable {
            private let lock = NSLock()
            private(set) var firstPicture: ContinuousClock.Instant?
            private(set) var firstSound: ContinuousClock.Instant?
            func presentVideo(_ frame: Buffer, feed: FeedID) {
                lock.withLock { if firstPicture == nil { firstPicture = .now } }
            }
            func presentAudio(_ samples: Buffer, feed: FeedID) {
                let loud = samples.bytes().withUnsafeBytes { $0.bindMemory(to: Int16.self).contains { abs(Int32($0)) > 1000 } }
                lock.withLock { if loud && firstSound == nil { firstSound = .now } }
            }
            /// Sound minus picture, once both came.
            var offset: Duration? {
                lock.withLock { firstPicture.flatMap { p in firstSound.map { $0 - p } } }
            }
        }

        /// A radio station that changes codec (MP2 to AAC LATM on the same PID) plays on: the
        /// ingest reconnects when the old parser goes quiet, and the feed gets a decoder for the
        /// new sound at once (radio has no keyframe to wait for).
        @Test func radioFollowsACodecChange() async throws {
            let latm = try TransportStreamClip(path: try await ClipFormat.radio(.latm, toneHz: 900).made(in: ClipFormat.cacheDirectory))
            let rig = try await Rig([ClipFormat.radio(.mp2, toneHz: 600)])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let recorder = Recorder()
            _ = try await rig.headend.activate(rig.channels[0], sink: recorder)
            #expect(await eventually(within: 5) { recorder.hears(600, over: 900) }, "MP2 at 600 Hz")
            rig.senders[0].play(latm)
            #expect(await eventually(within: 15) { recorder.hears(900, over: 600) },
                    "AAC LATM at 900 Hz after the change: \(rig.headend.sources[0].state), \(recorder.audioBuffers) audio buffers")
            await rig.stop()
        }

        /// The same green, coded BT.601 in SD and BT.709 in HD, is the same green on the output,
        /// whichever matrix the output uses (BT.601 for a small output, BT.709 for HD).
        @Test(arguments: [(320, 180), (1280, 720)])
        func sdAndHDColoursAreConvertedToTheOutputs(width: Int, height: Int) async throws {
            var sd = ClipFormat.sd576iMPEG2
            sd.colour = 0x00FF00
            sd.colours = .bt601
            sd.seconds = 3
            var hd = ClipFormat.hd720
            hd.colour = 0x00FF00
            hd.colours = .bt709
            hd.bitrateKbps = 1000
            hd.seconds = 3
            let rig = try await Rig([sd, hd], target: DecodeTarget(width: width, height: height))
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            for channel in rig.channels {
                let recorder = Recorder()
                let (feed, _) = try await rig.headend.activate(channel, sink: recorder)
                #expect(await eventually(within: 5) { recorder.frames > 5 })
                let c = rig.colour(recorder.newest)
                #expect(c.map { $0.g > 235 && $0.r < 25 && $0.b < 25 } == true,
                        "\(channel.name) on a \(width)x\(height) output: \(String(describing: c))")
                await rig.headend.deactivate(feed: feed)
            }
            await rig.stop()
        }

        /// Fields that move apart comb when woven; deinterlaced (the default) they do not.
        /// Progressive video passes untouched.
        @Test func interlacedVideoIsDeinterlacedAndProgressiveIsNot() async throws {
            var format = ClipFormat.sd576iMPEG2
            format.fieldMotion = true
            format.seconds = 3
            format.bitrateKbps = 8000
            let target = DecodeTarget(width: 720, height: 576)
            func combing(settings: [String: String]) async throws -> Double {
                let rig = try await Rig([format], target: target, settings: settings)
                let warm = await rig.warm()
                if !warm { await rig.stop() }
                try #require(warm, "not warm: \(Self.states(rig.headend))")
                let recorder = Recorder()
                _ = try await rig.headend.activate(rig.channels[0], sink: recorder)
                #expect(await eventually(within: 5) { recorder.frames > 10 })
                let frame = try #require(recorder.newest)
                await rig.stop()
                return Self.combing(frame, width: target.width, height: target.height)
            }
            let woven = try await combing(settings: ["deinterlace": "off"])
            let deinterlaced = try await combing(settings: [:])
            #expect(woven > 1.2, "woven fields comb: \(woven)")
            #expect(deinterlaced < 1.0 && deinterlaced < woven * 0.7, "deinterlaced: \(deinterlaced), woven: \(woven)")
        }

        /// Mean difference between neighbouring lines (of opposite fields) over that between
        /// lines two apart (same field), on the luma plane: above 1 where fields comb.
        static func combing(_ frame: Buffer, width: Int, height: Int) -> Double {
            let y = frame.bytes()
            var near = 0.0, far = 0.0
            for row in stride(from: 2, to: height - 2, by: 1) {
                for x in stride(from: 0, to: width, by: 2) {
                    let a = Double(y[row * width + x])
                    near += abs(a - Double(y[(row + 1) * width + x]))
                    far += abs(a - Double(y[(row + 2) * width + x]))
                }
            }
            return near / max(far, 1)
        }

        /// 1080i H.264 made at 960x540 (interlaced all the same) at 1.5 Mb/s, 4 s: quicker to make
        /// and to decode than the broadcast size.
        static var smallInterlaced: ClipFormat {
            var format = ClipFormat.hd1080iH264
            format.width = 960
            format.height = 540
            format.bitrateKbps = 1500
            format.seconds = 4
            return format
        }

        /// `base` at 640x360 for `seconds`, in a solid `colour` when given (else moving).
        static func small(_ base: ClipFormat, colour: UInt32? = nil, seconds: Double = 3) -> ClipFormat {
            var format = base
            format.width = 640
            format.height = 360
            if let colour { format.colour = colour }
            format.seconds = seconds
            return format
        }

        /// H.264 progressive at 640x360 with AAC, 3 s.
        static var smallProgressive: ClipFormat { small(.hd720) }

        /// MPEG-2 576i with MPEG-1 Layer II sound, 3 s (DVB SD).
        static var smallMPEG2: ClipFormat {
            var format = ClipFormat.sd576iMPEG2
            format.audioCodec = .mp2
            format.seconds = 3
            return format
        }

        /// 10-bit HEVC in BT.2020 PQ at 640x360, 4 s, moving.
        static var smallHEVCPQ: ClipFormat {
            var format = small(.hd720HEVC, seconds: 4)
            format.colours = .bt2020pq
            return format
        }

        /// Keeps the first frames given to it (any thread).
        final class FirstFrames: DecodedFrameSink, @unchecked Sendable {
            private let lock = NSLock()
            private var kept: [Buffer] = []
            func presentVideo(_ frame: Buffer, feed: FeedID) { lock.withLock { if kept.count < 8 { kept.append(frame) } } }
            func presentAudio(_ samples: Buffer, feed: FeedID) {}
            var frames: [Buffer] { lock.withLock { kept } }
        }

        /// The mean difference per byte of two frames of one size (255 when the sizes differ).
        static func difference(_ a: Buffer, _ b: Buffer) -> Double {
            let x = a.bytes(), y = b.bytes()
            guard x.count == y.count, !x.isEmpty else { return 255 }
            var sum = 0
            for i in x.indices { sum += abs(Int(x[i]) - Int(y[i])) }
            return Double(sum) / Double(x.count)
        }

        /// A warm flip to a channel whose decoder holds pictures back for B-frames (interlaced
        /// H.264, 10-bit HEVC in PQ) shows its keyframe decoded on its own first: the same
        /// picture, in the same colours, as the first one the channel's decoder then gives out (moving
        /// pictures: two frames in a row differ by about 2.7 per byte; these by 0).
        /// The first-picture decoder is ready again for the next flip.
        @Test func aFlipShowsItsKeyframeDecodedOnItsOwnFirst() async throws {
            let (interlaced, hevc) = (Self.smallInterlaced, Self.smallHEVCPQ)
            let progressive = Self.smallProgressive
            let rig = try await Rig([interlaced, hevc, progressive], target: DecodeTarget(width: 640, height: 360))
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            try await rig.colourTablesReady()
            // No channel on screen: none is next in line, so no picture is decoded ahead.
            await rig.headend.applyPolicy(current: nil, last: nil)
            // One decoder per stream format: H.264 interlaced and progressive apart.
            let formats = try rig.headend.sources.map { PictureFormat(caps: try #require($0.cache.videoCaps)) }
            #expect(Set(formats).count == 3, "formats: \(formats)")
            await rig.expectFirstPictureDecoders(for: formats, "first-picture decoders: ")
            for (index, round) in [(0, 1), (1, 1), (2, 1), (0, 2)] {
                // Ready again after the last flip's picture.
                #expect(await eventually(within: 3) { await rig.headend.firstPictures.values.allSatisfy(\.isReady) })
                let before = await rig.headend.firstPictures.mapValues(\.keyframesTaken)
                try await Self.flipShowsItsKeyframeDecodedOnItsOwn(rig, channel: index, format: formats[index], path: .warm,
                                                                   before: before, flip: "channel \(index + 1), flip \(round)")
            }
            await rig.stop()
        }

        /// Flips to `channel` (expecting `path`) and checks that its keyframe went to the
        /// first-picture decoder of `format` and to no other (`before`: the keyframes each had
        /// taken), and that this picture came first and is the decoder's own first frame.
        /// With `whileBuilt`, the picture came before the decoder took the feed (it was built for
        /// the flip).
        static func flipShowsItsKeyframeDecodedOnItsOwn(_ rig: Rig, channel index: Int, format: PictureFormat, path expected: Headend.Path,
                                                        before: [PictureFormat: Int], flip: String, whileBuilt: Bool = false) async throws {
            let sink = FirstFrames()
            let (feed, path) = try await rig.headend.activate(rig.channels[index], sink: sink)
            #expect(path == expected, "\(flip)")
            #expect(await eventually(within: 8) { sink.frames.count >= 3 }, "\(flip): \(sink.frames.count) frames")
            let after = await rig.headend.firstPictures.mapValues(\.keyframesTaken)
            let used = after.filter { $0.value != before[$0.key] ?? 0 }.keys.map(\.description)
            #expect(used == [format.description], "\(flip): keyframe taken by \(used)")
            // Shown by the decoder once bound, or before it was (its decoder was built for the flip).
            let decoder = await rig.headend.decoder(feed: feed)
            let early = await rig.headend.pending[feed]?.showedEarlyPicture == true
            #expect(decoder?.showedFirstPicture == true || early, "\(flip): the keyframe decoded on its own came first")
            if whileBuilt { #expect(early, "\(flip): the picture was shown while the decoder was built") }
            let frames = sink.frames
            if frames.count >= 2 {
                let d = difference(frames[0], frames[1])
                #expect(d < 0.5, "\(flip): the first picture is the decoder's first frame (mean difference \(d))")
            }
            await rig.headend.deactivate(feed: feed)
        }

        /// A cold flip decodes the first keyframe it gets on its own too: the channel's decoder
        /// would give that picture out only once the frames after it arrive live (1-3 frame
        /// periods). The picture is the decoder's first frame, for H.264, 10-bit HEVC in PQ and
        /// MPEG-2 (whose warm flips go without).
        @Test func aColdFlipShowsItsFirstKeyframeDecodedOnItsOwn() async throws {
            let progressive = Self.smallProgressive
            let mpeg2 = Self.smallMPEG2
            let rig = try await Rig([progressive, Self.smallHEVCPQ, mpeg2], target: DecodeTarget(width: 640, height: 360))
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            try await rig.colourTablesReady()
            let formats = try rig.headend.sources.map { PictureFormat(caps: try #require($0.cache.videoCaps)) }
            // Every channel stopped: their formats stay known, and so do their decoders.
            await rig.headend.setPolicy(.none)
            await rig.headend.applyPolicy(current: nil, last: nil)
            #expect(await eventually(within: 5) { rig.headend.sources.allSatisfy { $0.state == .cold } }, "states: \(Self.states(rig.headend))")
            await rig.expectFirstPictureDecoders(for: formats, "first-picture decoders of the stopped channels' formats: ")
            for index in [0, 1, 2] {
                let before = await rig.headend.firstPictures.mapValues(\.keyframesTaken)
                try await Self.flipShowsItsKeyframeDecodedOnItsOwn(rig, channel: index, format: formats[index], path: .cold,
                                                                   before: before, flip: "channel \(index + 1), cold")
            }
            await rig.stop()
        }

        /// The first cold flip to a family (H.264, then MPEG-2) on a head-end that has seen none:
        /// its ingest plugs the video's parser when the programme table comes, and the head-end
        /// builds a first-picture decoder for the family then, so it is ready when the keyframe
        /// comes (each sender stops a few frames into a GOP and goes on as the flip starts: the
        /// keyframe is 0.8 s or more away).
        @Test func theFirstColdFlipToAFamilyHasItsFirstPictureDecoderReadyByItsKeyframe() async throws {
            let rig = try await Rig([Self.smallProgressive, Self.smallMPEG2], target: DecodeTarget(width: 640, height: 360))
            await rig.headend.setPolicy(.none)
            for (index, family) in [(0, VideoFamily.h264), (1, .mpeg2)] {
                let sender = rig.senders[index]
                sender.pauseAfterNextKeyframe(frames: 5)
                #expect(await eventually(within: 8) { sender.isPausedAfterKeyframe })
                let before = await rig.headend.firstPictures.mapValues(\.keyframesTaken)
                #expect(!before.keys.contains { $0.family == family }, "no \(family.displayName) first-picture decoder before the flip: \(before.keys)")
                sender.resume()
                try await Self.flipShowsItsKeyframeDecodedOnItsOwn(rig, channel: index, format: PictureFormat(anyOf: family), path: .cold,
                                                                   before: before, flip: "channel \(index + 1), the first \(family.displayName) channel, cold")
            }
            await rig.stop()
        }

        /// A flip whose decoder must be built (no spare of its family is ready) shows its keyframe
        /// decoded on its own meanwhile, for MPEG-2 too, whose decoder gives the keyframe out at
        /// once: building the decoder is what it would wait for.
        @Test func aFlipWithoutASpareShowsItsKeyframeWhileItsDecoderIsBuilt() async throws {
            let progressive = Self.smallProgressive
            let mpeg2 = Self.smallMPEG2
            let rig = try await Rig([progressive, mpeg2], target: DecodeTarget(width: 640, height: 360))
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            await rig.headend.applyPolicy(current: nil, last: nil)
            let formats = try rig.headend.sources.map { PictureFormat(caps: try #require($0.cache.videoCaps)) }
            await rig.expectFirstPictureDecoders(for: formats, "first-picture decoders, MPEG-2 among them: ")
            for index in [0, 1] {
                #expect(await eventually(within: 3) { await rig.headend.firstPictures.values.allSatisfy(\.isReady) })
                let before = await rig.headend.firstPictures.mapValues(\.keyframesTaken)
                await rig.headend.dropSpares()
                try await Self.flipShowsItsKeyframeDecodedOnItsOwn(rig, channel: index, format: formats[index], path: .warm,
                                                                   before: before, flip: "channel \(index + 1), no spare", whileBuilt: true)
            }
            await rig.stop()
        }

        /// The channels next in line (up and down from the one on screen, wrapping) have their
        /// keyframes decoded ahead: a flip there has its first picture on the sink before
        /// `activate` returns, whatever the codec, and it is the picture the channel's decoder
        /// then gives out first.
        @Test func channelsNextInLineHaveTheirFirstPictureReadyBeforeTheFlip() async throws {
            let (interlaced, hevc) = (Self.smallInterlaced, Self.smallHEVCPQ)
            let mpeg2 = Self.smallMPEG2
            let rig = try await Rig([interlaced, hevc, mpeg2], target: DecodeTarget(width: 640, height: 360))
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            try await rig.colourTablesReady()
            // Channel 1 (position 0) is on screen: 2 and 3 are next in line.
            #expect(Headend.likelyNext(current: 0, last: nil, count: 3) == [1, 2])
            let ready = await eventually(within: 8) { await Set(rig.headend.picturesAhead.keys) == [1, 2] }
            let ahead = await rig.headend.picturesAhead.keys.sorted()
            #expect(ready, "pictures ahead of positions \(ahead)")
            for index in [1, 2] {
                // The sender holds still a few frames after a keyframe, so the keyframe decoded
                // ahead is the one the flip starts from (a keyframe arriving between the check and
                // the flip has its own picture decoded a few tens of milliseconds later).
                let sender = rig.senders[index]
                sender.pauseAfterNextKeyframe(frames: 5)
                #expect(await eventually(within: 8) { sender.isPausedAfterKeyframe })
                let source = rig.headend.sources[index]
                let decodedAhead = await eventually(within: 5) {
                    guard let start = source.cache.startKeyframe() else { return false }
                    return await rig.headend.pictureAhead(of: source, keyframe: start.entry.buffer) != nil
                }
                #expect(decodedAhead, "channel \(index + 1): its newest keyframe decoded ahead")
                let sink = FirstFrames()
                let (feed, path) = try await rig.headend.activate(rig.channels[index], sink: sink)
                sender.resume()
                #expect(path == .warm)
                #expect(sink.frames.count >= 1, "channel \(index + 1): the first picture was on the sink when the flip returned")
                #expect(await eventually(within: 5) { sink.frames.count >= 3 }, "channel \(index + 1): \(sink.frames.count) frames")
                let decoder = await rig.headend.decoder(feed: feed)
                #expect(decoder?.showedFirstPicture == true)
                let frames = sink.frames
                if frames.count >= 2 {
                    let d = Self.difference(frames[0], frames[1])
                    #expect(d < 0.5, "channel \(index + 1): the picture decoded ahead is the decoder's first frame (mean difference \(d))")
                }
                await rig.headend.deactivate(feed: feed)
            }
            await rig.stop()
        }

        @Test func theChannelsLikelyNextAreTheNeighboursAndTheLast() {
            #expect(Headend.likelyNext(current: 5, last: 2, count: 10) == [6, 4, 2])
            #expect(Headend.likelyNext(current: 9, last: nil, count: 10) == [0, 8])
            #expect(Headend.likelyNext(current: 0, last: 1, count: 10) == [1, 9])
            #expect(Headend.likelyNext(current: 0, last: 0, count: 2) == [1])
            #expect(Headend.likelyNext(current: nil, last: 3, count: 10).isEmpty)
            #expect(Headend.likelyNext(current: 0, last: nil, count: 1).isEmpty)
        }

        /// A lineup of several codec families keeps a spare decoder for each it uses.
        @Test func spareDecodersCoverTheFamiliesInUse() async throws {
            let mpeg2 = Self.smallMPEG2
            var h264 = ClipFormat.hd720
            h264.bitrateKbps = 1000
            h264.seconds = 3
            let rig = try await Rig([mpeg2, h264, ClipFormat.radio(.ac3)])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(Self.states(rig.headend))")
            let wanted: Set<ChannelDecoder.Codec> = [.init(video: .mpeg2, audio: .mp2), .common, .init(video: .none, audio: .ac3)]
            let ready = await eventually(within: 8) {
                let codecs = await rig.headend.spares.map(\.codec)
                return wanted.allSatisfy { w in codecs.contains { $0.serves(w) } }
            }
            let spares = await rig.headend.spares.map(\.codec.description)
            #expect(ready, "spares: \(spares)")
            // A flip binds the ready spare of its family.
            let spare = await rig.headend.spares.first { $0.codec.serves(.init(video: .mpeg2, audio: .mp2)) }
            let recorder = Recorder()
            let (feed, _) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            let bound = await rig.headend.decoder(feed: feed)
            #expect(spare != nil && bound === spare, "the MPEG-2 flip took the MPEG-2 spare")
            #expect(await eventually(within: 5) { recorder.frames > 5 })
            await rig.stop()
        }
    }
}
