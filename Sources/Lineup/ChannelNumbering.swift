import Foundation

/// Gives every channel a number and reports duplicates.
///
/// A channel with a number keeps it; one without gets one more than the highest
/// major number among the channels before it, starting at 1.
enum ChannelNumbering {
    /// Numbers above this are rejected, so numbering never overflows.
    static let maximum = 999_999

    static func assign(_ drafts: [ChannelDraft], log: inout DiagnosticLog) -> [ChannelNumber] {
        var highest = 0
        var seen: [ChannelNumber: (line: Int, name: String)] = [:]
        var numbers: [ChannelNumber] = []
        for draft in drafts {
            var number = ChannelNumber(highest + 1)
            var line = draft.line
            if let given = draft.number {
                if given.value.major > maximum {
                    log.error(given.line, "channel number \(given.value) is too large (at most \(maximum))")
                } else if (given.value.minor ?? 0) > maximum {
                    log.error(given.line, "channel number \(given.value): the sub-channel after the dot is at most \(maximum)")
                } else {
                    number = given.value
                    line = given.line
                }
            } else if number.major > maximum {
                log.error(line, "'\(draft.name)' has no number and none is left after \(maximum); give it a number")
            }
            if let first = seen[number] {
                log.error(line, "duplicate channel number \(number): '\(draft.name)' on line \(line) and '\(first.name)' on line \(first.line)")
            } else {
                seen[number] = (line, draft.name)
            }
            highest = max(highest, number.major)
            numbers.append(number)
        }
        return numbers
    }
}
