import CLarder

/// A managed collection's place: its Realm, and the owner's row and property as
/// they were when the collection was taken (an iterator may rebind the owner's
/// accessor to another row later; the collection stays with its own).
@usableFromInline
final class CollectionRef {
    @usableFromInline let instance: RealmInstance
    let ownerTable: ManagedClass
    let owner: lar_obj
    let prop: UInt32
    let slot: Int
    private let generation: UInt64
    /// The owner's stamp (see `ObjectCore.stamp`): a new owner under the same key is another object.
    let ownerStamp: UInt64
    /// 0 for the property's own collection; else the id of the nested list or
    /// dictionary (inside the property's mixed values) this ref is bound to,
    /// which the `_at` functions reach through `handle` (Impl/NestedCollections.swift).
    let nested: UInt64
    /// What `handle` names: a list or a map (a dictionary).
    let kind: lar_collection
    /// Whether the property holds mixed values, whose nested collections a read registers.
    let holdsMixed: Bool

    init(instance: RealmInstance, owner core: ObjectCore, slot: Int) {
        self.instance = instance
        ownerTable = core.table
        owner = lar_obj(cls: core.table.id, key: core.key)
        ownerStamp = core.stamp
        prop = UInt32(core.table.propertyIndex[slot])
        self.slot = slot
        generation = instance.generation
        nested = 0
        kind = ownerTable.schema.properties[slot].collection
        holdsMixed = ownerTable.schema.properties[slot].isMixed
    }

    /// A ref on the nested collection id, of kind, inside the mixed values of
    /// owner's property at slot of ownerTable.
    init(instance: RealmInstance, ownerTable: ManagedClass, owner: lar_obj, slot: Int, kind: lar_collection,
         nested: UInt64) {
        self.instance = instance
        self.ownerTable = ownerTable
        self.owner = owner
        ownerStamp = ownerTable.reusesKeys ? instance.stamp(of: owner.key, in: ownerTable) : 0
        prop = UInt32(ownerTable.propertyIndex[slot])
        self.slot = slot
        generation = instance.generation
        self.nested = nested
        self.kind = kind
        holdsMixed = true
    }

    var property: PropertySchema { ownerTable.schema.properties[slot] }

    /// The table of the objects a collection of links holds, read as element: as a
    /// `DynamicObject`, the class the property names, whatever model class it has.
    func targetTable(as element: Object.Type?) -> ManagedClass {
        if element == DynamicObject.self, let name = property.targetClassName { return instance.dynamicTable(named: name) }
        return instance.targetTable(of: property)
    }

    /// True once the owner was deleted or the Realm invalidated.
    var isInvalidated: Bool {
        instance.serialized { isInvalidatedNow }
    }

    private var isInvalidatedNow: Bool {
        instance.verifyThread()
        if generation != instance.generation { return true }
        if nested != 0 { return nestedIsStale }
        var exists: Int32 = 0
        lar_obj_exists(instance.currentTxn(), owner, &exists)
        return exists == 0 || ownerReplaced
    }

    /// The instance's version when the owner's stamp last matched: only a delete, which
    /// moves the version, lets a new owner take the key, so each read need not ask again.
    private var ownerCheckedAt: UInt64 = .max

    /// Whether the owner was deleted and a new object with its primary key took its key.
    private var ownerReplaced: Bool {
        guard ownerTable.reusesKeys, ownerCheckedAt != instance.version else { return false }
        if instance.stamp(of: owner.key, in: ownerTable) != ownerStamp { return true }
        ownerCheckedAt = instance.version
        return false
    }

    /// The transaction to read in.
    func readTxn() -> OpaquePointer {
        instance.verifyThread()
        if generation != instance.generation || ownerReplaced { fatalError("Object has been deleted or invalidated.") }
        return instance.currentTxn()
    }

    /// The write transaction to change the collection in; kind names it in Realm's message.
    func writeTxn(_ kind: String) -> OpaquePointer {
        instance.verifyThread()
        if !instance.isInWriteTransaction { fatalError("Cannot modify \(kind) outside of a write transaction.") }
        if generation != instance.generation || ownerReplaced { fatalError("Object has been deleted or invalidated.") }
        instance.collectionWrites &+= 1
        return instance.txn!
    }

    /// Reads a list's elements from start on into values (up to its count), after
    /// the checks of every read; returns how many it read, 0 past the end.
    /// Borrowed strings and bytes live until the transaction ends.
    @usableFromInline
    func readListBatch(from start: Int, into values: UnsafeMutableBufferPointer<lar_value>) -> Int {
        var count = 0
        let rc = nested == 0 ? lar_list_get_batch(readTxn(), owner, prop, start, values.baseAddress!, values.count, &count)
                             : readNestedBatch(from: start, into: values, &count)
        if rc != LAR_ENOTFOUND { check(rc, "Cannot read a list") }
        if holdsMixed { registerNested(UnsafeMutableBufferPointer(rebasing: values[..<count])) }
        return count
    }

