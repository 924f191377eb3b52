import CLarder

/// The base class of embedded model classes, as in Realm:
///
///     class Address: EmbeddedObject {
///         @Persisted var street: String?
///         @Persisted var city: String?
///     }
///     class Person: Object {
///         @Persisted var address: Address?
///         @Persisted var pastAddresses: List<Address>
///     }
///
/// An embedded object has exactly one owner: the object whose link, list or map
/// holds it. It is created in place when an unmanaged one is assigned to a
/// managed owner (its values are copied into the new row, and the instance
/// becomes that row's accessor), and deleted when its owner is deleted, when the
/// link is set to another object or nil, or when it leaves its list or map; a
/// replaced one's accessors are invalidated. It has the surface of `Object`
/// minus primary keys and indexes, and may link only to embedded objects.
///
/// Unlike Realm, `EmbeddedObject` is a subclass of `Object` here, so
/// `realm.add(address)` compiles; it traps with Realm's message "Embedded
/// objects cannot be created directly", as `realm.create` does.
/// `realm.objects(Address.self)` traps too: query the owners.
open class EmbeddedObject: Object {
    public required init() {
        super.init()
    }
}

/// An unmanaged embedded object that its new owner's row is created with, in one C call.
/// Unretained: the owner's values hold the object and the registry its table, for the
/// add that makes one (copies through the add's closures retained them, four times each).
struct EmbeddedInRow {
    let slot: Int
    let prop: UInt32
    unowned(unsafe) let object: Object
    unowned(unsafe) let table: ManagedClass
}

/// Realm's name for the class, which `EmbeddedObject` aliases in RealmSwift.
public typealias RealmSwiftEmbeddedObject = EmbeddedObject

extension RealmInstance {
    /// Realm's trap for an embedded object added or created on its own.
    func trapEmbeddedCreatedDirectly() -> Never {
        fatalError("Embedded objects cannot be created directly")
    }

    /// Creates the unmanaged embedded object in place: create is the C call that
    /// makes the row from the values it is given (in stored order) and links it from
    /// its owner. The object becomes the row's accessor; its links and collections
    /// follow, their own embedded objects created in place in turn. Returns the C
    /// call's result.
    func createEmbedded(_ object: Object, update: Realm.UpdatePolicy,
                        _ create: (UnsafeMutablePointer<lar_value>, Int, UnsafeMutablePointer<lar_obj>) -> Int32) -> Int32 {
        // A DynamicObject's class is the one its schema names.
        if _slowPath(type(of: object) == DynamicObject.self) { return createEmbedded(object, in: table(of: object), create) }
        // The link's cached table: an owner's add alternates between two classes, which
        // would miss the registry's last-table shortcut on every call.
        return linkTable(for: type(of: object))._withUnsafeGuaranteedRef { createEmbedded(object, in: $0, create) }
    }

    private func createEmbedded(_ object: Object, in table: ManagedClass,
                                _ create: (UnsafeMutablePointer<lar_value>, Int, UnsafeMutablePointer<lar_obj>) -> Int32) -> Int32 {
        let schema = table.schema
        var created = lar_obj()
        let rc: Int32
        var values: ContiguousArray<_StoredValue> = [], linkSlots: [Int] = []
        if table.createsFromWrappers { // the usual class, of plain values only: no array of them
            rc = object.withUnmanagedCValues(schema) { create($0, $1, &created) }
        } else {
            values = object.unmanagedValues(schema)
            linkSlots = schema.hasRelations ? relationLinkSlots(schema, values) : []
            var rowValues = values // an embedded object's links are never in its new row
            let nulling = rowNulls(schema, &rowValues, linkSlots: linkSlots, inRow: SlotMask())
            rc = table.withRowCValues(rowValues, nulling: nulling) { create($0, $1, &created) }
        }
        version &+= 1
        guard rc == LAR_OK else { return rc }
        table.changes.didCreate(created.key)
        object.bind(to: self, table: table, key: created.key, added: true)
        object.core.addedInWrite = writeSerial
        if schema.hasRelations { fillRelations(object, values: values, linkSlots: linkSlots, update: .error) }
        return LAR_OK
    }

