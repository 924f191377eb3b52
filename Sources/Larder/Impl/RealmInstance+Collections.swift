import CLarder
import Foundation

/// The object store, writing collections: a List, MutableSet or Map assigned to
/// a property or copied in when its owner is added or created.
extension RealmInstance {
    /// Replaces the collection at slot with the elements of value (a collection),
    /// as Realm assigns one: `.modified` diffs a list by position and merges sets
    /// and maps; otherwise the old elements go first.
    @usableFromInline
    func assignCollection(_ core: ObjectCore, slot: Int, _ value: _StoredValue, update: Realm.UpdatePolicy = .error) {
        verifyThread()
        requirePropertyWrite()
        if isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
        collectionWrites &+= 1
        // A mixed property given a nested list or dictionary (`AnyRealmValue.list`, `.dictionary`).
        if !core.table.schema.properties[slot].isCollection, case .collection(let source) = value {
            return assignNested(core, slot: slot, source)
        }
        let ref = CollectionRef(instance: self, owner: core, slot: slot)
        guard case .collection(let source) = value else { return clear(ref) }
        if let bound = source.ref, bound.instance === self, bound.owner.cls == ref.owner.cls,
           bound.owner.key == ref.owner.key, bound.prop == ref.prop { return }
        copy(source.storedElements(), keys: source.storedKeys(), into: ref, update: update)
    }

    /// Copies the unmanaged collections of a new row's values in, and the nested
    /// lists and dictionaries of its mixed values. A row with neither (most rows
    /// of a class with mixed values) costs no allocation.
    /// skipping: slots whose collections are written later (`addRelating`).
    func fillCollections(_ table: ManagedClass, key: lar_objkey, values: ContiguousArray<_StoredValue>,
                         skipping: SlotMask) {
        var owner: ObjectCore?
        func core() -> ObjectCore {
            if let owner { return owner }
            let made = ObjectCore()
            made.bind(to: self, table: table, key: key)
            owner = made
            return made
        }
        for slot in table.mixedValueSlots where !skipping.contains(slot) {
            if case .collection(let source) = values[slot] { assignNested(core(), slot: slot, source) }
        }
        for slot in table.schema.collectionSlots where !skipping.contains(slot) {
            guard case .collection(let source) = values[slot] else { continue }
            let ref = CollectionRef(instance: self, owner: core(), slot: slot)
            copy(source.storedElements(), keys: source.storedKeys(), into: ref, update: .error)
        }
    }

    private func clear(_ ref: CollectionRef) {
        let txn = ref.writeTxn("List")
        switch ref.property.collection {
        case LAR_COLLECTION_LIST: ref.check(lar_list_clear(txn, ref.owner, ref.prop), "Cannot clear a list")
        case LAR_COLLECTION_SET: ref.check(lar_set_clear(txn, ref.owner, ref.prop), "Cannot clear a set")
        default: ref.check(lar_map_clear(txn, ref.owner, ref.prop), "Cannot clear a map")
        }
    }

    private func copy(_ elements: [_StoredValue], keys: [String]?, into ref: CollectionRef, update: Realm.UpdatePolicy) {
        let txn = ref.writeTxn("List")
        switch ref.property.collection {
        case LAR_COLLECTION_LIST:
            if update == .modified { return copyModified(elements, into: ref) }
            clear(ref)
            for element in elements {
                _ = ref.withElement(element, update: update, place: .append, embed: { values, count, out in
                    var size = 0
                    let rc = lar_list_count(txn, ref.owner, ref.prop, &size)
                    return rc != LAR_OK ? rc : lar_list_insert_embedded(txn, ref.owner, ref.prop, size, values, count, out)
                }) { lar_list_append(txn, ref.owner, ref.prop, $0) }
                    .map { ref.check($0, "Cannot append to a list") }
            }
        case LAR_COLLECTION_SET:
            if update != .modified { clear(ref) } // .modified merges, as Realm's Set::assign
            for element in elements {
                _ = ref.withElement(element, update: update) { lar_set_insert(txn, ref.owner, ref.prop, $0, nil) }
                    .map { ref.check($0, "Cannot insert into a set") }
            }
        default:
            if update != .modified { clear(ref) } // .modified merges, as Realm's Dictionary::assign
            for (key, element) in zip(keys ?? [], elements) {
                MapKey.validate(key)
                MapKey.with(key) { key in
                    _ = ref.withElement(element, update: update, place: .key(key.pointee), embed: {
                        lar_map_put_embedded(txn, ref.owner, ref.prop, key, $0, $1, $2)
                    }) { value in
                        lar_map_put(txn, ref.owner, ref.prop, key, value)
                    }.map { ref.check($0, "Cannot put into a map") }
                }
            }
        }
    }

