import CLarder

/// What one Realm instance changed in one class, counted so that `Results` can
/// keep a key snapshot while it is still right: a property write leaves the
/// membership of a class alone, and the order too unless it wrote a sort key.
/// Confined to its instance's thread, so it skips Swift's exclusivity checks.
final class ClassChanges {
    /// Creations and deletions in the class.
    @exclusivity(unchecked) private(set) var membership: UInt64 = 0
    /// Per property slot, the writes to it.
    @exclusivity(unchecked) private var slotWrites: [UInt64]
    /// Iterations that end where the first object created after they began would start.
    @exclusivity(unchecked) private var openWalks: [WalkEnd] = []

    init(propertyCount: Int) {
        slotWrites = Array(repeating: 0, count: propertyCount)
    }

    func didCreate(_ key: lar_objkey) {
        membership &+= 1
        if openWalks.isEmpty { return }
        for walk in openWalks { walk.key = key }
        openWalks = []
    }

    func didDelete() {
        membership &+= 1
    }

    func didWrite(slot: Int) {
        slotWrites[slot] &+= 1
    }

    /// A count that moves whenever one of slots is written.
    func writes(to slots: [Int]) -> UInt64 {
        slots.reduce(0) { $0 &+ slotWrites[$1] }
    }

    /// Object keys only grow, so an iteration that must not see objects created
    /// after it began ends at the key of the first one.
    func beginWalk() -> WalkEnd {
        let end = WalkEnd()
        openWalks.append(end)
        return end
    }

    func endWalk(_ end: WalkEnd) {
        openWalks.removeAll { $0 === end }
    }
}

/// Where an iteration stops: nil until an object of its class is created.
final class WalkEnd {
    var key: lar_objkey?
}