    /// The embedded object of a new owner whose class `createsOwnerFromWrappers`, when
    /// exactly one of its links holds one and its row can be created with it; nil sends
    /// the add the general way (addRelating).
    func soleEmbedded(of owner: Object, _ table: ManagedClass) -> EmbeddedInRow? {
        var found: EmbeddedInRow?
        for slot in table.schema.linkSlots {
            // Through the table's schema: `unmanagedValue(slot:)` asks the class for its own, under a lock.
            guard case .object(let object) = owner.storedValue(at: table.schema.fields[slot]) else { continue }
            guard found == nil, let embedding = embeddedInRow(table, slot: slot, object) else { return nil }
            found = embedding
        }
        return found
    }

    /// The first to-one embedded link of a new owner's values that its row can be created
    /// with (lar_obj_create_with_embedded): an unmanaged object of a model class of plain
    /// values. Others are created in place after the row, by writeEmbedded.
    func embeddedInRow(_ table: ManagedClass, _ values: ContiguousArray<_StoredValue>,
                       linkSlots: [Int]) -> EmbeddedInRow? {
        for slot in linkSlots where table.schema.embeddedLink[slot] {
            if case .object(let object) = values[slot], let embedding = embeddedInRow(table, slot: slot, object) {
                return embedding
            }
        }
        return nil
    }

    /// object, of an embedded link at slot, as a row of table can be created with it: an
    /// unmanaged object of a model class of plain values.
    private func embeddedInRow(_ table: ManagedClass, slot: Int, _ object: Object) -> EmbeddedInRow? {
        guard object.core.instanceRef == nil, type(of: object) != DynamicObject.self else { return nil }
        let target = linkTable(for: type(of: object)).takeUnretainedValue()
        guard target.createsFromWrappers else { return nil }
        return EmbeddedInRow(slot: slot, prop: UInt32(table.propertyIndex[slot]), object: object, table: target)
    }

    /// Creates a row of table from its C values with the embedded object of embedding in
    /// its link, which becomes that object's accessor. Returns the C call's result.
    func createOwner(_ table: ManagedClass, _ values: UnsafeMutablePointer<lar_value>, _ count: Int,
                     with embedding: EmbeddedInRow, _ out: UnsafeMutablePointer<lar_obj>) -> Int32 {
        // Guaranteed references: each use of an unowned(unsafe) field, or of a strong one, retained it.
        Unmanaged.passUnretained(embedding.object)._withUnsafeGuaranteedRef { object in
            Unmanaged.passUnretained(embedding.table)._withUnsafeGuaranteedRef { target in
                createOwner(table, values, count, object, target, slot: embedding.slot, prop: embedding.prop, out)
            }
        }
    }

    private func createOwner(_ table: ManagedClass, _ values: UnsafeMutablePointer<lar_value>, _ count: Int,
                             _ object: Object, _ target: ManagedClass, slot: Int, prop: UInt32,
                             _ out: UnsafeMutablePointer<lar_obj>) -> Int32 {
        var created = lar_obj()
        let rc = withUnsafeMutablePointer(to: &created) { createdOut in
            object.withUnmanagedCValues(target.schema) { embeddedValues, embeddedCount in
                var initial = lar_embedded_init(prop: prop, values: embeddedValues, value_count: embeddedCount)
                return lar_obj_create_with_embedded(txn, table.id, values, count, &initial, 1, out, createdOut)
            }
        }
        guard rc == LAR_OK else { return rc } // the caller, insertRow, counts the write
        target.changes.didCreate(created.key)
        object.bind(to: self, table: target, key: created.key, added: true)
        object.core.addedInWrite = writeSerial
        table.changes.didWrite(slot: slot)
        return LAR_OK
    }

    /// The slots a new row (`ManagedClass.withRowCValues`) takes as null, being written
    /// after it: the collections, and the links of linkSlots not in inRow. A class of over
    /// 64 properties cannot name them all in a mask: values then becomes a copy with them
    /// null, and the mask is empty.
    func rowNulls(_ schema: ClassSchema, _ values: inout ContiguousArray<_StoredValue>, linkSlots: [Int],
                  inRow: SlotMask) -> SlotMask {
        var nulls = SlotMask(schema.collectionSlots)
        for slot in linkSlots where !inRow.contains(slot) { nulls.insert(slot) }
        guard nulls.overflowed else { return nulls }
        for slot in schema.collectionSlots { values[slot] = .null }
        for slot in linkSlots where !inRow.contains(slot) { values[slot] = .null }
        return SlotMask()
    }

