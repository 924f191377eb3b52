import CLarder

// Changes of a list or dictionary nested in an `AnyRealmValue`. The change log
// records only that the property holding the nested tree changed, so when it did,
// the collection's contents at the capture and now are compared: a value by
// value, a nested collection by its id (a changed one inside is a modification
// of its element or key).

/// One element of a nested collection, with everything nested in it.
indirect enum NestedItem: Hashable {
    case value(StoredIdentity)
    case collection(id: UInt64, keys: [String]?, items: [NestedItem])

    init(_ value: _StoredValue) {
        if case .collection(let inner) = value {
            self = .collection(id: inner.ref?.nested ?? 0, keys: inner.storedKeys(),
                               items: inner.storedElements().map(NestedItem.init))
        } else {
            self = .value(StoredIdentity(value))
        }
    }

    /// What finds the element again: a value itself, a nested collection its id.
    var identity: ElementIdentity {
        switch self {
        case .value(let value): return .stored(value)
        case .collection(let id, _, _): return .nested(id)
        }
    }
}

/// A nested collection's contents at one version.
struct NestedState {
    /// A dictionary's keys, in key order, matching items; nil for a list.
    let keys: [String]?
    let items: [NestedItem]

    init(_ collection: _LarderCollection) {
        keys = collection.storedKeys()
        items = collection.storedElements().map(NestedItem.init)
    }

    /// Whether log says the property holding ref's tree changed, or its owner was deleted.
    static func propertyChanged(_ ref: CollectionRef, _ log: OpaquePointer) -> Bool {
        var state: Int32 = 0, count = 0
        guard lar_changes_object(log, ref.owner, &state, nil, 0, &count) == LAR_OK else { return true }
        if state != LAR_OBJECT_MODIFIED { return state != LAR_OBJECT_UNCHANGED }
        var props = [UInt32](repeating: 0, count: count)
        lar_changes_object(log, ref.owner, &state, &props, count, &count)
        return props.contains(ref.prop)
    }

    /// A dictionary's changes by key from old to new (nil: gone).
    static func keyChanges(old: NestedState?, oldKeys: [String], new: NestedState?, newKeys: [String])
        -> (deletions: [String], insertions: [String], modifications: [String]) {
        var before: [String: NestedItem] = [:], after: [String: NestedItem] = [:]
        if let old { for (key, item) in zip(old.keys ?? [], old.items) { before[key] = item } }
        if let new { for (key, item) in zip(new.keys ?? [], new.items) { after[key] = item } }
        return (oldKeys.filter { after[$0] == nil }, newKeys.filter { before[$0] == nil },
                oldKeys.filter { after[$0] != nil && after[$0] != before[$0] })
    }

    /// A list's changes from old to new: what stays is matched by identity; an
    /// element replaced (an old one gone and a new one come between the same two
    /// that stay) is a modification, as a set of that index is; so is a nested
    /// collection that stays with other contents.
    static func listChanges(old: [NestedItem], new: [NestedItem]) -> IndexChanges {
        var kept = keptElements(old: old.map(\.identity), new: new.map(\.identity))
        var modifications = kept.filter { old[$0.old] != new[$0.new] }.map(\.old)
        var replaced: [(old: Int, new: Int)] = []
        var previous = (old: -1, new: -1)
        for next in kept + [(old: old.count, new: new.count)] {
            let gone = (previous.old + 1)..<next.old, come = (previous.new + 1)..<next.new
            for (oldIndex, newIndex) in zip(gone, come) { replaced.append((oldIndex, newIndex)) }
            previous = next
        }
        modifications += replaced.map(\.old)
        kept = (kept + replaced).sorted { $0.old < $1.old }
        return IndexChanges(old: old.count, new: new.count, kept: kept, modifications: modifications.sorted())
    }
}

/// A list nested in an `AnyRealmValue`: its contents compared when its property changed.
final class NestedListTracker: ChangeTracker {
    private let ref: CollectionRef
    private let list: List<AnyRealmValue>
    private var items: [NestedItem] = []

    init(ref: CollectionRef, list: List<AnyRealmValue>) {
        self.ref = ref
        self.list = list
        super.init(instance: ref.instance)
    }

    override func record() { items = ref.isInvalidated ? [] : NestedState(list).items }

    override func changes(log: OpaquePointer?) -> IndexChanges {
        if let log, !NestedState.propertyChanged(ref, log) { return IndexChanges() }
        let old = items
        record()
        return NestedState.listChanges(old: old, new: items)
    }
}

extension _LarderCollection {
    /// The nested collection ref names (same owner, property and id), in instance,
    /// another instance of its file; nil when it is gone there.
    static func nested(like ref: CollectionRef, in instance: RealmInstance) -> Self? {
        let table = instance.table(for: ref.ownerTable.schema.type)
        let bound = CollectionRef(instance: instance, ownerTable: table, owner: lar_obj(cls: table.id, key: ref.owner.key),
                                  slot: ref.slot, kind: ref.kind, nested: ref.nested)
        if bound.isInvalidated { return nil }
        let collection = Self()
        collection.ref = bound
        return collection
    }
}
