import Foundation
import GStreamer
import Headend
import Lineup
import Output

/// One recording as the on-screen list shows it.
public struct RecordingListEntry: Sendable, Hashable {
    public var id: String
    /// `Title - S01E02 - Subtitle`.
    public var title: String
    public var channel: ChannelNumber
    /// What was recorded: the first part's start to the last part's end (or now).
    public var start: Date
    public var end: Date
    public var description: String?
    /// Still being written.
    public var recording: Bool
    /// Where it was left; nil when never, or watched to its end.
    public var resume: Date?

    public init(id: String, title: String, channel: ChannelNumber, start: Date, end: Date, description: String?,
                recording: Bool, resume: Date?) {
        self.id = id
        self.title = title
        self.channel = channel
        self.start = start
        self.end = end
        self.description = description
        self.recording = recording
        self.resume = resume
    }
}

/// Whether the list of recordings is open, and what it focuses.
public struct RecordingListStatus: Sendable, Hashable, Codable {
    public var open: Bool
    public var count: Int
    public var focused: String?
    public var title: String?
    public init(open: Bool, count: Int, focused: String?, title: String?) {
        self.open = open
        self.count = count
        self.focused = focused
        self.title = title
    }
}

/// Where the list is: its recordings (newest first) and the focused one. A pure value.
struct RecordingListNavigator: Sendable {
    var entries: [RecordingListEntry]
    var focus = 0

    var firstRow: Int { focus / RecordingListPicture.rowsPerPage * RecordingListPicture.rowsPerPage }
    var focused: RecordingListEntry? { entries.indices.contains(focus) ? entries[focus] : nil }

    mutating func move(_ move: GuideMove) {
        guard !entries.isEmpty else { return }
        let page = RecordingListPicture.rowsPerPage
        let next = switch move {
        case .up: focus - 1
        case .down: focus + 1
        case .pageUp, .left: focus - page
        case .pageDown, .right: focus + page
        }
        focus = min(entries.count - 1, max(0, next))
    }
}

// The list of recordings on screen: a key (`l`, a remote's PVR or List key) opens it over the
// picture (the output's cover, as the guide), up and down move, OK plays the focused one where
// it was left (Player+RecordingPlayback.swift), Back closes it. It is read from the shelf when
// it opens.
extension Player {
    @discardableResult
    public func openRecordingList() -> RecordingListStatus {
        closeGuide()
        closeMultiview()
        let entries = (recordingShelf?.listing() ?? []).sorted { ($0.start, $0.id) > ($1.start, $1.id) }
        recordingList = RecordingListNavigator(entries: entries)
        drawRecordingList()
        return recordingListStatus()
    }

    @discardableResult
    public func closeRecordingList() -> RecordingListStatus {
        let wasOpen = recordingList != nil
        recordingList = nil
        cancelJob(.recordingList)
        if wasOpen { output.setCover(nil) }
        return recordingListStatus()
    }

    @discardableResult
    public func toggleRecordingList() -> RecordingListStatus {
        recordingList == nil ? openRecordingList() : closeRecordingList()
    }

    @discardableResult
    public func moveRecordingList(_ move: GuideMove) throws(OverlayError) -> RecordingListStatus {
        guard var list = recordingList else { throw OverlayError(.notOpen, "the list of recordings is not open; open it with l") }
        list.move(move)
        recordingList = list
        drawRecordingList()
        return recordingListStatus()
    }

    /// OK: plays the focused recording where it was left, and closes the list.
    public func playFocusedRecording() async throws(TimeshiftFailure) -> TimeshiftStatus {
        guard let list = recordingList else { throw TimeshiftFailure(.nothingShown, "the list of recordings is not open; open it with l") }
        guard let entry = list.focused else { throw TimeshiftFailure(.unknownRecording, "there are no recordings yet") }
        closeRecordingList()
        return try await playRecording(entry.id)
    }

    public func recordingListStatus() -> RecordingListStatus {
        guard let list = recordingList else { return RecordingListStatus(open: false, count: 0, focused: nil, title: nil) }
        return RecordingListStatus(open: true, count: list.entries.count, focused: list.focused?.id, title: list.focused?.title)
    }

    /// `Tue 20:00 · 5 BBC One · 58 min`.
    nonisolated static func recordingDetail(_ entry: RecordingListEntry, channelName: String?) -> String {
        let day = entry.start.formatted(.dateTime.weekday(.abbreviated))
        let seconds = max(0, Int(entry.end.timeIntervalSince(entry.start).rounded()))
        let length = seconds < 60 ? "\(seconds) s" : "\((seconds + 30) / 60) min"
        let channel = [entry.channel.description, channelName].compactMap { $0 }.joined(separator: " ")
        return "\(day) \(ProgrammeSummary.time(entry.start)) · \(channel) · \(length)" + (entry.recording ? " · recording" : "")
    }

    private func drawRecordingList() {
        guard let list = recordingList else { return }
        let page = Array(list.entries.dropFirst(list.firstRow).prefix(RecordingListPicture.rowsPerPage))
        let channels = Dictionary(lineup.channels.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
        let focus = list.focus - list.firstRow, count = list.entries.count
        let position = count == 0 ? "none" : "\(list.focus + 1) of \(count)"
        let logoCache = self.logoCache, output = self.output
        startJob(.recordingList) { player in
            var items: [RecordingListContent.Item] = []
            for entry in page {
                let channel = channels[entry.channel]
                let logo: String? = if let l = channel?.logo { try? await logoCache.localPath(for: l) } else { nil }
                let length = entry.end.timeIntervalSince(entry.start)
                let watched = entry.resume.map { length > 0 ? $0.timeIntervalSince(entry.start) / length : 0 }
                items.append(RecordingListContent.Item(title: entry.title, detail: Self.recordingDetail(entry, channelName: channel?.name),
                                                       description: entry.description ?? "", watched: watched,
                                                       recording: entry.recording, logoPath: logo))
            }
            let content = RecordingListContent(items: items, focus: focus, position: position, now: Date())
            guard let frame = await Self.render({ try RecordingListPicture.frame(content, format: output.videoFormat) }) else { return }
            await player.landRecordingList(frame)
        }
    }

    private func landRecordingList(_ frame: Buffer) {
        guard !Task.isCancelled, recordingList != nil else { return }
        output.setCover(frame)
    }
}