    /// Realm's `.modified` for lists: set only the positions that differ, append
    /// the extra elements, truncate the tail. An embedded object at a position
    /// both have is updated in place (core's `List::set_if_different`), so its
    /// accessors stay valid.
    private func copyModified(_ elements: [_StoredValue], into ref: CollectionRef) {
        let txn = ref.writeTxn("List")
        var count = 0
        ref.check(lar_list_count(txn, ref.owner, ref.prop, &count), "Cannot count a list")
        let embedded = ref.ownerTable.schema.embeddedLink[ref.slot]
        for (index, element) in elements.enumerated() {
            if index < count {
                var old = lar_value()
                ref.check(lar_list_get(txn, ref.owner, ref.prop, index, &old), "Cannot read a list")
                if embedded, old.type == LAR_TYPE_LINK, case .object(let source) = element, source.core.realm == nil {
                    updateEmbedded(linkedObject(old, property: ref.property), from: source)
                    continue
                }
                let oldIsNested = old.type == LAR_TYPE_LIST || old.type == LAR_TYPE_DICTIONARY // always set again
                if !oldIsNested && storedElement(old, property: ref.property) == element { continue }
                _ = ref.withElement(element, update: .modified, place: .index(index), embed: {
                    lar_list_set_embedded(txn, ref.owner, ref.prop, index, $0, $1, $2)
                }) { lar_list_set(txn, ref.owner, ref.prop, index, $0) }
                    .map { ref.check($0, "Cannot set a list element") }
            } else {
                _ = ref.withElement(element, update: .modified, place: .append, embed: {
                    lar_list_insert_embedded(txn, ref.owner, ref.prop, index, $0, $1, $2)
                }) { lar_list_append(txn, ref.owner, ref.prop, $0) }
                    .map { ref.check($0, "Cannot append to a list") }
            }
        }
        while count > elements.count {
            count -= 1
            ref.check(lar_list_remove(txn, ref.owner, ref.prop, count), "Cannot remove from a list")
        }
    }

    /// A collection element in stored form; objects as accessors.
    func storedElement(_ value: lar_value, property: PropertySchema) -> _StoredValue {
        if value.type == LAR_TYPE_LINK { return .object(linkedObject(value, property: property)) }
        return _StoredValue(value)
    }
}

/// Map keys in C form, and Realm's rules for them.
enum MapKey {
    /// A managed map's key may not start with '$' or hold '.': traps with Realm's message.
    static func validate(_ key: String) {
        with(key) { validate($0.pointee) }
    }

    /// The same on the key's UTF-8 bytes, which Realm checks (a '$' followed by a
    /// combining mark still starts with '$').
    static func validate(_ key: lar_string) {
        guard key.size > 0, let bytes = key.data else { return }
        if bytes[0] == CChar(UInt8(ascii: "$")) { fatalError("Dictionary::insert: key must not start with '$'") }
        if memchr(bytes, Int32(UInt8(ascii: ".")), key.size) != nil {
            fatalError("Dictionary::insert: key must not contain '.'")
        }
    }

    static func with<R>(_ key: String, _ body: (UnsafePointer<lar_string>) -> R) -> R {
        var key = key
        return key.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                var string = lar_string(data: chars.baseAddress, size: chars.count)
                return body(&string)
            }
        }
    }
}
