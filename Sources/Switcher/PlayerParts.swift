import Foundation
import Headend
import Lineup
import Logging
import Output
import Parental

/// What a player drives, made outside it: the output, the head-end with its channels, the
/// cards, the logo cache, the remembered channel and the PIN gate.
///
/// The player makes none of them; the executable (`play`, `bench`) makes the parts and keeps
/// the ones it needs itself (the clip library and the republishing server take the head-end,
/// the display watch takes the output) instead of reaching through the player.
public struct PlayerParts: Sendable {
    public let output: OutputPipeline
    public let headend: Headend
    public let cards: InterstitialCards
    public let logoCache: LogoCache
    /// Where the last channel is remembered; nil remembers nothing.
    public let store: LastChannelStore?
    /// Checks PINs under the wrong-PIN rule; nil without a state directory.
    public let pinGate: PINGate?
    /// The head-end's and the output's reports, in one ordered stream the player drains.
    public let reports: MediaReports

    /// The standard parts for `lineup` and `options`: an output of the options' sink and size,
    /// a head-end with their warm policy and budget, the cards of their template directory.
    public static func make(lineup: Lineup, options: PlayerOptions, logoCache: LogoCache = LogoCache(), logger: Logger) throws -> PlayerParts {
        let reports = MediaReports()
        let logos = LogoOverlays(placement: options.logo, width: options.width, height: options.height, cache: logoCache, logger: logger)
        let output = try OutputPipeline(sink: options.sink, width: options.width, height: options.height, fps: options.fps, kms: options.kms,
                                        audioDevice: options.audioDevice, fullscreen: options.fullscreen, levelAudio: options.normalizeAudio,
                                        reports: reports, logos: logos, logger: logger)
        let headend = Headend(lineup: lineup, policy: options.warm, budget: options.warmBudget,
                              target: DecodeTarget(width: options.width, height: options.height, fps: options.fps,
                                                   passthrough: options.audioPassthrough.families), logger: logger, reports: reports,
                              pools: options.pools)
        let pinDirectory = options.pinDirectory ?? options.stateFile.map { ($0 as NSString).deletingLastPathComponent }
        return PlayerParts(
            output: output, headend: headend,
            cards: InterstitialCards(directory: options.interstitials, format: output.videoFormat, logger: logger),
            logoCache: logoCache,
            store: options.stateFile.map(LastChannelStore.init(path:)),
            pinGate: pinDirectory.map(PINGate.init(directory:)),
            reports: reports)
    }
}
