import Foundation
import GStreamer
import Lineup
import Logging

/// Channel logos as overlays for the output, decoded once per channel and placed by
/// `LogoPlacement`. A missing or unreadable logo is reported once; the channel plays without.
public actor LogoOverlays {
    private let placement: LogoPlacement
    private let width: Int
    private let height: Int
    private let cache: LogoCache
    private let logger: Logger
    private var overlays: [String: Overlay?] = [:]

    public init(placement: LogoPlacement, width: Int, height: Int, cache: LogoCache, logger: Logger) {
        self.placement = placement
        self.width = width
        self.height = height
        self.cache = cache
        self.logger = logger
    }

    /// The logo overlay of `channel`, or nil when it has none or it cannot be read.
    public func overlay(for channel: Channel) async -> Overlay? {
        if let known = overlays[channel.id] { return known }
        var result: Overlay?
        if let logo = channel.logo {
            do {
                let path = try await cache.localPath(for: logo)
                let box = placement.box(width: width, height: height)
                let image = try ImageCodec.decode(file: path, maxWidth: box.width, maxHeight: box.height)
                let origin = placement.origin(logoWidth: image.width, logoHeight: image.height, width: width, height: height)
                result = Overlay(image: image, x: origin.x, y: origin.y, opacity: placement.opacity)
            } catch {
                logger.warning("channel \(channel.number) \(channel.name): logo \(logo) not shown: \(error)")
            }
        }
        overlays[channel.id] = .some(result)
        return result
    }
}
