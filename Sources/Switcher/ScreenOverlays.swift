import Foundation
import Lineup
import Output

/// The state of a player's interactive overlays (info banner, picture-in-picture, multiview).
///
/// Held by the `Player` (an actor extension cannot store it). Thread-safe: a lock guards every
/// field, and the output's layer is set under the same lock, so a hidden banner or a closed
/// window can never be drawn again by a render that finishes late.
public final class ScreenOverlays: @unchecked Sendable {
    let lock = NSLock()

    // Banner
    /// Bumped by every show and hide; a render only lands if its generation is still current.
    var bannerGeneration = 0
    var bannerShown = false
    /// The banner was up when a flip started: bring it back for the new channel.
    var bannerResume = false

    // Channels, for the PiP's default (the last channel)
    var currentChannel: Int?
    var previousChannel: Int?

    // Picture-in-picture
    var pipWindow: PictureInPictureWindow?
    var pipChannel: Int?
    var pipFeed: UInt?
    var pipPlacement = PictureInPicturePlacement()
    var pipGeneration = 0

    // Multiview
    struct Multiview {
        var grid: Int
        var first: Int
        var count: Int
        var highlight: Int
        var tiles: [MultiviewTile] = []
    }
    var multiview: Multiview?
    /// Bumped by every open and close; refreshes of an older multiview stop.
    var multiviewGeneration = 0
    /// Draws are numbered; a slower, older draw never replaces a newer one.
    var multiviewDraws = 0
    var multiviewLanded = 0

    init() {}

    /// Records a completed flip to `channel` (the previous one becomes the last channel).
    func flipped(to channel: Int) {
        lock.withLock {
            if currentChannel != channel {
                previousChannel = currentChannel
                currentChannel = channel
            }
        }
    }
}
