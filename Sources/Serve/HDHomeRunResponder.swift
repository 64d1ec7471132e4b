import Providers

/// The answers of an emulated HDHomeRun tuner to discovery and get/set requests. Pure: packets
/// in, packets out.
///
/// Discovery answers a request for tuners (or any type) and for this device's id (or any id)
/// with the device type, id, tuner count, base URL and lineup URL. Get/set answers the
/// read-only variables below; anything else gets an `ERROR:` message, as a real device does.
struct HDHomeRunResponder: Sendable {
    let device: HDHomeRunDevice
    /// The channel numbers a tuner can be set to (for `help` and `/lineup/...`).
    let channelCount: Int

    /// The reply to a discovery request, nil when the request is not for this device.
    func discoverReply(to request: HDHomeRunPacket, baseURL: String) -> HDHomeRunPacket? {
        guard request.packetType == .discoverRequest else { return nil }
        let type = request.uint32(.deviceType) ?? HDHomeRunPacket.wildcard
        let id = request.uint32(.deviceID) ?? HDHomeRunPacket.wildcard
        guard type == HDHomeRunPacket.wildcard || type == HDHomeRunPacket.deviceTypeTuner,
              id == HDHomeRunPacket.wildcard || id == device.deviceID else { return nil }
        var reply = HDHomeRunPacket(.discoverReply)
        reply.append(.deviceType, uint32: HDHomeRunPacket.deviceTypeTuner)
        reply.append(.deviceID, uint32: device.deviceID)
        reply.append(.tunerCount, [UInt8(clamping: device.tunerCount)])
        reply.append(.baseURL, Array(baseURL.utf8))
        reply.append(.lineupURL, Array("\(baseURL)/lineup.json".utf8))
        return reply
    }

    /// The reply to a get/set request (always one: an error message when it cannot be answered).
    func getSetReply(to request: HDHomeRunPacket, baseURL: String) -> HDHomeRunPacket {
        var reply = HDHomeRunPacket(.getSetReply)
        guard request.packetType == .getSetRequest, let name = request.string(.getSetName) else {
            reply.append(.errorMessage, string: "ERROR: not a get/set request")
            return reply
        }
        reply.append(.getSetName, string: name)
        if request.value(.getSetValue) != nil {
            reply.append(.errorMessage, string: "ERROR: \(name) cannot be set on a Flipbox head-end")
        } else if let value = value(of: name, baseURL: baseURL) {
            reply.append(.getSetValue, string: value)
        } else {
            reply.append(.errorMessage, string: "ERROR: unknown getset variable")
        }
        return reply
    }

    private func value(of name: String, baseURL: String) -> String? {
        switch name {
        case "help":
            return ([
                "Supported configuration options:",
                "/lineup/location <url>",
                "/sys/copyright", "/sys/debug", "/sys/features", "/sys/hwmodel", "/sys/model", "/sys/version",
            ] + (0..<device.tunerCount).flatMap { ["/tuner\($0)/channel <channel>", "/tuner\($0)/status"] }).joined(separator: "\n")
        case "/sys/model": return device.firmwareName
        case "/sys/hwmodel": return device.modelNumber
        case "/sys/version": return device.firmwareVersion
        case "/sys/copyright": return "Flipbox head-end, speaking the HDHomeRun protocol"
        case "/sys/features": return "channelmap: none\nmodulation: none\nauto-modulation: none"
        case "/sys/debug": return "mem: ok\nloop: ok\nt0: ok"
        case "/lineup/location": return "\(baseURL)/lineup.json"
        default:
            guard let tuner = Self.tuner(in: name), tuner < device.tunerCount else { return nil }
            if name.hasSuffix("/channel") { return "none" }
            if name.hasSuffix("/status") { return "ch=none lock=none ss=0 snq=0 seq=0 bps=0 pps=0" }
            return nil
        }
    }

    /// The tuner index of `/tunerN/...`.
    private static func tuner(in name: String) -> Int? {
        guard name.hasPrefix("/tuner") else { return nil }
        let digits = name.dropFirst(6).prefix { $0.isNumber }
        return Int(digits)
    }
}
