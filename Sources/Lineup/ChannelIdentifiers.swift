import Foundation

/// Gives every channel an id unique within its lineup.
///
/// Explicit YAML ids are kept as written (a duplicate is an error); guide ids
/// (`tvg-id`) and slugs of names get `-2`, `-3`, ... when already taken.
enum ChannelIdentifiers {
    static func assign(_ drafts: [ChannelDraft], numbers: [ChannelNumber], log: inout DiagnosticLog) -> [String] {
        var used: [String: Int] = [:]
        var ids = [String?](repeating: nil, count: drafts.count)

        for (index, draft) in drafts.enumerated() where draft.idOrigin == .explicit {
            guard let id = draft.id else { continue }
            if let line = used[id] {
                log.error(draft.line, "duplicate channel id '\(id)' (also on line \(line))")
            } else {
                used[id] = draft.line
            }
            ids[index] = id
        }

        for (index, draft) in drafts.enumerated() where ids[index] == nil {
            var base = draft.idOrigin == .guide ? (draft.id ?? "") : ""
            if base.isEmpty { base = slug(draft.name) }
            if base.isEmpty { base = "channel-\(numbers[index])" }
            var candidate = base
            var suffix = 2
            while used[candidate] != nil {
                candidate = "\(base)-\(suffix)"
                suffix += 1
            }
            used[candidate] = draft.line
            ids[index] = candidate
        }
        return ids.map { $0 ?? "" }
    }

    /// `Das Erste HD` -> `das-erste-hd`, `Allgäu TV` -> `allgau-tv`; letters of
    /// other scripts are kept (`中国气象`). Empty when the name has no letters or digits.
    static func slug(_ name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        var result = ""
        var pendingDash = false
        for scalar in folded.lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                if pendingDash, !result.isEmpty { result += "-" }
                result.unicodeScalars.append(scalar)
                pendingDash = false
            } else {
                pendingDash = true
            }
        }
        return result
    }
}
