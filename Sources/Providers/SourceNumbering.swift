import Lineup

/// Numbers for the channels a source lists: each keeps its own when it has one that is free;
/// the rest, in the source's order, get the next free numbers after the highest, each said.
enum SourceNumbering {
    /// The numbers of channels that have `given` (nil: none, or one not fit to keep), and a note
    /// for each channel numbered here (by its name in `names`, which matches `given`).
    static func assign(_ given: [ChannelNumber?], names: [String]) -> (numbers: [ChannelNumber], notes: [String]) {
        var taken = Set<ChannelNumber>()
        var numbers = given.map { number -> ChannelNumber? in
            guard let number, taken.insert(number).inserted else { return nil }
            return number
        }
        var notes: [String] = []
        // At most one more than the channels a source gives (20,000) past the highest kept (99,999).
        var next = taken.map(\.major).max() ?? 0
        for index in numbers.indices where numbers[index] == nil {
            repeat { next += 1 } while taken.contains(ChannelNumber(next))
            taken.insert(ChannelNumber(next))
            numbers[index] = ChannelNumber(next)
            let name = index < names.count ? names[index] : "channel #\(index + 1)"
            notes.append("\(name): no number of its own (missing, not 1 to 99999, or taken); numbered \(next)")
        }
        return (numbers.map { $0 ?? ChannelNumber(0) }, notes)
    }

    /// `number` when it may be kept: 1 to 99999, a sub-number after the dot of at most 99999.
    static func fit(_ number: ChannelNumber?) -> ChannelNumber? {
        guard let number, (1...99_999).contains(number.major), (number.minor ?? 0) <= 99_999 else { return nil }
        return number
    }
}
