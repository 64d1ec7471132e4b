import Foundation
import Headend

/// Markers set over the API on the channel on screen's timeshift buffer: a role of the player
/// (`PlayerControl`), like moving in time.
public protocol TimeshiftMarkersControl: Sendable {
    /// Adds a marker at `time` (nil: where the picture is), named `name` (nil: `Marker N`).
    /// Throws `.outsideBuffer` when `time` is not in the buffer, `.off`/`.nothingShown`/`.notBuffered`.
    func addTimeshiftMarker(at time: Date?, name: String?) async throws(TimeshiftFailure) -> TimeshiftMarker
    /// Removes the marker `id`; throws `.unknownMarker` when there is none.
    func removeTimeshiftMarker(id: Int) async throws(TimeshiftFailure)
}
