import Foundation
import Recordings

extension Player {
    /// Tells the event stream what the recordings did (`recording-*` events). Any thread.
    public nonisolated func publishRecording(_ notice: RecordingNotice) {
        hub.publish(.recording(notice))
    }

    /// Says on screen what a viewer must know of the recordings: one that failed, and a
    /// conflict that leaves a recording unrecorded. Started and stopped ones stay quiet.
    public func sayRecording(_ notice: RecordingNotice, titles: [RecordingID: String] = [:]) {
        guard let line = Self.recordingLine(notice, titles: titles) else { return }
        showMessage(line)
    }

    /// `● Not recorded: The News (pool tuner has 2 streams)`, `● Recording failed: …`; nil for the quiet ones.
    static func recordingLine(_ notice: RecordingNotice, titles: [RecordingID: String]) -> String? {
        switch notice {
        case .failed(let r):
            return "● Recording failed: \(r.programme.title)" + (r.error.map { " — \($0)" } ?? "")
        case .conflict(let c) where !c.notRecorded.isEmpty:
            let lost = c.notRecorded.map { titles[$0] ?? $0.rawValue }.joined(separator: ", ")
            let choose = c.options.isEmpty ? "" : " · l to choose"
            return "● Not recorded: \(lost) (\(c.pool) has \(c.limit) stream\(c.limit == 1 ? "" : "s") at \(ProgrammeSummary.time(c.start)))\(choose)"
        case .started, .stopped, .deleted, .conflict:
            return nil
        }
    }
}
