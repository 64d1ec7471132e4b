import FlipboxCore
import Foundation

// What the box is watched on, hour by hour (`ViewingHistory`): each channel's time on screen is
// counted when the viewer leaves it, and the plan ranks the channels usually watched at this
// hour after the ones the keys lead to, the last channel and favourites.
extension Headend {
    /// The channel on screen changed to `current` (lineup position; nil: none): the one left is
    /// counted. (Kept by `saveHistoryIfDue`, off the flip's way.)
    func screenChanged(to current: Int?, at now: Date = Date()) {
        let id = current.flatMap { lineup.channels.indices.contains($0) ? lineup.channels[$0].id : nil }
        guard id != watching?.channel else { return }
        if let watching { history.watched(watching.channel, from: watching.since, to: now, calendar: .current) }
        watching = id.map { ($0, now) }
        historyChanged = true
    }

    /// Writes the history when it changed and the last write is `historySaveInterval` old (the
    /// once-a-second plan check, not a flip).
    func saveHistoryIfDue(at now: Date = Date()) {
        guard historyChanged, historySaved.map({ now.timeIntervalSince($0) >= Self.historySaveInterval }) ?? true else { return }
        saveHistory(at: now)
    }

    /// The channels usually watched around now (lineup positions, most watched first).
    func usualChannels(at now: Date = Date()) -> [Int] {
        let lineup = self.lineup
        let slotOfID = Dictionary(lineup.listed.map { (lineup.channels[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        let ids = history.usual(at: now, calendar: .current, among: lineup.listedChannels.map(\.id))
        return ids.compactMap { slotOfID[$0] }
    }

    /// Counts the channel on screen so far and writes the history (shutdown).
    func closeHistory() {
        screenChanged(to: nil)
        saveHistory(at: Date())
    }

    private func saveHistory(at now: Date) {
        historySaved = now
        historyChanged = false
        guard let file = poolBook.settings.historyFile else { return }
        do { try file.save(history) } catch {
            logger.warning("cannot keep the viewing history in \(file.path) (the warm plan forgets what is watched when): \(error)")
        }
    }

    static let historySaveInterval: TimeInterval = 300
}
