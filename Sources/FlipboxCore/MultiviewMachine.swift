/// The multiview's rules: the page of channels in the grid, the highlight, and when the grid is
/// drawn. A pure value driven by the player (Player+Overlays.swift), which refreshes the tiles'
/// pictures, renders and covers the output as it says.
///
/// The grid shows the page of `grid` x `grid` channels holding the channel on screen; the
/// highlight moves inside it, wrapping. Every change is drawn; the player replaces a draw under
/// way with the newer one, so an older, slower draw never covers a newer one.
public struct MultiviewMachine: Sendable, Hashable {
    /// The grids offered: 2x2, 3x3 and 4x4.
    public static let grids = MultiviewGrid.grids

    /// An open grid.
    public struct Page: Sendable, Hashable {
        public var grid: Int
        /// The lineup index of the first cell.
        public var first: Int
        /// Cells in use (the last page may not fill the grid).
        public var count: Int
        /// The lineup index of the highlighted channel.
        public var highlight: Int
        /// The cells' pictures, as last refreshed.
        public var tiles: [MultiviewTile] = []

        /// The lineup indices in the grid.
        public var channels: Range<Int> { first..<(first + count) }

        public init(grid: Int, first: Int, count: Int, highlight: Int, tiles: [MultiviewTile] = []) {
            self.grid = grid
            self.first = first
            self.count = count
            self.highlight = highlight
            self.tiles = tiles
        }
    }

    public enum Action: Sendable, Hashable {
        /// Refresh the tiles' pictures now and then every `refresh`, until stopped.
        case startRefreshing
        /// Stop refreshing (and any draw under way).
        case stopRefreshing
        /// Render `page` and cover the output with it, replacing a draw under way.
        case draw(Page)
        /// Uncover the output (the channel underneath never stopped).
        case uncover
    }

    public private(set) var page: Page?

    public init() {}

    public var isOpen: Bool { page != nil }

    /// Opens a `grid` on the page holding `current` of `channelCount` channels.
    public mutating func open(grid: Int, current: Int, channelCount: Int) -> [Action] {
        let perPage = grid * grid
        let first = (current / perPage) * perPage
        page = Page(grid: grid, first: first, count: min(perPage, channelCount - first), highlight: current)
        return [.startRefreshing]
    }

    /// Closes it.
    public mutating func close() -> [Action] {
        guard page != nil else { return [] }
        page = nil
        return [.stopRefreshing, .uncover]
    }

    /// Moves the highlight; nil when the grid is not open.
    public mutating func move(_ move: MultiviewMove) -> [Action]? {
        guard var page else { return nil }
        page.highlight = Self.moved(page.highlight - page.first, move, grid: page.grid, count: page.count) + page.first
        self.page = page
        return [.draw(page)]
    }

    /// Fresh pictures for the cells (in cell order).
    public mutating func refreshed(_ tiles: [MultiviewTile]) -> [Action] {
        guard var page else { return [] }
        page.tiles = tiles
        self.page = page
        return [.draw(page)]
    }

    /// Cell `i` moved once in a `grid` of `count` cells, wrapping.
    public static func moved(_ i: Int, _ move: MultiviewMove, grid: Int, count: Int) -> Int {
        let rows = (count + grid - 1) / grid
        var (row, column) = (i / grid, i % grid)
        switch move {
        case .up: row = (row - 1 + rows) % rows
        case .down: row = (row + 1) % rows
        case .left: column = (column - 1 + grid) % grid
        case .right: column = (column + 1) % grid
        }
        return min(count - 1, row * grid + column)
    }
}
