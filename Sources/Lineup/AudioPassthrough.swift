/// Which sound is sent on undecoded, for the receiver behind HDMI or S/PDIF to decode
/// (`audio-passthrough: ac3`, `--audio-passthrough ac3`): AC-3 or nothing (`off`). E-AC-3 is
/// always decoded: IEC 61937 carries it at four times the output's rate.
public struct AudioPassthrough: Sendable, Hashable {
    /// AC-3 is passed through.
    public var ac3: Bool

    public init(ac3: Bool) { self.ac3 = ac3 }

    public static let off = AudioPassthrough(ac3: false)

    /// Reads `ac3`, `ac-3`, `off`, `none` or `no` (a list, comma- or space-separated, of one of
    /// them); what cannot be read comes back as the reason, for the person who wrote it.
    public static func parse(_ text: String) -> Result<AudioPassthrough, Problem> {
        let words = text.lowercased().split { $0 == "," || $0 == " " }.map(String.init)
        guard !words.isEmpty else { return .failure(Problem(text: "an empty value: give ac3 or off")) }
        var passthrough = AudioPassthrough.off
        for word in words {
            switch word {
            case "ac3", "ac-3": passthrough.ac3 = true
            case "off", "none", "no", "false": break
            case "eac3", "e-ac-3", "ec-3", "ec3":
                return .failure(Problem(text: "E-AC-3 cannot be passed through (IEC 61937 carries it at 192 kHz, four times the output's rate); it is decoded. Give ac3 or off"))
            default:
                return .failure(Problem(text: "'\(word)' is not a codec that can be passed through; give ac3 or off"))
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
