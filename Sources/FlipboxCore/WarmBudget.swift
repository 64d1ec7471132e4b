import Foundation
import Lineup

/// Limits on the warm set: how many channels may run at once and how many bytes of GOP cache
/// they may hold in total, plus the most one channel's GOP may take.
///
/// The count includes the channel on screen (it runs an ingest and holds a GOP cache like the
/// warm ones). Lineup `settings`: `warm-max-channels: 8`, `warm-memory: 256MB`,
/// `warm-channel-memory: 16MB`; command line: `--warm-max`, `--warm-memory`.
public struct WarmBudget: Sendable, Hashable, CustomStringConvertible {
    /// Most channels running at once (on screen included); nil: no limit.
    public var maxChannels: Int?
    /// Most bytes of GOP cache over all running channels; nil: no limit.
    public var memoryBytes: Int?
    /// Most bits a second the warm channels together may take from their links, as their ingests
    /// measure it (the channels shown count first); nil: no limit (`warm-bandwidth`).
    public var bandwidth: Int?
    /// Most bytes one channel's GOP may take. A channel whose keyframe interval needs more is
    /// not kept warm, and its state says so.
    public var channelBytes: Int
    /// Most channels the process's limit on open files leaves room for; nil: not limited.
    /// Each running channel holds sockets, pipes and wake-up descriptors (about 6 measured
    /// with UDP sources; `filesPerChannel` assumed), and the API, decoders and pictures need
    /// `reservedFiles` more.
    public var openFileChannels: Int?

    public static let filesPerChannel = 8
    public static let reservedFiles = 256

    /// The channels a limit of `limit` open files leaves room for.
    public static func channels(forFileLimit limit: Int) -> Int {
        max(1, (limit - reservedFiles) / filesPerChannel)
    }

    /// The per-channel GOP limit when none is configured.
    public static let defaultChannelBytes = 32 << 20
    /// What a channel not measured yet is assumed to need (a 2 s GOP at 4 Mb/s).
    public static let assumedGOPBytes = 1 << 20
    /// The rate a channel not measured yet is assumed to take (an HD broadcast channel).
    public static let assumedBitrate = 4_000_000

    public static let unlimited = WarmBudget()

    public init(maxChannels: Int? = nil, memoryBytes: Int? = nil, channelBytes: Int = WarmBudget.defaultChannelBytes,
                bandwidth: Int? = nil) {
        self.maxChannels = maxChannels
        self.memoryBytes = memoryBytes
        self.bandwidth = bandwidth
        self.channelBytes = channelBytes
    }

    /// The bytes a single channel's GOP cache may hold: the per-channel limit, and never more
    /// than the whole memory budget.
    public var cacheLimit: Int { min(channelBytes, memoryBytes ?? .max) }

    /// What is wrong with a budget setting, for the person who wrote it.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var setting: String
        public var value: String
        public var expected: String
        public var description: String { "\(setting) \(problem)" }
        /// What is wrong, without the setting's name: `'12x' is not a size such as 256MB`.
        public var problem: String { "'\(value)' is not \(expected)" }
    }

    /// The budget the lineup's settings give; settings not written leave no limit.
    public init(_ settings: LineupSettings) {
        self.init(maxChannels: settings.warmMaxChannels, memoryBytes: settings.warmMemory?.bytes,
                  channelBytes: settings.warmChannelMemory?.bytes ?? Self.defaultChannelBytes,
                  bandwidth: settings.warmBandwidth?.bitsPerSecond)
    }

    /// Parses a channel count of at least 1.
    public static func channelCount(_ text: String, setting: String) throws -> Int {
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 1 else {
            throw Invalid(setting: setting, value: text, expected: "a number of channels of at least 1")
        }
        return n
    }

    /// Parses a size: `256MB`, `1.5G`, `512k`, `1048576` (units are powers of 1024).
    public static func bytes(_ text: String, setting: String) throws -> Int {
        guard let n = parseBytes(text), n > 0 else {
            throw Invalid(setting: setting, value: text, expected: "a size such as 256MB, 1G or 512KB")
        }
        return n
    }

    /// `256MB`, `256M`, `256MiB`, `1.5G`, `512k`, `4096` -> bytes; nil when malformed
    /// (the grammar of `ByteSize`).
    public static func parseBytes(_ text: String) -> Int? { ByteSize(text)?.bytes }

    /// `256 MB` style, for messages.
    public static func format(bytes: Int) -> String {
        let mb = Double(bytes) / 1_048_576
        if mb >= 10 { return "\(Int(mb.rounded())) MB" }
        if mb >= 1 { return "\((mb * 10).rounded() / 10) MB" }
        return "\(Int((Double(bytes) / 1024).rounded())) KB"
    }

    public var description: String {
        var parts: [String] = []
        if let maxChannels { parts.append("at most \(maxChannels) channels") }
        if let memoryBytes { parts.append("\(Self.format(bytes: memoryBytes)) of GOP cache") }
        if let bandwidth { parts.append("\(BitRate.format(bitsPerSecond: bandwidth)) of warm streams") }
        if channelBytes != Self.defaultChannelBytes { parts.append("\(Self.format(bytes: channelBytes)) per channel") }
        return parts.isEmpty ? "no budget" : parts.joined(separator: ", ")
    }
}
