import Foundation
import Headend

/// Markers set over the API on the channel on screen (see `TimeshiftMarkersControl`).
extension Player {
    /// Adds a marker at `time` (nil: where the picture is) and tells the event stream.
    public func addTimeshiftMarker(at time: Date?, name: String?) async throws(TimeshiftFailure) -> TimeshiftMarker {
        guard let feed = machine.shownFeed else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
        let marker = try await headend.addTimeshiftMarker(feed: feed, at: time, name: name)
        if let status = await headend.status(feed: feed, guideMarkers: await navigationMarkers()) { hub.publish(.timeshift(status)) }
        return marker
    }

    /// Removes marker `id` and tells the event stream.
    public func removeTimeshiftMarker(id: Int) async throws(TimeshiftFailure) {
        guard let feed = machine.shownFeed else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
        try await headend.removeTimeshiftMarker(feed: feed, id: id)
        if let status = await headend.status(feed: feed, guideMarkers: await navigationMarkers()) { hub.publish(.timeshift(status)) }
    }
}
