import Headend

extension Player {
    /// Tells the event stream how a clip stands (`clip` events). Any thread.
    public nonisolated func publishClip(_ job: ClipJob) {
        hub.publish(.clip(job))
    }
}
