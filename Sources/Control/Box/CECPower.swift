/// The TV's power as HDMI-CEC tells it, and what the box does about it.
public enum CECPowerEvent: Sendable, Hashable {
    /// The TV went to standby: release the warm pool and the decoders.
    case standby
    /// The TV is back (it made us the active source, or a key came from its remote): resume the last channel.
    case resume
}

/// Turns what arrives from the CEC bus into power events, each said once: a standby while in
/// standby, or a resume while awake, is nothing. Pure: tested without an adapter.
public struct CECPower: Sendable, Hashable {
    public private(set) var standingBy = false

    public init() {}

    /// A command on the bus: `STANDBY` (0x36) from the TV (0) or to everyone (15) puts the box in standby.
    public mutating func command(initiator: Int, destination: Int, opcode: Int) -> CECPowerEvent? {
        guard opcode == 0x36, initiator == 0 || destination == 15 else { return nil }
        return enter(standby: true)
    }

    /// libcec made us the active source (the TV switched to us or turned on): resume.
    public mutating func activated(_ active: Bool) -> CECPowerEvent? {
        active ? enter(standby: false) : nil
    }

    /// A key from the TV's remote: the TV is on, so a box in standby resumes first.
    public mutating func key() -> CECPowerEvent? { enter(standby: false) }

    private mutating func enter(standby: Bool) -> CECPowerEvent? {
        guard standby != standingBy else { return nil }
        standingBy = standby
        return standby ? .standby : .resume
    }
}
