/// A set of property slots in one word, for what an add decides per slot without
/// allocating, and for the slots a projected walk decodes (`ResultsWalker`). Slots of 64
/// or more do not fit: inserting one only sets `overflowed`.
struct SlotMask: Sequence {
    private var bits: UInt64 = 0
    /// A slot of 64 or more was inserted (and is not a member).
    private(set) var overflowed = false

    init() {}

    init(_ slots: [Int]) {
        for slot in slots { insert(slot) }
    }

    var isEmpty: Bool { bits == 0 }

    /// How many slots are members.
    var count: Int { bits.nonzeroBitCount }

    func contains(_ slot: Int) -> Bool { slot < 64 && bits & (1 << UInt64(slot)) != 0 }

    mutating func insert(_ slot: Int) {
        if slot < 64 { bits |= 1 << UInt64(slot) } else { overflowed = true }
    }

    func union(_ other: SlotMask) -> SlotMask {
        var union = self
        union.bits |= other.bits
        union.overflowed = overflowed || other.overflowed
        return union
    }

    /// The members not in other.
    func subtracting(_ other: SlotMask) -> SlotMask {
        var rest = self
        rest.bits &= ~other.bits
        return rest
    }

    /// The members in ascending order.
    func makeIterator() -> Iterator { Iterator(bits: bits) }

    struct Iterator: IteratorProtocol {
        var bits: UInt64

        mutating func next() -> Int? {
            guard bits != 0 else { return nil }
            let slot = bits.trailingZeroBitCount
            bits &= bits - 1
            return slot
        }
    }
}
