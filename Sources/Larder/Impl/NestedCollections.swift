import CLarder

// Nested lists and dictionaries inside mixed values (Realm 10.51's
// `AnyRealmValue.list` and `.dictionary`), mapped onto the C core's collection
// handles (`lar_coll`) and the `_at` forms of its list and map functions.
//
// A managed `List<AnyRealmValue>` or `Map<String, AnyRealmValue>` read from a
// mixed value is bound to a `CollectionRef` whose `nested` is the collection's
// id; the ref's owner and property are those of the top-level property that
// holds the whole tree. A value read from the C core carries only the id, so
// `AnyRealmValue` finds its owner where it was read: a list or map read
// registers the ids it sees with its own owner just before converting them
// (`RealmInstance.nestedParents`); a property read comes from a class's
// one-row cache, which `nestedValue` searches.

/// Where a nested collection is being written, so that it can be read back and
/// filled once the C call has put a new, empty one there.
enum NestedPlace {
    /// The element at an index of a list (set or insert).
    case index(Int)
    /// A new last element of a list.
    case append
    /// A key's value in a map (the bytes live during the write).
    case key(lar_string)
    /// The owner's mixed property itself.
    case property
}

/// The contents of a nested list or dictionary, copied out (recursively) before
/// anything is written: the source may be the very collection being replaced.
struct NestedSnapshot {
    enum Item {
        case value(_StoredValue)
        case nested(NestedSnapshot)
    }

    let kind: lar_collection
    /// A dictionary's keys, matching items.
    let keys: [String]
    let items: [Item]

    init(_ collection: _LarderCollection) {
        kind = collection is Map<String, AnyRealmValue> ? LAR_COLLECTION_MAP : LAR_COLLECTION_LIST
        keys = collection.storedKeys() ?? []
        items = collection.storedElements().map { element in
            if case .collection(let inner) = element { return .nested(NestedSnapshot(inner)) }
            return .value(element)
        }
    }

    var valueType: lar_type { kind == LAR_COLLECTION_LIST ? LAR_TYPE_LIST : LAR_TYPE_DICTIONARY }
}

/// The top-level property a nested collection id was seen under.
struct NestedParent {
    unowned let table: ManagedClass
    let owner: lar_obj
    let slot: Int
}

extension AnyRealmValue {
    /// The value with its nested lists and dictionaries copied into new unmanaged ones.
    var detachedCopy: AnyRealmValue {
        switch self {
        case .list(let list): return .fromArray(list.map { $0.detachedCopy })
        case .dictionary(let map):
            var entries: [String: AnyRealmValue] = [:]
            for (key, value) in map { entries[key] = value.detachedCopy }
            return .fromDictionary(entries)
        default: return self
        }
    }
}

extension _StoredValue {
    /// A collection: in a mixed value, a nested list or dictionary.
    var isCollection: Bool {
        if case .collection = self { return true }
        return false
    }
}

extension RealmInstance {
    /// Records that value (if a nested collection) was read under parent, for
    /// the conversion that follows the read.
    func registerNested(_ value: lar_value, _ parent: @autoclosure () -> NestedParent) {
        guard value.type == LAR_TYPE_LIST || value.type == LAR_TYPE_DICTIONARY else { return }
        nestedParents[value.as.nested] = parent()
    }

    /// Forgets what earlier reads registered once there is much of it: called
    /// before a read registers anything, never between a read and its conversion.
    func trimNestedParents() {
        if nestedParents.count > 4096 { nestedParents.removeAll(keepingCapacity: true) }
    }

    /// The owner of a nested collection id held by a row in a class's cache.
    private func cachedRowParent(_ id: UInt64) -> NestedParent? {
        for table in tablesWithMixedValues where table.cachedVersion == decodeStamp {
            for slot in table.mixedValueSlots {
                let value = table.slotValues[slot]
                if (value.type == LAR_TYPE_LIST || value.type == LAR_TYPE_DICTIONARY) && value.as.nested == id {
                    return NestedParent(table: table, owner: lar_obj(cls: table.id, key: table.cachedKey), slot: slot)
                }
            }
        }
        return nil
    }

    /// The `AnyRealmValue` of a nested collection just read from a collection or a cached row.
    func nestedValue(_ value: lar_value) -> AnyRealmValue {
        guard let parent = nestedParents[value.as.nested] ?? cachedRowParent(value.as.nested) else {
            fatalError("A nested collection (\(value.as.nested)) was read without its owner")
        }
        let isList = value.type == LAR_TYPE_LIST
        let ref = CollectionRef(instance: self, ownerTable: parent.table, owner: parent.owner, slot: parent.slot,
                                kind: isList ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP, nested: value.as.nested)
        if isList {
            let list = List<AnyRealmValue>()
            list.ref = ref
            return .list(list)
        }
        let map = Map<String, AnyRealmValue>()
        map.ref = ref
        return .dictionary(map)
    }

