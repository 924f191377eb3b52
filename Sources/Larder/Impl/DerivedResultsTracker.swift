import CLarder

// Results derived from a collection (`list.sorted(byKeyPath:)`, `set.filter(...)`,
// `linkingObjects.where {...}`, `numbers.sorted()`, `map.sorted(byKeyPath:)`): their
// change sets compare the order captured with the order now, as realm-core's
// notifiers of such results do. Elements found at both ends that keep their
// relative order stay (the longest increasing run of their old positions); the
// others are deletions and insertions.

/// Results of objects over a list, set or linking objects (and linking objects
/// themselves, listed by key, whose elements never move): elements are matched by
/// object key (an object a list holds twice matches occurrence by occurrence), as
/// realm-core's results notifier matches rows; an element object modified as the
/// key paths say (without them: as `ElementKeyPaths` follows links) is a modification.
final class DerivedObjectsTracker: ChangeTracker {
    private let table: ManagedClass
    private let paths: ElementKeyPaths
    private let readKeys: () -> [lar_objkey]
    private var keys: [lar_objkey] = []

    /// keys: the results' object keys in result order (none once the collection is gone).
    init(instance: RealmInstance, table: ManagedClass, paths: ElementKeyPaths, keys: @escaping () -> [lar_objkey]) {
        self.table = table
        self.paths = paths
        readKeys = keys
        super.init(instance: instance)
    }

    override func record() { keys = readKeys() }

    override func changes(log: OpaquePointer?) -> IndexChanges {
        let old = keys
        record()
        guard let log else { return IndexChanges(deletions: Array(old.indices), insertions: Array(keys.indices)) }
        var classChanges = lar_class_changes()
        lar_changes_class(log, table.id, &classChanges)
        let deleted = Set(UnsafeBufferPointer(start: classChanges.deleted, count: classChanges.deleted_count))
        // A key deleted and created again (an int primary key) is another object.
        let oldIdentities = old.map { deleted.contains($0) ? nil : ElementIdentity.object($0) }
        return orderedChanges(old: oldIdentities, new: keys.map { .object($0) }) { index in
            paths.isModified(old[index], table, log: log, instance: instance)
        }
    }
}

/// Results of values (or of a map's objects) over a list, set or map: as realm-core's
/// list results notifier, each element is its position in the collection, carried
/// from the old collection to the new one by the collection's own change set (which
/// `source` tracks); an element at a position the collection modified is modified.
final class DerivedValuesTracker: ChangeTracker {
    private let source: ChangeTracker
    private let readPositions: () -> [Int]
    private var positions: [Int] = []

    /// positions: for each element of the results in order, its position in the
    /// collection (none once the collection is gone).
    init(instance: RealmInstance, source: ChangeTracker, positions: @escaping () -> [Int]) {
        self.source = source
        readPositions = positions
        super.init(instance: instance)
    }

    override func capture() {
        source.capture()
        super.capture()
    }

    override func record() { positions = readPositions() }

    override func changes() -> IndexChanges {
        let collection = source.changes()
        let old = positions
        record()
        version = source.version
        let moved = collection.carry(old)
        let modified = Set(collection.modifications)
        return orderedChanges(old: moved.map { $0.map(ElementIdentity.position) }, new: positions.map { .position($0) }) {
            modified.contains(old[$0])
        }
    }
}

/// What an element is, to find it at both ends of a change.
enum ElementIdentity: Hashable {
    /// Of results of objects.
    case object(lar_objkey)
    /// Of results of values: the element's position in its collection.
    case position(Int)
    /// In a nested list: a value, or a nested collection by its id.
    case stored(StoredIdentity)
    case nested(UInt64)
}

/// A stored value as equality finds it again: an object by its row (accessors
/// differ), a NaN equal to itself.
enum StoredIdentity: Hashable {
    case object(lar_class, lar_objkey)
    case nan
    case value(_StoredValue)

    init(_ value: _StoredValue) {
        switch value {
        case .object(let object): self = .object(object.core.table.id, object.core.key)
        case .double(let double) where double.isNaN: self = .nan
        case .float(let float) where float.isNaN: self = .nan
        default: self = .value(value)
        }
    }
}

extension IndexChanges {
    /// Where each old position (of the collection these changes are of) is in the
    /// new collection; nil for those deleted. Survivors keep their order and fill the
    /// new positions not inserted (Realm's `insertions.shift(deletions.unshift(i))`).
    func carry(_ positions: [Int]) -> [Int?] {
        guard let highest = positions.max() else { return [] }
        let deleted = Set(deletions), inserted = Set(insertions)
        var newPosition = [Int?](repeating: nil, count: highest + 1)
        var next = 0
        for old in 0...highest where !deleted.contains(old) {
            while inserted.contains(next) { next += 1 }
            newPosition[old] = next
            next += 1
        }
        return positions.map { newPosition[$0] }
    }
}

/// The change set from old to new (identities in order; nil: an old element that
/// is gone whatever new holds). isModified: whether the old element at an index
/// that stays was modified.
func orderedChanges(old: [ElementIdentity?], new: [ElementIdentity],
                    isModified: (Int) -> Bool) -> IndexChanges {
    let kept = keptElements(old: old, new: new)
    return IndexChanges(old: old.count, new: new.count, kept: kept,
                        modifications: kept.map(\.old).filter(isModified))
}

/// The elements of old that stay in new, as pairs of indices, ascending: equal
/// identities match in order of occurrence, and of those, the longest run that
/// keeps its order stays (the others moved).
func keptElements(old: [ElementIdentity?], new: [ElementIdentity]) -> [(old: Int, new: Int)] {
    var oldIndices: [ElementIdentity: [Int]] = [:]
    for (index, identity) in old.enumerated() {
        if let identity { oldIndices[identity, default: []].append(index) }
    }
    var used: [ElementIdentity: Int] = [:]
    var common: [(old: Int, new: Int)] = []
    for (index, identity) in new.enumerated() {
        guard let candidates = oldIndices[identity] else { continue }
        let occurrence = used[identity, default: 0]
        if occurrence == candidates.count { continue }
        used[identity] = occurrence + 1
        common.append((candidates[occurrence], index))
    }
    return longestIncreasingRun(common.map(\.old)).map { common[$0] }
}

extension IndexChanges {
    /// The changes between collections of old and new elements of which kept stay.
    init(old: Int, new: Int, kept: [(old: Int, new: Int)], modifications: [Int]) {
        var stays = [Bool](repeating: false, count: old), staysNew = [Bool](repeating: false, count: new)
        for pair in kept {
            stays[pair.old] = true
            staysNew[pair.new] = true
        }
        self.init(deletions: (0..<old).filter { !stays[$0] }, insertions: (0..<new).filter { !staysNew[$0] },
                  modifications: modifications)
    }
}

/// The indices of a longest strictly increasing subsequence of values.
func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: [Int] = [], previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
        var low = 0, high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        previous[index] = low > 0 ? tails[low - 1] : -1
        if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var run: [Int] = []
    var index = tails.last ?? -1
    while index >= 0 {
        run.append(index)
        index = previous[index]
    }
    return run.reversed()
}
