import Lineup

/// The channels a warm plan is made over: the lineup's listed slots in number order (so the
/// plan's neighbours are the channels up and down), then the slots of channels no longer listed
/// that must still be counted (shown, or on screen). Maps plan positions to slots and back.
struct PlanSpace {
    /// The slot at each plan position.
    let slots: [Int]
    private let positions: [Int: Int]?

    init(lineup: Lineup, keeping kept: Set<Int>) {
        let listed = lineup.listed
        let extra = kept.filter { lineup.channels.indices.contains($0) && !lineup.isListed($0) }.sorted()
        slots = listed + extra
        // A lineup never read again lists every slot in order: positions are slots.
        let identity = extra.isEmpty && listed.count == lineup.channels.count && listed.elementsEqual(listed.indices)
        positions = identity ? nil : Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1, $0) })
    }

    /// The plan position of `slot`; nil for a channel the plan leaves out.
    func position(_ slot: Int) -> Int? {
        guard let positions else { return slots.indices.contains(slot) ? slot : nil }
        return positions[slot]
    }
}
