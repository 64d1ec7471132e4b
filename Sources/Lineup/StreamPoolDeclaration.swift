/// A pool of streams a lineup names (YAML `pools:`): every source URL that starts with `match`
/// shares `streams` streams (an HDHomeRun's tuners, an IPTV account's connections). A pool
/// without `streams` has its limit learned.
///
/// ```yaml
/// pools:
///   - name: HDHomeRun
///     match: http://192.168.1.20:5004/
///     streams: 4
///     bandwidth: 20Mbps      # optional: most its warm channels may take together
/// ```
public struct StreamPoolDeclaration: Sendable, Hashable {
    public var name: String
    public var match: String
    public var streams: Int?
    /// Most its warm channels may take from the link together (`bandwidth`); nil: no limit.
    public var bandwidth: BitRate?
    /// The line it was written on (1-based; 0 when made in code).
    public var line: Int
    /// `streams` is the source's own word (an HDHomeRun's `TunerCount`, an IPTV account's
    /// `max_connections`), not the lineup author's.
    public var toldBySource = false

    public init(name: String, match: String, streams: Int?, bandwidth: BitRate? = nil, line: Int = 0) {
        self.name = name
        self.match = match
        self.streams = streams
        self.bandwidth = bandwidth
        self.line = line
    }

    /// The most streams a pool may be given: beyond it a number is a typo, not a tuner count.
    public static let maxStreams = 1024
}
