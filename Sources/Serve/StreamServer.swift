import Foundation
import Headend
import Lineup
import Logging

/// Why a client could not be served.
public struct ServeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unknownChannel = "unknown-channel", tooManyClients = "too-many-clients", stopped, failed
        /// Every tuner of the HDHomeRun device is in use (its clients read `805 All Tuners In Use`).
        case tunersInUse = "tuners-in-use"
        /// The channel or the programme on it is locked by the parental rules (403).
        case locked
    }
    public var code: Code
    public var message: String
    /// For `locked`: the channel's number and why it is locked (in the JSON answer beside `error`).
    public var channel: String?
    public var reason: String?
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }

    /// The channel a path names by number (`/stream/7.ts`, `/hls/9.1/…`, `/auto/v7`): the one
    /// reading of a channel number in a served path. `unknownChannel` when the text is no
    /// number, or no channel has it.
    static func channel(_ text: String?, in lineup: Lineup) throws(ServeError) -> Channel {
        let number: ChannelNumber
        do { number = try ChannelNumber.inPath(text) } catch { throw ServeError(.unknownChannel, error.message) }
        guard let channel = lineup.channel(number: number) else { throw ServeError(.unknownChannel, "no channel \(number) in the lineup") }
        return channel
    }
}

/// The head-end's serving side: one `ServedChannel` (ingest tap → muxer → fanout) per channel
/// that has clients, shared by all of them, and the clients themselves.
///
/// A client of a cold channel starts the channel (the tap does); a served channel stays running
/// while it has subscribers and `linger` after the last one leaves (a viewer flipping back finds
/// it warm), then its tap closes and the warm plan may let it go cold. At most `maxClients`
/// clients at once; beyond that `open` throws `tooManyClients`.
public actor StreamServer {
    public struct Settings: Sendable {
        /// Most HTTP TS clients at once, over all channels.
        public var maxClients: Int
        /// A client whose unsent stream passes this is dropped (8 MB: about 20 s of a 3 Mb/s channel).
        public var clientQueueBytes: Int
        /// How long a channel stays served after its last client.
        public var linger: Duration

        public init(maxClients: Int = 256, clientQueueBytes: Int = 8 << 20, linger: Duration = .seconds(5)) {
            self.maxClients = maxClients
            self.clientQueueBytes = clientQueueBytes
            self.linger = linger
        }
    }

    public nonisolated let headend: Headend
    public nonisolated let settings: Settings
    private let logger: Logger
    private var served: [String: ServedChannel] = [:]
    private var clients: [UInt64: StreamClient] = [:]
    private var tunerClients: Set<UInt64> = []
    /// Channels whose HLS takes a client place (and a tuner place when the HLS side has a tuner limit).
    private var hlsPlaces: Set<String> = []
    private var hlsTuners: Set<String> = []
    private var nextClient: UInt64 = 1
    private var stopped = false
    private var drops = 0

    public init(headend: Headend, settings: Settings = Settings(), logger: Logger) {
        self.headend = headend
        self.settings = settings
        self.logger = logger
    }

    public nonisolated var lineup: Lineup { headend.lineup }

    /// Clients connected now.
    public var clientCount: Int { clients.count }
    /// Clients dropped for being too slow since the start.
    public var droppedClients: Int { drops }
    /// Channels being muxed now, by number.
    public var servedChannels: [ChannelNumber] { served.values.map(\.channel.number).sorted() }

    /// How many times the muxer of a served channel built its pipeline (nil: not served): 1 for
    /// a channel whose codecs never changed, however many clients it has.
    func muxerBuilds(of channel: Channel) -> Int? { served[channel.id]?.muxer.builds }

    /// The muxed stream of a served channel (nil when it is not served): for HLS and multicast.
    func fanout(for channel: Channel) -> TransportStreamFanout? { served[channel.id]?.fanout }

    /// A new client of `channel`: it gets the cached keyframe on, then live. `tunerLimit`: the
    /// client takes one of that many tuners (HDHomeRun routes). `onDrop` runs once, on the
    /// muxer's thread, if the client is dropped for being too slow (close its connection there).
    public func open(_ channel: Channel, peer: String, tunerLimit: Int? = nil,
                     onDrop: @escaping @Sendable () -> Void = {}) async throws(ServeError) -> StreamClient {
        guard !stopped else { throw ServeError(.stopped, "the head-end is stopping") }
        try checkPlaces(tunerLimit: tunerLimit)
        let id = nextClient
        nextClient += 1
        let logger = self.logger
        let client = StreamClient(id: id, channel: channel, peer: peer, maxQueuedBytes: settings.clientQueueBytes) { client, bound in
            logger.warning("client \(client.peer) of channel \(client.channel.number) fell more than \(bound >> 10) KiB behind and was dropped")
            onDrop()
            Task { await self.noteDrop(client) }
        }
        clients[id] = client
        if tunerLimit != nil { tunerClients.insert(id) }
        do {
            let servedChannel = try await serve(channel)
            servedChannel.fanout.subscribe(client)
            servedChannel.subscribers += 1
        } catch {
            clients[id] = nil
            tunerClients.remove(id)
            throw error
        }
        logger.info("client \(peer) watches channel \(channel.number) \(channel.name) (\(clients.count) client(s))")
        return client
    }

    /// Throws when no client place (HTTP clients and HLS channels together), or no tuner
    /// (HDHomeRun streams and HLS channels together) when `tunerLimit` is given, is free.
    private func checkPlaces(tunerLimit: Int?) throws(ServeError) {
        guard clients.count + hlsPlaces.count < settings.maxClients else {
            throw ServeError(.tooManyClients, """
                this head-end already serves \(settings.maxClients) clients (\(hlsPlaces.count) of them HLS channels); try again later
                """)
        }
        if let tunerLimit, tunerClients.count + hlsTuners.count >= tunerLimit {
            throw ServeError(.tunersInUse, "all \(tunerLimit) tuners are in use (\(hlsTuners.count) by HLS)")
        }
    }

    /// `channel`'s HLS takes a client place, and a tuner place when `tunerLimit` is given.
    /// Throws `tooManyClients` or `tunersInUse` when there is none.
    func takeHLSPlace(_ channel: Channel, tunerLimit: Int?) throws(ServeError) {
        guard !stopped else { throw ServeError(.stopped, "the head-end is stopping") }
        guard !hlsPlaces.contains(channel.id) else { return }
        try checkPlaces(tunerLimit: tunerLimit)
        hlsPlaces.insert(channel.id)
        if tunerLimit != nil { hlsTuners.insert(channel.id) }
    }

    /// `channel`'s HLS ended: its places are free.
    func giveBackHLSPlace(_ channel: Channel) {
        hlsPlaces.remove(channel.id)
        hlsTuners.remove(channel.id)
    }

    /// HLS channels holding a place now.
    public var hlsChannelCount: Int { hlsPlaces.count }

    private func noteDrop(_ client: StreamClient) {
        drops += 1
        release(client)
    }

    /// Forgets `client` (its connection closed or it was dropped). Idempotent.
    public func release(_ client: StreamClient) {
        guard clients.removeValue(forKey: client.id) != nil else { return }
        tunerClients.remove(client.id)
        logger.info("client \(client.peer) left channel \(client.channel.number) after \(client.bytesQueued >> 10) KiB (\(clients.count) client(s))")
        client.finish()
        if let servedChannel = served[client.channel.id] {
            unsubscribe(client, from: servedChannel)
        }
    }

    /// Holds `channel` served without a client of its own (an HLS playlist being read), returning
    /// its fanout; `unsubscribe` with the same subscriber ends the hold.
    func subscribe(_ subscriber: any TransportStreamSubscriber, to channel: Channel) async throws(ServeError) -> TransportStreamFanout {
        let servedChannel = try await serve(channel)
        servedChannel.fanout.subscribe(subscriber)
        servedChannel.subscribers += 1
        return servedChannel.fanout
    }

    func unsubscribe(_ subscriber: any TransportStreamSubscriber, from channel: Channel) {
        guard let servedChannel = served[channel.id] else { return }
        unsubscribe(subscriber, from: servedChannel)
    }

    private func unsubscribe(_ subscriber: any TransportStreamSubscriber, from servedChannel: ServedChannel) {
        servedChannel.fanout.unsubscribe(subscriber)
        servedChannel.subscribers -= 1
        if servedChannel.subscribers <= 0 { scheduleLinger(servedChannel) }
    }

    private func scheduleLinger(_ servedChannel: ServedChannel) {
        servedChannel.linger?.cancel()
        let linger = settings.linger
        servedChannel.linger = Task {
            try? await Task.sleep(for: linger)
            guard !Task.isCancelled else { return }
            self.endIfIdle(servedChannel)
        }
    }

    private func endIfIdle(_ servedChannel: ServedChannel) {
        guard servedChannel.subscribers <= 0, served[servedChannel.channel.id] === servedChannel else { return }
        served[servedChannel.channel.id] = nil
        servedChannel.close()
        logger.info("channel \(servedChannel.channel.number) is no longer served")
    }

    /// The served channel for `channel`, started when it is not served yet.
    private func serve(_ channel: Channel) async throws(ServeError) -> ServedChannel {
        if let existing = served[channel.id] {
            existing.linger?.cancel()
            existing.linger = nil
            return existing
        }
        guard let source = headend.source(for: channel) else {
            throw ServeError(.unknownChannel, "channel \(channel.number) is not in the lineup")
        }
        let fanout = TransportStreamFanout()
        let muxer = ChannelMuxer(channel: channel, fanout: fanout, hasAudioStream: { source.cache.hasAudioStream }, logger: logger)
        let servedChannel = ServedChannel(channel: channel, fanout: fanout, muxer: muxer)
        served[channel.id] = servedChannel
        servedChannel.pump = Task { await self.pump(servedChannel) }
        logger.info("serving channel \(channel.number) \(channel.name) (\(source.state))")
        return servedChannel
    }

    /// Feeds a served channel's muxer from a tap while it is served; a tap that ends (the muxer
    /// fell behind, a muxer error) is opened again after a moment.
    private func pump(_ servedChannel: ServedChannel) async {
        let channel = servedChannel.channel
        while !Task.isCancelled, !stopped, served[channel.id] === servedChannel {
            do {
                let tap = try await headend.tap(channel)
                guard !Task.isCancelled, served[channel.id] === servedChannel else {
                    tap.close()
                    return
                }
                servedChannel.tap = tap
                try await servedChannel.muxer.run(tap)
                return
            } catch TapEnd.headendStopped {
                return
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("serving channel \(channel.number): \(error); reading it again")
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Ends every client and served channel (graceful shutdown).
    public func stop() async {
        stopped = true
        for client in clients.values { client.finish(.headendStopped) }
        clients = [:]
        tunerClients = []
        hlsPlaces = []
        hlsTuners = []
        for servedChannel in served.values {
            servedChannel.close()
            await servedChannel.pump?.value
        }
        served = [:]
    }
}

/// A channel being served: its tap, muxer and fanout, and how many subscribers hold it.
/// Mutated only on the `StreamServer` actor.
final class ServedChannel: @unchecked Sendable {
    let channel: Channel
    let fanout: TransportStreamFanout
    let muxer: ChannelMuxer
    var tap: IngestTap?
    var pump: Task<Void, Never>?
    var linger: Task<Void, Never>?
    var subscribers = 0

    init(channel: Channel, fanout: TransportStreamFanout, muxer: ChannelMuxer) {
        self.channel = channel
        self.fanout = fanout
        self.muxer = muxer
    }

    func close() {
        linger?.cancel()
        pump?.cancel()
        tap?.close()
    }
}
