/// Text made safe for XML character data and attribute values (SVG cards, XMLTV exports).
public enum XMLText {
    /// Escapes the five XML specials and drops the control characters XML 1.0 does not allow
    /// (all below 0x20 but tab and newline).
    public static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if let a = c.asciiValue, a < 0x20, a != 0x09, a != 0x0a { continue }
                out.append(c)
            }
        }
        return out
    }
}
