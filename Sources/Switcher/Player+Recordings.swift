import Recordings

extension Player {
    /// Tells the event stream what the recordings did (`recording-*` events). Any thread.
    public nonisolated func publishRecording(_ notice: RecordingNotice) {
        hub.publish(.recording(notice))
    }
}
