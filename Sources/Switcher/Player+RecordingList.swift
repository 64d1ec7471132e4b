import Foundation
import GStreamer
import Headend
import Lineup
import Output
import Recordings

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
    /// The guide's picture of the programme, shown instead of the channel's logo.
    public var picture: LogoReference?

    public init(id: String, title: String, channel: ChannelNumber, start: Date, end: Date, description: String?,
                recording: Bool, resume: Date?, picture: LogoReference? = nil) {
        self.id = id
        self.title = title
        self.channel = channel
        self.start = start
        self.end = end
        self.description = description
        self.recording = recording
        self.resume = resume
        self.picture = picture
    }
}

/// One thing a viewer can do about a conflict between recordings, as the list offers it.
public struct ConflictChoice: Sendable, Hashable {
    public var option: ConflictOption
    /// `Record The News on 7 Two instead`, `Drop Film`.
    public var label: String
    /// `Not recorded: The News · tuner has 2 streams from 20:00`.
    public var conflict: String
    public init(option: ConflictOption, label: String, conflict: String) {
        self.option = option
        self.label = label
        self.conflict = conflict
    }

    /// The options of `conflicts` in words, best first within each conflict (another channel,
    /// then drops, lowest priority first); an option offered by two conflicts is listed once.
    /// `title` names a recording, `channelName` a channel.
    public static func choices(for conflicts: [RecordingConflict], title: (RecordingID) -> String?,
                               channelName: (ChannelNumber) -> String?) -> [ConflictChoice] {
        var seen: Set<ConflictOption> = []
        var out: [ConflictChoice] = []
        for c in conflicts {
            func name(_ id: RecordingID) -> String { title(id) ?? id.rawValue }
            let streams = "\(c.pool) has \(c.limit) stream\(c.limit == 1 ? "" : "s") at \(ProgrammeSummary.time(c.start))"
            let conflict = c.notRecorded.isEmpty
                ? "\(c.recordings.count) recordings want a stream · \(streams)"
                : "Not recorded: \(c.notRecorded.map(name).joined(separator: ", ")) · \(streams)"
            for option in c.options where seen.insert(option).inserted {
                let label = switch option {
                case .otherChannel(let r, let channel, _):
                    "Record \(name(r)) on \([channel.description, channelName(channel)].compactMap { $0 }.joined(separator: " ")) instead"
                case .drop(let r):
                    "Drop \(name(r))"
                }
                out.append(ConflictChoice(option: option, label: label, conflict: conflict))
            }
        }
        return out
    }
}

/// Whether the list of recordings is open, and what it focuses.
public struct RecordingListStatus: Sendable, Hashable, Codable {
    public var open: Bool
    /// Recordings listed.
    public var count: Int
    /// The focused recording's id and title (nil on a choice).
    public var focused: String?
    public var title: String?
    /// Conflict choices listed above the recordings.
    public var choices: Int
    /// The focused choice (`Drop Film`); nil on a recording.
    public var choice: String?
    public init(open: Bool, count: Int, focused: String?, title: String?, choices: Int = 0, choice: String? = nil) {
        self.open = open
        self.count = count
        self.focused = focused
        self.title = title
        self.choices = choices
        self.choice = choice
    }
}

/// What OK did in the list: a recording plays, or a conflict was settled (the list stays open,
/// read again).
public enum RecordingListSelection: Sendable {
    case playing(TimeshiftStatus)
    case settled(said: String, list: RecordingListStatus)
}

/// One row of the list: a conflict choice (listed first) or a recording.
enum RecordingListRow: Sendable, Hashable {
    case choice(ConflictChoice)
    case recording(RecordingListEntry)
}

/// Where the list is: the conflict choices, then the recordings (newest first), and the focused
/// row. A pure value.
struct RecordingListNavigator: Sendable {
    var rows: [RecordingListRow]
    var focus = 0

    init(choices: [ConflictChoice], entries: [RecordingListEntry]) {
        rows = choices.map(RecordingListRow.choice) + entries.map(RecordingListRow.recording)
    }

