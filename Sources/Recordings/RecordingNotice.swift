/// What the recordings tell the rest of the box, in order (the API's event stream, the screen).
public enum RecordingNotice: Sendable, Hashable {
    case started(Recording)
    case stopped(Recording)
    case failed(Recording)
    case conflict(RecordingConflict)
    /// Retention or a request deleted a recording and its files.
    case deleted(Recording, reason: String)
}
