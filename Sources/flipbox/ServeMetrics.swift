import Control
import Serve

extension StreamServer {
    /// The head-end's serving figures for `/metrics`: clients streaming now, channels served,
    /// clients dropped for falling behind.
    func metricFigures() -> [MetricFigure] {
        [
            MetricFigure("serve_clients", help: "Clients streaming a channel from this box", value: Double(clientCount)),
            MetricFigure("serve_channels", help: "Channels streamed to at least one client", value: Double(servedChannels.count)),
            MetricFigure("serve_clients_dropped", unit: "total", help: "Clients dropped for falling too far behind",
                         value: Double(droppedClients), kind: .total),
        ]
    }
}
