import Hummingbird
import Lineup

/// `GET /hls/{number}/index.m3u8` (a live playlist of about 2 s segments cut at keyframes, a
/// sliding window of 6; a cold channel's playlist answers once its first segment is complete)
/// and `GET /hls/{number}/{sequence}.ts` (a segment; 404 once it slid out of the window).
struct HLSRoutes {
    let hls: HLSServer
    /// Parental locks: a locked channel's playlist and segments are refused (403) to clients
    /// without the serve token.
    let locks: ServeLockJudge

    /// How long a playlist request waits for a cold channel's first segment.
    static let firstSegmentTimeout: Duration = .seconds(20)

    func register(on router: Router<ServeRequestContext>) {
        router.get("/hls/{number}/index.m3u8") { _, context in
            let channel = try channel(context.parameters.get("number"))
            try locks.check(channel, context: context)
            let segmenter = try await hls.segmenter(for: channel)
            if segmenter.isEmpty {
                let ready = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { await segmenter.waitForFirstSegment(); return true }
                    group.addTask { try? await Task.sleep(for: Self.firstSegmentTimeout); return false }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first && !segmenter.isEmpty
                }
                guard ready else {
                    throw ServeError(.failed, "channel \(channel.number) sent no segment within \(Self.firstSegmentTimeout)")
                }
            }
            return ServeResponse.text(segmenter.playlist(), contentType: "application/vnd.apple.mpegurl")
        }
        router.get("/hls/{number}/{segment}.ts") { _, context in
            let channel = try channel(context.parameters.get("number"))
            try locks.check(channel, context: context)
            guard let sequence = context.parameters.get("segment").flatMap({ Int($0) }),
                  let segmenter = await hls.existingSegmenter(for: channel), let data = segmenter.segment(sequence) else {
                throw ServeError(.unknownChannel, "no such segment of channel \(channel.number) (it may have left the playlist's window)")
            }
            return Response(status: .ok, headers: [.contentType: "video/mp2t", .cacheControl: "max-age=60"], body: ResponseBody(byteBuffer: data))
        }
    }

    private func channel(_ text: String?) throws(ServeError) -> Channel {
        try ServeError.channel(text, in: hls.streams.lineup)
    }
}
