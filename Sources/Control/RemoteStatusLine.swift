import FlipboxCore
import Switcher

/// The one-line texts the keyboard remote prints: a flip result, or what is playing.
public enum RemoteStatusLine {
    /// `→ 7 Red Test  (warm, 18 ms)`, `✗ 12: unknown channel 12`, `↷ 5 News: superseded`.
    /// `request` names the target when the result carries no channel.
    public static func flip(_ result: FlipResult, request: FlipRequest) -> String {
        let target = result.channel?.number ?? targetName(request)
        switch result.outcome {
        case .completed:
            let name = result.channel.map { "\($0.number) \($0.name)" } ?? target
            var details: [String] = []
            if let path = result.path { details.append(path.rawValue) }
            if let ms = result.latencyMilliseconds { details.append("\(Int(ms.rounded())) ms") }
            return details.isEmpty ? "→ \(name)" : "→ \(name)  (\(details.joined(separator: ", ")))"
        case .failed:
            return "✗ \(target): \(result.error ?? "failed")"
        case .superseded:
            let name = result.channel.map { "\($0.number) \($0.name)" } ?? target
            return "↷ \(name): superseded"
        }
    }

    /// `ℹ 7 Red Test · 1280x720@30 kms · up 1h 02m 03s`.
    public static func info(_ status: PlayerStatus) -> String {
        let channel = status.channel.map { "\($0.number) \($0.name)" } ?? "no channel"
        let output = status.output
        let seconds = max(0, status.uptime.components.seconds)
        let uptime = seconds >= 3600
            ? "\(seconds / 3600)h \(twoDigits((seconds / 60) % 60))m \(twoDigits(seconds % 60))s"
            : "\(seconds / 60)m \(twoDigits(seconds % 60))s"
        return "ℹ \(channel) · \(output.width)x\(output.height)@\(output.fps) \(output.sink) · up \(uptime)"
    }

    private static func targetName(_ request: FlipRequest) -> String {
        switch request {
        case .tune(let number): number.description
        case .tuneID(let id): id
        case .next, .previous, .recall: request.description
        }
    }

    private static func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