    /// Replaces owner's mixed property at slot with a new nested collection holding source's contents.
    func assignNested(_ core: ObjectCore, slot: Int, _ source: _LarderCollection) {
        let snapshot = NestedSnapshot(source)
        let ref = CollectionRef(instance: self, owner: core, slot: slot)
        core.table.changes.didWrite(slot: slot)
        let txn = txn!
        _ = ref.writeNested(snapshot, at: .property, update: .error) { lar_obj_set(txn, ref.owner, ref.prop, $0) }
            .map { ref.check($0, "Cannot set '\(core.table.schema.name).\(ref.property.name)'") }
        version &+= 1
    }

    /// A mixed property's value in stored form: a nested collection as its managed List or Map.
    func storedMixed(_ value: lar_value, table: ManagedClass, key: lar_objkey, slot: Int) -> _StoredValue? {
        guard value.type == LAR_TYPE_LIST || value.type == LAR_TYPE_DICTIONARY else { return nil }
        trimNestedParents()
        registerNested(value, NestedParent(table: table, owner: lar_obj(cls: table.id, key: key), slot: slot))
        return nestedValue(value)._larderStored
    }
}

extension CollectionRef {
    /// The C core's handle on this collection (id 0: the property's own).
    var handle: lar_coll { lar_coll(obj: owner, prop: prop, kind: kind, id: nested) }

    private var parent: NestedParent { NestedParent(table: ownerTable, owner: owner, slot: slot) }

    func registerNested(_ value: lar_value) {
        instance.trimNestedParents()
        instance.registerNested(value, parent)
    }

    func registerNested(_ values: UnsafeMutableBufferPointer<lar_value>) {
        instance.trimNestedParents()
        for value in values { instance.registerNested(value, parent) }
    }

    /// Whether the nested collection was replaced or freed, or its owner deleted.
    var nestedIsStale: Bool {
        var handle = handle, count = 0
        let txn = instance.currentTxn()
        let rc = kind == LAR_COLLECTION_LIST ? lar_list_count_at(txn, &handle, &count)
                                             : lar_map_count_at(txn, &handle, &count)
        return rc == LAR_EDELETED
    }

    /// Realm's trap for using a collection that is gone.
    func invalidatedNested() -> Never {
        fatalError("Access to invalidated \(kind == LAR_COLLECTION_LIST ? "List" : "Dictionary") object")
    }

    func readNestedBatch(from start: Int, into values: UnsafeMutableBufferPointer<lar_value>, _ count: inout Int) -> Int32 {
        var handle = handle
        return lar_list_get_batch_at(readTxn(), &handle, start, values.baseAddress!, values.count, &count)
    }

    // MARK: Lists and maps, plain or through the handle

    func listCount(_ txn: OpaquePointer, _ count: inout Int) -> Int32 {
        if nested == 0 { return lar_list_count(txn, owner, prop, &count) }
        var handle = handle
        return lar_list_count_at(txn, &handle, &count)
    }

    func listGet(_ txn: OpaquePointer, _ index: Int, _ out: inout lar_value) -> Int32 {
        if nested == 0 { return lar_list_get(txn, owner, prop, index, &out) }
        var handle = handle
        return lar_list_get_at(txn, &handle, index, &out)
    }

    func listSet(_ txn: OpaquePointer, _ index: Int, _ value: UnsafePointer<lar_value>) -> Int32 {
        if nested == 0 { return lar_list_set(txn, owner, prop, index, value) }
        var handle = handle
        return lar_list_set_at(txn, &handle, index, value)
    }

    func listInsert(_ txn: OpaquePointer, _ index: Int, _ value: UnsafePointer<lar_value>) -> Int32 {
        if nested == 0 { return lar_list_insert(txn, owner, prop, index, value) }
        var handle = handle
        return lar_list_insert_at(txn, &handle, index, value)
    }

    func listAppend(_ txn: OpaquePointer, _ value: UnsafePointer<lar_value>) -> Int32 {
        if nested == 0 { return lar_list_append(txn, owner, prop, value) }
        var handle = handle
        return lar_list_append_at(txn, &handle, value)
    }

    func listRemove(_ txn: OpaquePointer, _ index: Int) -> Int32 {
        if nested == 0 { return lar_list_remove(txn, owner, prop, index) }
        var handle = handle
        return lar_list_remove_at(txn, &handle, index)
    }

    func listMove(_ txn: OpaquePointer, _ from: Int, _ to: Int) -> Int32 {
        if nested == 0 { return lar_list_move(txn, owner, prop, from, to) }
        var handle = handle
        return lar_list_move_at(txn, &handle, from, to)
    }

    /// Swaps two elements; a nested list (which has no swap) by two moves.
    func listSwap(_ txn: OpaquePointer, _ first: Int, _ second: Int) -> Int32 {
        if nested == 0 { return lar_list_swap(txn, owner, prop, first, second) }
        let (low, high) = (Swift.min(first, second), Swift.max(first, second))
        if low == high { return LAR_OK }
        let rc = listMove(txn, high, low)
        return rc == LAR_OK ? listMove(txn, low + 1, high) : rc
    }

