/// A set of property slots in one word, for what an add decides per slot without
/// allocating. Slots of 64 or more do not fit: inserting one only sets `overflowed`.
struct SlotMask {
    private var bits: UInt64 = 0
    /// A slot of 64 or more was inserted (and is not a member).
    private(set) var overflowed = false

    init() {}

    init(_ slots: [Int]) {
        for slot in slots { insert(slot) }
    }

    var isEmpty: Bool { bits == 0 }

    func contains(_ slot: Int) -> Bool { slot < 64 && bits & (1 << UInt64(slot)) != 0 }

    mutating func insert(_ slot: Int) {
        if slot < 64 { bits |= 1 << UInt64(slot) } else { overflowed = true }
    }
}
