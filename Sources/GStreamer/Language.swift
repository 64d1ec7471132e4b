import CGStreamer

/// ISO 639 language codes, through GStreamer's tag library (which knows every code and name).
public enum LanguageCode {
    /// The ISO 639-2/T code (`deu`) of an ISO 639-1 (`de`), 639-2/B (`ger`) or 639-2/T code, or
    /// of an English name (`German`); nil when it is none of those.
    public static func normalized(_ text: String) -> String? {
        let lower = text.lowercased()
        guard !lower.isEmpty, lower.count <= 40, lower.allSatisfy({ $0.isLetter || $0 == " " }) else { return nil }
        if let code = gst_tag_get_language_code_iso_639_2T(lower) { return String(cString: code) }
        // A name: find its code among the codes GStreamer knows.
        guard let codes = gst_tag_get_language_codes() else { return nil }
        defer { g_strfreev(codes) }
        var i = 0
        while let c = codes[i] {
            if let name = gst_tag_get_language_name(c), String(cString: name).lowercased() == lower,
               let t = gst_tag_get_language_code_iso_639_2T(c) {
                return String(cString: t)
            }
            i += 1
        }
        return nil
    }

    /// The English name of a language code (`German`), nil when unknown.
    public static func name(_ code: String) -> String? {
        gst_tag_get_language_name(code.lowercased()).map { String(cString: $0) }
    }
}
