/// The device, connector and mode the kms output uses: chosen from what the devices report, by
/// `--connector` and `--mode`. Pure: tested with made-up devices.
public struct DisplayChoice: Sendable, Hashable, CustomStringConvertible {
    public var card: DisplayCard
    public var connector: DisplayConnector
    public var mode: DisplayMode

    public init(card: DisplayCard, connector: DisplayConnector, mode: DisplayMode) {
        self.card = card
        self.connector = connector
        self.mode = mode
    }

    /// `HDMI-A-1 on /dev/dri/card0 (i915) at 1920x1080@60`.
    public var description: String { "\(connector.name) on \(card.path) (\(card.driver)) at \(mode)" }

    /// kmssink sets the first mode of the frame's size that the connector lists; when that is not
    /// `mode` (another refresh of the same size listed before it), the mode the display really gets.
    public var modeKMSSinkSets: DisplayMode {
        connector.modes.first { $0.width == mode.width && $0.height == mode.height } ?? mode
    }

    /// Chooses among `cards` (in device order): the connector named `connectorName` (any case),
    /// else the first one with a display connected; then the mode `request` asks for.
    /// `problems` (devices that could not be read) are named when nothing is found.
    public static func choose(cards: [DisplayCard], connectorName: String? = nil, mode request: ModeRequest,
                              problems: [DisplayError] = [], directory: String = "/dev/dri") throws(DisplayError) -> DisplayChoice {
        guard !cards.isEmpty else {
            if let problem = problems.first { throw problem }
            throw DisplayError(.noDevice, "no display device in \(directory): no graphics driver with mode setting is loaded (on a Raspberry Pi enable vc4-kms-v3d; on a PC check that the GPU's driver is loaded, `lsmod | grep drm`)")
        }
        let card: DisplayCard, connector: DisplayConnector
        if let connectorName {
            let matches = cards.flatMap { card in card.connectors.filter { $0.name.lowercased() == connectorName.lowercased() }.map { (card, $0) } }
            guard let (c, conn) = matches.first else {
                throw DisplayError(.noSuchConnector, "--connector \(connectorName): no such connector; there are \(summary(of: cards))")
            }
            guard conn.connection != .disconnected, !conn.modes.isEmpty else {
                throw DisplayError(.noConnectedDisplay, "--connector \(connectorName) on \(c.path): no display is connected to it (is the TV on and its cable in?)")
            }
            (card, connector) = (c, conn)
        } else {
            guard let (c, conn) = cards.lazy.compactMap({ card in card.connectedConnectors.first.map { (card, $0) } }).first else {
                throw DisplayError(.noConnectedDisplay, "no display is connected: \(summary(of: cards)) (is the TV on and its cable in?)")
            }
            (card, connector) = (c, conn)
        }
        return DisplayChoice(card: card, connector: connector, mode: try pick(request, on: connector, of: card))
    }

    static func pick(_ request: ModeRequest, on connector: DisplayConnector, of card: DisplayCard) throws(DisplayError) -> DisplayMode {
        switch request {
        case .automatic:
            guard let mode = connector.preferredMode else {
                throw DisplayError(.noSuchMode, "\(connector.name) on \(card.path) lists no modes")
            }
            return mode
        case .size(let width, let height, let refresh):
            let sized = connector.modes.filter { $0.width == width && $0.height == height }
            let progressive = sized.filter { !$0.interlaced }
            let candidates = progressive.isEmpty ? sized : progressive
            let best: DisplayMode?
            if let refresh {
                best = candidates.filter { abs($0.refreshMillihertz - refresh) <= 1000 }
                    .min { abs($0.refreshMillihertz - refresh) < abs($1.refreshMillihertz - refresh) }
            } else {
                best = candidates.max { $0.refreshMillihertz < $1.refreshMillihertz }
            }
            guard let best else {
                throw DisplayError(.noSuchMode, "--mode \(request): \(connector.name) on \(card.path) has no such mode; it has \(modeList(connector.modes))")
            }
            return best
        }
    }

    /// `card0 (i915): HDMI-A-1 disconnected, DP-1 connected` for messages.
    static func summary(of cards: [DisplayCard]) -> String {
        cards.map { card in
            let connectors = card.connectors.isEmpty ? "no connectors"
                : card.connectors.map { "\($0.name) \($0.connection.rawValue)" }.joined(separator: ", ")
            return "\(card.path) (\(card.driver)): \(connectors)"
        }.joined(separator: "; ")
    }

    /// The distinct modes, in the display's order, e.g. `1920x1080@60 (preferred), 1280x720@60`.
    public static func modeList(_ modes: [DisplayMode], limit: Int = 12) -> String {
        var seen = Set<String>(), names: [String] = []
        for mode in modes where seen.insert(mode.description).inserted {
            names.append(mode.preferred ? "\(mode) (preferred)" : mode.description)
        }
        let shown = names.prefix(limit).joined(separator: ", ")
        return names.count > limit ? "\(shown) and \(names.count - limit) more" : shown
    }
}
