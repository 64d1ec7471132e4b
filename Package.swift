// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Flipbox",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "flipbox", targets: ["flipbox"]),
        // The bench, soak and replay harness with its loopback channels; not needed on a box.
        .executable(name: "flipbox-lab", targets: ["flipbox-lab"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // The only C: GStreamer, GLib and a shim for their macros.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0 gstreamer-audio-1.0 gstreamer-tag-1.0 gstreamer-mpegts-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev", "libgstreamer-plugins-bad1.0-dev"])]
        ),
        // Linux input devices (evdev ioctls, records) and inotify; only Control/Box/EvdevSyscalls.swift imports it.
        .systemLibrary(name: "CEvdev"),
        // libcec's C interface (HDMI-CEC); only Control/Box/CECSyscalls.swift imports it.
        .systemLibrary(name: "CCEC", providers: [.apt(["libcec-dev"])]),
        // libdrm's mode-setting queries; only Display/DRMSyscalls.swift imports it.
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        // A full-screen X11 window with no cursor (libX11 loaded at run time); only
        // Output/FullscreenWindow.swift imports it.
        .systemLibrary(name: "CX11", providers: [.apt(["libx11-dev"])]),
        // libavformat/libavcodec/libavutil (FFmpeg); only MediaProbe/FFmpegReader.swift imports it.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat libavcodec libavutil",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]),
        // Failure<Code>, the domain's errors as a code and a message, and the kinds they map to;
        // depends on nothing, so every module below Lineup can say its errors the same way.
        .target(name: "Failures"),
        // Probing files and URLs with libavformat: streams, codecs, colour, HDR, chapters.
        .target(name: "MediaProbe", dependencies: ["CFFmpeg"]),
        // Displays: DRM devices, connectors and modes, and choosing one for the kms output.
        .target(name: "Display", dependencies: ["CDRM", "Failures"]),
        // Safe Swift wrapper: the only module that imports CGStreamer.
        .target(name: "GStreamer", dependencies: ["CGStreamer", "Failures"]),
        // Live MPEG-TS senders on loopback (hostile on request): for flipbox-lab and the tests only.
        .target(name: "LoopbackStreams"),
        // The box's pure machines, ids and rules (a feed from request to first picture, bearer
        // tokens, ...): no GStreamer, no clock, no tasks; their tests link none.
        .target(name: "FlipboxCore", dependencies: ["Lineup"]),
        // Pure parsers of what sources send inside their streams (HLS playlists, WebVTT, MPEG-TS
        // tables, PES timestamps, LOAS frames, CEA-608 captions, AC-3 for IEC 61937), safe on
        // any bytes; no GStreamer, so the fuzzers and their tests link none.
        .target(name: "MediaFormats", dependencies: ["Failures"]),
        // Pure Swift lineup model and parsers; re-exports Failures to the modules above it.
        .target(name: "Lineup", dependencies: ["Failures", .product(name: "Yams", package: "Yams")]),
        // libxml2's streaming reader and zlib's inflate, for the XMLTV guide only.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // XMLTV guide: streamed import into SQLite, matching to the lineup, now/next queries.
        .target(name: "Guide", dependencies: [
            "Lineup", "CLibXML2", "CZlib",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Recordings without media: rules, the schedule and its conflicts over pools, the store
        // (SQLite), file names and retention. No GStreamer; the recorder lives in Headend.
        .target(name: "Recordings", dependencies: [
            "Guide", "Lineup",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Parental rules (ratings), the PIN (scrypt from swift-crypto) and its wrong-PIN rule.
        .target(name: "Parental", dependencies: [
            "Failures",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ]),
        .target(name: "Headend", dependencies: [
            "GStreamer", "FlipboxCore", "Lineup", "MediaFormats", "MediaProbe", .product(name: "Logging", package: "swift-log"),
        ]),
        // Runs the recordings: the schedule from the guide and rules, the Recorder at each start,
        // its events into the store.
        .target(name: "RecordingWiring", dependencies: [
            "Recordings", "Headend", "Lineup", "Guide", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Output", dependencies: [
            "GStreamer", "Lineup", "Headend", "CX11", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Switcher", dependencies: [
            "GStreamer", "Lineup", "Headend", "Output", "Parental", "Recordings", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Control", dependencies: [
            "FlipboxCore", "Lineup", "Headend", "Output", "Switcher", "Guide", "Parental", "CEvdev", "CCEC", "ConnectionGuard",
            "Recordings", "RecordingWiring",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "Yams", package: "Yams"),
        ]),
        // Connection caps and request-head timeouts of both HTTP servers (slowloris), and who a
        // request is from (address ranges, forwarded headers from declared proxies).
        .target(name: "ConnectionGuard", dependencies: [
            "Lineup",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ]),
        // Where lineups come from besides a file: HDHomeRun tuners (discovery, discover.json,
        // lineup.json), M3U URLs kept fresh and kept for a start without network.
        .target(name: "Providers", dependencies: [
            "Lineup",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Yams", package: "Yams"),
        ]),
        // The head-end's serving side: HTTP MPEG-TS, HLS, HDHomeRun emulation, lineup and guide exports.
        .target(name: "Serve", dependencies: [
            "FlipboxCore", "Headend", "Lineup", "Guide", "GStreamer", "Parental", "ConnectionGuard", "Providers",
            "Recordings",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // What both executables' commands share: the warm and picture option groups, the logger,
        // the process's CPU and memory, the control API client of `clip` and `record`, the entry
        // point, and finding the other executable beside this one.
        .target(name: "CommandSupport", dependencies: [
            "FlipboxCore", "Headend", "Lineup",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The product: links no test fixtures (no LoopbackStreams); `flipbox bench|soak|replay`
        // run the flipbox-lab beside it.
        .executableTarget(name: "flipbox", dependencies: [
            "FlipboxCore", "Lineup", "GStreamer", "Headend", "Output", "Switcher", "Control", "Guide", "Parental", "Serve", "Display", "MediaProbe", "Providers", "ConnectionGuard",
            "Recordings", "RecordingWiring", "CommandSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        // The harness: bench (flips, head-end, timeshift, catch-up, pools, recordings), soak and
        // replay, on loopback channels; runs `flipbox play` (beside it) as a child for the soak.
        .executableTarget(name: "flipbox-lab", dependencies: [
            "CommandSupport", "FlipboxCore", "Lineup", "GStreamer", "Headend", "Output", "Switcher", "Serve", "LoopbackStreams",
            "Recordings", "RecordingWiring",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Helpers shared by the test targets.
        .target(name: "TestSupport", dependencies: ["FlipboxCore", "LoopbackStreams"], path: "Tests/TestSupport"),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer", "TestSupport"]),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "Lineup", "LoopbackStreams", "TestSupport", "Headend", "GStreamer", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "LineupTests", dependencies: ["Lineup", "TestSupport", "LoopbackStreams"], exclude: ["Fixtures"]),
        .testTarget(name: "ParentalTests", dependencies: ["Parental"]),
        .testTarget(name: "MediaFormatsTests", dependencies: ["MediaFormats"]),
        .testTarget(name: "FlipboxCoreTests", dependencies: ["FlipboxCore", "Lineup"]),
        .testTarget(name: "GuideTests", dependencies: ["Guide", "Lineup", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "RecordingsTests", dependencies: ["Recordings", "Guide", "Lineup"]),
        .testTarget(name: "HeadendTests", dependencies: ["Headend", "GStreamer", "Lineup", "MediaFormats", "TestSupport", "LoopbackStreams", "MediaProbe"]),
        .testTarget(name: "RecordingWiringTests", dependencies: [
            "RecordingWiring", "Recordings", "Headend", "GStreamer", "Lineup", "Guide", "TestSupport", "LoopbackStreams", "FlipboxCore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "OutputTests", dependencies: ["Output", "Headend", "GStreamer", "Lineup", "TestSupport"]),
        .testTarget(name: "SwitcherTests", dependencies: ["Switcher", "Lineup", "MediaFormats", "Headend", "GStreamer", "Output", "Parental", "TestSupport", "LoopbackStreams", "Recordings"]),
        .testTarget(name: "ControlTests", dependencies: [
            "Control", "Switcher", "Output", "Lineup", "Guide", "Parental", "Headend", "GStreamer", "TestSupport", "ConnectionGuard", "Recordings",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "ServeTests", dependencies: [
            "Serve", "Headend", "GStreamer", "Lineup", "Guide", "TestSupport", "LoopbackStreams", "Parental", "ConnectionGuard", "Providers",
            "Recordings",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Yams", package: "Yams"),
        ]),
        .testTarget(name: "DisplayTests", dependencies: ["Display"]),
        .testTarget(name: "MediaProbeTests", dependencies: ["MediaProbe", "TestSupport"]),
        .testTarget(name: "FlipboxTests", dependencies: ["GStreamer", "Lineup", "LoopbackStreams", "TestSupport"]),
    ]
)

// libFuzzer targets over the parsers of untrusted input (`make fuzz`), only when asked for:
// they need `-sanitize=fuzzer`, which the normal build does not use.
if Context.environment["FLIPBOX_FUZZ"] != nil {
    package.targets += [
        .target(name: "CFuzzer", path: "Fuzz/CFuzzer"),
        .executableTarget(name: "fuzz-lineup", dependencies: ["Lineup", "CFuzzer"], path: "Fuzz/fuzz-lineup"),
        .executableTarget(name: "fuzz-xmltv", dependencies: ["Guide", "CFuzzer"], path: "Fuzz/fuzz-xmltv"),
        .executableTarget(name: "fuzz-hls", dependencies: ["MediaFormats", "CFuzzer"], path: "Fuzz/fuzz-hls"),
        .executableTarget(name: "fuzz-media", dependencies: ["MediaFormats", "CFuzzer"], path: "Fuzz/fuzz-media"),
        .executableTarget(name: "fuzz-splice", dependencies: ["GStreamer", "CFuzzer"], path: "Fuzz/fuzz-splice"),
        .executableTarget(name: "fuzz-http", dependencies: ["ConnectionGuard", "CFuzzer"], path: "Fuzz/fuzz-http"),
        .executableTarget(name: "fuzz-sources", dependencies: ["Providers", "Lineup", "CFuzzer"], path: "Fuzz/fuzz-sources"),
    ]
}
