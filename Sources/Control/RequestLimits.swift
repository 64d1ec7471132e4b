/// How much the control API accepts, per request and at once. Beyond a limit the answer is a JSON
/// error saying which limit was met (docs/security.md), never a dropped connection or a crash.
public struct RequestLimits: Sendable, Hashable {
    /// The request line (`GET /api/v1/... HTTP/1.1`); longer gets 414.
    public var requestLineBytes: Int
    /// All header lines of one request together; more gets 431.
    public var headerBytes: Int
    /// A request body; larger gets 413. Only `POST /api/v1/pip` reads one (a small JSON object).
    public var bodyBytes: Int
    /// Event streams (`/api/v1/events`) open at once; one more gets 503.
    public var eventStreams: Int
    /// Flips (tune, next, previous, recall, PiP swap, multiview select) in flight at once; one more gets 503.
    public var flipsInFlight: Int
    /// Still pictures (snapshots, thumbnails) being made or waiting to be made; one more gets 503.
    public var stillImages: Int

    public init(
        requestLineBytes: Int = 8 * 1024,
        headerBytes: Int = 16 * 1024,
        bodyBytes: Int = 64 * 1024,
        eventStreams: Int = 32,
        flipsInFlight: Int = 16,
        stillImages: Int = 16
    ) {
        self.requestLineBytes = requestLineBytes
        self.headerBytes = headerBytes
        self.bodyBytes = bodyBytes
        self.eventStreams = eventStreams
        self.flipsInFlight = flipsInFlight
        self.stillImages = stillImages
    }
}