    /// Writes an embedded object to the to-one link at slot of core: an unmanaged one
    /// is created in place (the one held before is deleted), or with `.modified`
    /// copied into the one the link holds; the managed one the link holds already
    /// changes nothing; any other managed one traps with Realm's message.
    func writeEmbedded(_ core: ObjectCore, slot: Int, _ object: Object, update: Realm.UpdatePolicy) {
        verifyThread()
        requirePropertyWrite()
        if isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
        let table = core.table!
        if object.core.instanceRef != nil { // managed (the unretained reference: no retain on the usual path)
            if case .object(let held) = readStored(core, slot: slot), held.core.realm === object.core.realm,
               held.core.key == object.core.key, !isInvalidated(object.core) { return }
            fatalError("Can't set link to existing managed embedded object")
        }
        if update == .modified, case .object(let held) = readStored(core, slot: slot) {
            return updateEmbedded(held, from: object)
        }
        let owner = lar_obj(cls: table.id, key: core.key)
        let prop = UInt32(table.propertyIndex[slot])
        let rc = createEmbedded(object, update: update) { values, count, out in
            lar_obj_create_embedded(txn, owner, prop, values, count, out)
        }
        table.changes.didWrite(slot: slot)
        switch rc {
        case LAR_OK: return
        case LAR_EDELETED: fatalError("Object has been deleted or invalidated.")
        default: fatalCoreError(rc, "Cannot set '\(table.schema.name).\(table.schema.properties[slot].name)'")
        }
    }

    /// `.modified` on an embedded object: the values of source that differ are
    /// written into the managed one held, and source becomes its accessor.
    func updateEmbedded(_ held: Object, from source: Object) {
        let table = held.core.table!
        let values = source.unmanagedValues(table.schema)
        for (slot, value) in values.enumerated() {
            if case .collection = value {
                assignCollection(held.core, slot: slot, value, update: .modified)
                continue
            }
            if readStored(held.core, slot: slot) == value { continue }
            writeAny(held.core, slot: slot, value, update: .modified)
        }
        source.bind(to: self, table: table, key: held.core.key)
        for slot in table.schema.collectionSlots {
            if case .collection(let collection) = values[slot], collection.ref == nil {
                collection.bind(CollectionRef(instance: self, owner: source.core, slot: slot))
            }
        }
    }

    /// The link slots an add writes after the row: those holding an object or a nested
    /// collection, and every non-mixed link (a mixed value without either goes in the row).
    func relationLinkSlots(_ schema: ClassSchema, _ values: ContiguousArray<_StoredValue>) -> [Int] {
        let isRelation = { (slot: Int) -> Bool in
            if case .object = values[slot] { return true }
            if case .collection = values[slot] { return true }
            return !schema.properties[slot].isMixed
        }
        // Most rows have all or none: the schema's own array or an empty one, no allocation per add.
        var count = 0
        for slot in schema.linkSlots where isRelation(slot) { count += 1 }
        if count == schema.linkSlots.count { return schema.linkSlots }
        return count == 0 ? [] : schema.linkSlots.filter(isRelation)
    }

    /// Writes the links and collections of a new (or upserted) row bound to object;
    /// linkedInRow: with `.error`, the link slots the new row was created holding.
    func fillRelations(_ object: Object, values: ContiguousArray<_StoredValue>, linkSlots: [Int],
                       linkedInRow: SlotMask = SlotMask(), update: Realm.UpdatePolicy) {
        let schema = object.core.table.schema
        for slot in linkSlots {
            let value = values[slot]
            switch update {
            case .error:
                if case .null = value { continue } // a new row's links are null already
                if linkedInRow.contains(slot) { continue } // linked by the row itself
            case .modified: if readStored(object.core, slot: slot) == value { continue }
            case .all: break
            }
            writeAny(object.core, slot: slot, value, update: update)
        }
        for slot in schema.collectionSlots {
            guard case .collection(let collection) = values[slot] else { continue }
            assignCollection(object.core, slot: slot, .collection(collection), update: update)
            if collection.ref == nil { collection.bind(CollectionRef(instance: self, owner: object.core, slot: slot)) }
        }
    }
}