    /// Appends element to the list, after the checks of every write.
    @usableFromInline
    func appendListElement(_ element: _StoredValue) {
        // The closure captures the handle, not self: capturing self cost a retain and a release per call.
        let txn = writeTxn("List"), owner = owner, prop = prop
        if nested != 0 || element.isCollection {
            _ = withElement(element, place: .append) { listAppend(txn, $0) }.map { check($0, "Cannot append to a list") }
            return
        }
        _ = withElement(element, embed: { values, count, out in
            var size = 0
            let rc = lar_list_count(txn, owner, prop, &size)
            return rc != LAR_OK ? rc : lar_list_insert_embedded(txn, owner, prop, size, values, count, out)
        }) { lar_list_append(txn, owner, prop, $0) }.map { check($0, "Cannot append to a list") }
    }

    /// Puts key and element into the map: the checks of every write, then the
    /// key's (a bad one traps with Realm's message), then one C call.
    @usableFromInline
    func putMapEntry(_ key: String, _ element: _StoredValue) {
        let txn = writeTxn("Dictionary"), owner = owner, prop = prop
        MapKey.with(key) { key in
            MapKey.validate(key.pointee)
            if nested != 0 || element.isCollection {
                _ = withElement(element, place: .key(key.pointee)) { mapPut(txn, key, $0) }
                    .map { check($0, "Cannot put into a map") }
                return
            }
            _ = withElement(element, embed: { lar_map_put_embedded(txn, owner, prop, key, $0, $1, $2) }) {
                lar_map_put(txn, owner, prop, key, $0)
            }.map { check($0, "Cannot put into a map") }
        }
    }

    /// Stops on a C error, in Realm's words where it has them.
    func check(_ rc: Int32, _ context: String) {
        switch rc {
        case LAR_OK: return
        case LAR_EDELETED:
            if nested != 0 { invalidatedNested() }
            fatalError("Object has been deleted or invalidated.")
        default: fatalCoreError(rc, context)
        }
    }

    /// Reads an element: objects become accessors in this Realm.
    @inline(__always)
    func element<T: _Persistable>(_ value: lar_value, as type: T.Type) -> T {
        if value.type == LAR_TYPE_LIST || value.type == LAR_TYPE_DICTIONARY { registerNested(value) }
        return T._larderRead(value, owner: instance)
    }

    /// Calls body with the C form of element; an unmanaged object is added first
    /// (with policy), one of another Realm traps, and so does one that was deleted
    /// (the C call refuses it; only then is the file asked why). Nil when adding it failed.
    /// A nested list or dictionary (an `AnyRealmValue`'s) goes in at place, which
    /// says where body writes it: a new empty one, then its contents (see `NestedPlace`).
    ///
    /// An embedded object (of a list or map of them) is created in place by embed,
    /// the C call that makes it from its values and stores it where body would have
    /// stored the link; a managed one traps with Realm's message.
    func withElement(_ element: _StoredValue, update: Realm.UpdatePolicy = .error, place: NestedPlace? = nil,
                     embed: ((UnsafeMutablePointer<lar_value>, Int, UnsafeMutablePointer<lar_obj>) -> Int32)? = nil,
                     _ body: (UnsafePointer<lar_value>) -> Int32) -> Int32? {
        if case .collection(let collection) = element {
            // Only sets write elements without a place.
            guard let place else { fatalError("A MutableSet<AnyRealmValue> cannot hold a nested list or dictionary") }
            return writeNested(NestedSnapshot(collection), at: place, update: update, body)
        }
        guard case .object(let object) = element else { return element.withCValue { body($0) } }
        if ownerTable.schema.embeddedLink[slot] {
            if object.core.realm != nil {
                let kind = property.collection == LAR_COLLECTION_MAP ? "Dictionary" : "List"
                fatalError("Cannot add an existing managed embedded object to a \(kind).")
            }
            guard let embed else { fatalError("Embedded objects cannot be created directly") }
            return instance.createEmbedded(object, update: update, embed)
        }
        if !instance.makeLinkable(object, update: update, checkingExistence: false) { return nil }
        let core = object.core
        var link = lar_value()
        link.type = LAR_TYPE_LINK
        link.as.link = lar_obj(cls: core.table.id, key: core.key)
        let rc = body(&link)
        if rc != LAR_OK { instance.trapIfUnlinkable(object, rc) }
        return rc
    }
}