    func listClear(_ txn: OpaquePointer) -> Int32 {
        if nested == 0 { return lar_list_clear(txn, owner, prop) }
        var handle = handle
        return lar_list_clear_at(txn, &handle)
    }

    func mapCount(_ txn: OpaquePointer, _ count: inout Int) -> Int32 {
        if nested == 0 { return lar_map_count(txn, owner, prop, &count) }
        var handle = handle
        return lar_map_count_at(txn, &handle, &count)
    }

    func mapGet(_ txn: OpaquePointer, _ key: UnsafePointer<lar_string>, _ out: inout lar_value) -> Int32 {
        if nested == 0 { return lar_map_get(txn, owner, prop, key, &out) }
        var handle = handle
        return lar_map_get_at(txn, &handle, key, &out)
    }

    func mapPut(_ txn: OpaquePointer, _ key: UnsafePointer<lar_string>, _ value: UnsafePointer<lar_value>) -> Int32 {
        if nested == 0 { return lar_map_put(txn, owner, prop, key, value) }
        var handle = handle
        return lar_map_put_at(txn, &handle, key, value)
    }

    func mapRemove(_ txn: OpaquePointer, _ key: UnsafePointer<lar_string>) -> Int32 {
        if nested == 0 { return lar_map_remove(txn, owner, prop, key, nil) }
        var handle = handle
        return lar_map_remove_at(txn, &handle, key, nil)
    }

    func mapList(_ txn: OpaquePointer, _ after: UnsafePointer<lar_string>?, _ keys: UnsafeMutablePointer<lar_string>,
                 _ values: UnsafeMutablePointer<lar_value>, _ capacity: Int, _ count: inout Int) -> Int32 {
        if nested == 0 { return lar_map_list(txn, owner, prop, after, keys, values, capacity, &count) }
        var handle = handle
        return lar_map_list_at(txn, &handle, after, keys, values, capacity, &count)
    }

    func mapClear(_ txn: OpaquePointer) -> Int32 {
        if nested == 0 { return lar_map_clear(txn, owner, prop) }
        var handle = handle
        return lar_map_clear_at(txn, &handle)
    }

    // MARK: Writing nested collections

    /// Has body write a new, empty nested collection at place, then fills it
    /// with snapshot's contents. Deeper than Realm's 100 levels traps with its message.
    func writeNested(_ snapshot: NestedSnapshot, at place: NestedPlace, update: Realm.UpdatePolicy,
                     _ body: (UnsafePointer<lar_value>) -> Int32) -> Int32? {
        var value = lar_value()
        value.type = snapshot.valueType
        let rc = body(&value)
        if rc == LAR_EINVAL, String(cString: lar_error_last().pointee.message).contains("levels a mixed value may nest") {
            fatalError("Max nesting level reached")
        }
        if rc != LAR_OK { return rc }
        child(at: place).fill(snapshot, update: update)
        return rc
    }

    /// A ref on the nested collection just written at place.
    private func child(at place: NestedPlace) -> CollectionRef {
        let txn = instance.txn!
        var value = lar_value()
        var rc: Int32
        switch place {
        case .index(let index): rc = listGet(txn, index, &value)
        case .append:
            var count = 0
            rc = listCount(txn, &count)
            if rc == LAR_OK { rc = listGet(txn, count - 1, &value) }
        case .key(var key): rc = mapGet(txn, &key, &value)
        case .property: rc = lar_obj_get(txn, owner, prop, &value)
        }
        check(rc, "Cannot read a nested collection")
        return CollectionRef(instance: instance, ownerTable: ownerTable, owner: owner, slot: slot,
                             kind: value.type == LAR_TYPE_LIST ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP,
                             nested: value.as.nested)
    }

    /// Appends (a list) or puts (a dictionary) snapshot's items into this new, empty collection.
    private func fill(_ snapshot: NestedSnapshot, update: Realm.UpdatePolicy) {
        let txn = instance.txn!
        for (index, item) in snapshot.items.enumerated() {
            if kind == LAR_COLLECTION_LIST {
                let rc: Int32?
                switch item {
                case .value(let element): rc = withElement(element, update: update) { listAppend(txn, $0) }
                case .nested(let inner): rc = writeNested(inner, at: .append, update: update) { listAppend(txn, $0) }
                }
                rc.map { check($0, "Cannot append to a list") }
            } else {
                let key = snapshot.keys[index]
                MapKey.validate(key)
                MapKey.with(key) { key in
                    let rc: Int32?
                    switch item {
                    case .value(let element): rc = withElement(element, update: update) { mapPut(txn, key, $0) }
                    case .nested(let inner):
                        rc = writeNested(inner, at: .key(key.pointee), update: update) { mapPut(txn, key, $0) }
                    }
                    rc.map { check($0, "Cannot put into a map") }
                }
            }
        }
    }
}