    var firstRow: Int { focus / RecordingListPicture.rowsPerPage * RecordingListPicture.rowsPerPage }
    var focusedRow: RecordingListRow? { rows.indices.contains(focus) ? rows[focus] : nil }
    var focused: RecordingListEntry? { if case .recording(let e) = focusedRow { e } else { nil } }
    var focusedChoice: ConflictChoice? { if case .choice(let c) = focusedRow { c } else { nil } }
    var recordings: Int { rows.count { if case .recording = $0 { true } else { false } } }
    var choices: Int { rows.count - recordings }

    mutating func move(_ move: GuideMove) {
        guard !rows.isEmpty else { return }
        let page = RecordingListPicture.rowsPerPage
        let next = switch move {
        case .up: focus - 1
        case .down: focus + 1
        case .pageUp, .left: focus - page
        case .pageDown, .right: focus + page
        }
        focus = min(rows.count - 1, max(0, next))
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
        recordingList = readRecordingList()
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

    /// OK: plays the focused recording where it was left and closes the list; on a conflict
    /// choice, takes it, says what was done and shows the list again as it is now.
    public func selectInRecordingList() async throws -> RecordingListSelection {
        guard let list = recordingList else { throw TimeshiftFailure(.nothingShown, "the list of recordings is not open; open it with l") }
        if let choice = list.focusedChoice {
            guard let shelf = recordingShelf else { throw TimeshiftFailure(.unknownRecording, "this box keeps no recordings") }
            let said: String
            do { said = try await shelf.resolve(choice) } catch {
                showMessage("Not done: \(error)")
                throw error
            }
            showMessage(said)
            if recordingList != nil {
                var fresh = readRecordingList()
                fresh.focus = min(list.focus, max(0, fresh.rows.count - 1))
                recordingList = fresh
                drawRecordingList()
            }
            return .settled(said: said, list: recordingListStatus())
        }
        guard let entry = list.focused else { throw TimeshiftFailure(.unknownRecording, "there are no recordings yet") }
        closeRecordingList()
        return .playing(try await playRecording(entry.id))
    }

    public func recordingListStatus() -> RecordingListStatus {
        guard let list = recordingList else { return RecordingListStatus(open: false, count: 0, focused: nil, title: nil) }
        return RecordingListStatus(open: true, count: list.recordings, focused: list.focused?.id, title: list.focused?.title,
                                   choices: list.choices, choice: list.focusedChoice?.label)
    }

    /// The shelf's conflict choices and recordings (newest first), as the list shows them.
    private func readRecordingList() -> RecordingListNavigator {
        let entries = (recordingShelf?.listing() ?? []).sorted { ($0.start, $0.id) > ($1.start, $1.id) }
        return RecordingListNavigator(choices: recordingShelf?.conflictChoices() ?? [], entries: entries)
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
        let page = Array(list.rows.dropFirst(list.firstRow).prefix(RecordingListPicture.rowsPerPage))
        let channels = Dictionary(lineup.listedChannels.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
        let focus = list.focus - list.firstRow, count = list.rows.count
        let position = count == 0 ? "none" : "\(list.focus + 1) of \(count)"
        let logoCache = self.logoCache, output = self.output
        startJob(.recordingList) { player in
            var items: [RecordingListContent.Item] = []
            for row in page {
                switch row {
                case .choice(let choice):
                    items.append(RecordingListContent.Item(title: choice.label, detail: choice.conflict, description: "",
                                                           watched: nil, recording: false, logoPath: nil, choice: true))
                case .recording(let entry):
                    let channel = channels[entry.channel]
                    // The programme's own picture, else the channel's logo.
                    var picture: String? = nil
                    if let p = entry.picture { picture = try? await logoCache.localPath(for: p) }
                    if picture == nil, let l = channel?.logo { picture = try? await logoCache.localPath(for: l) }
                    let length = entry.end.timeIntervalSince(entry.start)
                    let watched = entry.resume.map { length > 0 ? $0.timeIntervalSince(entry.start) / length : 0 }
                    items.append(RecordingListContent.Item(title: entry.title, detail: Self.recordingDetail(entry, channelName: channel?.name),
                                                           description: entry.description ?? "", watched: watched,
                                                           recording: entry.recording, logoPath: picture))
                }
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
