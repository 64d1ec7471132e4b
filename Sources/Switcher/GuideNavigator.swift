import Foundation

/// A move in the on-screen guide.
public enum GuideMove: String, Sendable, Hashable, CaseIterable {
    case up, down, left, right, pageUp = "page-up", pageDown = "page-down"
}

/// Where the on-screen guide is: the focused channel (a row) and programme (a moment inside it),
/// the first row on the page and the two hours shown. A pure value: moves go in with the
/// programmes of the focused row and the time, nothing is read from a clock.
///
/// Up/Down move a row (the programme on at the focused moment is focused on the new row);
/// Left/Right move to the previous/next programme of the row (never before the one on now, or
/// on a channel whose provider keeps its past, never before its archive's start: `earliest`);
/// Page Up/Down move a page of rows. The window follows the focus in half hours.
public struct GuideNavigator: Sendable, Hashable {
    /// The time shown across.
    public static let span: TimeInterval = 7200
    /// The window moves in steps of this (and starts on one).
    public static let step: TimeInterval = 1800

    public let channelCount: Int
    public let rowsPerPage: Int
    public private(set) var row: Int
    public private(set) var firstRow: Int
    public private(set) var windowStart: Date
    /// A moment inside the focused programme.
    public private(set) var focusTime: Date

    /// Opens on `current` at `now`: the programme on now on the channel on screen is focused.
    public init(channelCount: Int, rowsPerPage: Int, current: Int, now: Date) {
        self.channelCount = max(1, channelCount)
        self.rowsPerPage = max(1, rowsPerPage)
        row = min(max(0, current), self.channelCount - 1)
        firstRow = (row / self.rowsPerPage) * self.rowsPerPage
        windowStart = Self.aligned(now)
        focusTime = now
    }

    /// The start of the half hour holding `date`.
    public static func aligned(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / step).rounded(.down) * step)
    }

    /// The rows on the page.
    public var visibleRows: Range<Int> { firstRow..<min(channelCount, firstRow + rowsPerPage) }

    /// The programme of `programmes` (one row's, in time order) that is focused: the one on at
    /// the focused moment.
    public func focused(in programmes: [ProgrammeSummary]) -> ProgrammeSummary? {
        programmes.first { $0.start <= focusTime && focusTime < $0.end }
    }

    /// Moves; `programmes` are the focused row's (for Left/Right), `now` the time, `earliest`
    /// how far back the focused row goes (its archive's start; nil: now).
    public mutating func move(_ move: GuideMove, programmes: [ProgrammeSummary], now: Date, earliest: Date? = nil) {
        switch move {
        case .up: setRow(row - 1)
        case .down: setRow(row + 1)
        case .pageUp:
            setRow(row - rowsPerPage)
            firstRow = max(0, firstRow - rowsPerPage)
            if !visibleRows.contains(row) { firstRow = (row / rowsPerPage) * rowsPerPage }
        case .pageDown:
            setRow(row + rowsPerPage)
            firstRow = min(max(0, channelCount - 1) / rowsPerPage * rowsPerPage, firstRow + rowsPerPage)
            if !visibleRows.contains(row) { firstRow = (row / rowsPerPage) * rowsPerPage }
        case .right:
            if let current = focused(in: programmes), let next = programmes.first(where: { $0.start >= current.end }) {
                focusTime = next.start
            } else if let next = programmes.first(where: { $0.start > focusTime }) {
                focusTime = next.start
            } else {
                focusTime = Self.aligned(focusTime).addingTimeInterval(Self.step)
            }
        case .left:
            var target: Date
            if let current = focused(in: programmes), let previous = programmes.last(where: { $0.end <= current.start }) {
                target = previous.start
            } else if let previous = programmes.last(where: { $0.end <= focusTime }) {
                target = previous.start
            } else {
                target = Self.aligned(focusTime).addingTimeInterval(-Self.step)
            }
            // Never into the past, unless the row's archive keeps it: the programme on now (or
            // the archive's oldest) is the first one.
            let first = min(now, earliest ?? now)
            if target < first { target = first }
            focusTime = target
        }
        follow(now: now, earliest: earliest)
    }

    /// The focus moved to a row that goes back only to `earliest` (nil: now): a focused moment
    /// before it comes to it.
    public mutating func keep(after earliest: Date?, now: Date) {
        let first = min(now, earliest ?? now)
        if focusTime < first { focusTime = now }
        follow(now: now, earliest: earliest)
    }

    /// The time passed (the guide stays open): the focus never stays in a past its row cannot
    /// play (`earliest`, nil: now).
    public mutating func tick(now: Date, earliest: Date? = nil) {
        if focusTime < min(now, earliest ?? now) { focusTime = now }
        follow(now: now, earliest: earliest)
    }

    private mutating func setRow(_ r: Int) {
        row = min(max(0, r), channelCount - 1)
        if row < firstRow { firstRow = row }
        if row >= firstRow + rowsPerPage { firstRow = row - rowsPerPage + 1 }
    }

    /// Keeps the focused moment in the window, which never starts before the half hour of now
    /// (of `earliest` when the row goes back further).
    private mutating func follow(now: Date, earliest first: Date? = nil) {
        let earliest = Self.aligned(min(now, first ?? now))
        if focusTime < windowStart { windowStart = Self.aligned(focusTime) }
        if focusTime >= windowStart.addingTimeInterval(Self.span) {
            windowStart = Self.aligned(focusTime).addingTimeInterval(-Self.step)
        }
        if windowStart < earliest { windowStart = earliest }
    }
}
