/// Which sound reaches the receiver behind HDMI or S/PDIF undecoded, for it to decode
/// (`audio-passthrough: ac3, eac3`, `--audio-passthrough ac3,eac3`): AC-3 as it was sent, and
/// E-AC-3 re-encoded as AC-3 (IEC 61937 carries E-AC-3 only at 192 kHz, four times the output's
/// rate, and S/PDIF not at all); or nothing (`off`).
public struct AudioPassthrough: Sendable, Hashable {
    /// AC-3 is passed through.
    public var ac3: Bool
    /// E-AC-3 is decoded and encoded again as AC-3, which is passed through.
    public var eac3: Bool

    public init(ac3: Bool, eac3: Bool = false) {
        self.ac3 = ac3
        self.eac3 = eac3
    }

    public static let off = AudioPassthrough(ac3: false)

    /// Whether anything is passed through.
    public var isOn: Bool { ac3 || eac3 }

    /// Reads `ac3`, `eac3`, `off` (or `none`, `no`), a list of them comma- or space-separated;
    /// what cannot be read comes back as the reason, for the person who wrote it.
    public static func parse(_ text: String) -> Result<AudioPassthrough, Problem> {
        let words = text.lowercased().split { $0 == "," || $0 == " " }.map(String.init)
        guard !words.isEmpty else { return .failure(Problem(text: "an empty value: give ac3, eac3 (both: ac3,eac3) or off")) }
        var passthrough = AudioPassthrough.off
        for word in words {
            switch word {
            case "ac3", "ac-3": passthrough.ac3 = true
            case "eac3", "e-ac-3", "ec-3", "ec3": passthrough.eac3 = true
            case "off", "none", "no", "false": break
            default:
                return .failure(Problem(text: "'\(word)' is not a codec that can be passed through; give ac3, eac3 (both: ac3,eac3) or off"))
            }
        }
        return .success(passthrough)
    }

    /// Why a value was not understood.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var text: String
        public var description: String { text }
    }
}
