import CLarder

/// The object store, writing: property writes, add, create and upsert, deletes.
extension RealmInstance {
    // MARK: Writing objects

    @usableFromInline
    func write(_ core: ObjectCore, slot: Int, _ value: _StoredValue) {
        core.table.changes.didWrite(slot: slot) // results sorted on that property re-sort
        verifyThread()
        requirePropertyWrite()
        let table = core.table!
        if isInvalidated(core) || isReplaced(core, table) { fatalError("Object has been deleted or invalidated.") }
        // Even to an equal value, as Realm.
        if slot == table.schema.primaryKeySlot { fatalError("Primary key can't be changed after an object is inserted.") }
        let obj = lar_obj(cls: table.id, key: core.key)
        let rc = value.withCValue { lar_obj_set(txn, obj, UInt32(table.propertyIndex[slot]), $0) }
        version &+= 1
        // A link's target that was deleted: checked here, after the C call refused it (see makeLinkable).
        if rc != LAR_OK, case .object(let target) = value { trapIfUnlinkable(target, rc) }
        switch rc {
        case LAR_OK: return
        case LAR_EDELETED: fatalError("Object has been deleted or invalidated.")
        default: fatalCoreError(rc, "Cannot set '\(table.schema.name).\(table.schema.properties[slot].name)'")
        }
    }

    /// Writes a value of any kind: a link's unmanaged target is added first (with
    /// update), as Realm does when a link is set; a collection replaces the elements.
    func writeAny(_ core: ObjectCore, slot: Int, _ value: _StoredValue, update: Realm.UpdatePolicy = .error) {
        switch value {
        case .collection: return assignCollection(core, slot: slot, value, update: update)
        case .object(let target):
            if core.table.schema.embeddedLink[slot] { return writeEmbedded(core, slot: slot, target, update: update) }
            verifyThread()
            requirePropertyWrite()
            if !makeLinkable(target, update: update, checkingExistence: false) { return }
        default: break
        }
        write(core, slot: slot, value)
    }

    /// Realm's trap for a property set outside a write transaction.
    func requirePropertyWrite() {
        if !isInWriteTransaction {
            if isFrozen { fatalError("Attempting to modify a frozen object - call thaw on the Object instance first.") }
            fatalError("Attempting to modify object outside of a write transaction - call beginWriteTransaction " +
                       "on an RLMRealm instance first.")
        }
    }

    /// A link property's write, kept off the path of plain values.
    @usableFromInline
    func writeLink(_ core: ObjectCore, slot: Int, _ value: _StoredValue) {
        writeAny(core, slot: slot, value)
    }

    func add(_ object: Object, update: Realm.UpdatePolicy) {
        requireWrite()
        guard pendingError == nil else { return }
        let core = object.core
        if let owner = core.realm {
            if owner !== self {
                fatalError("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
            }
            if !exists(core) {
                fatalError("Adding a deleted or invalidated object to a Realm is not permitted")
            }
            return
        }
        let table = table(of: object)
        let schema = table.schema
        if schema.isEmbedded { trapEmbeddedCreatedDirectly() }
        let key: lar_objkey?
        if update == .error && table.createsFromWrappers {
            // The usual new object of plain values: created from its wrappers, no array of them.
            let txn = txn!, id = table.id
            key = insertRow(table, primaryKey: { object.unmanagedValue(slot: $0) }) { out in
                object.withUnmanagedCValues(schema) { lar_obj_create(txn, id, $0, $1, out) }
            }
        } else if update == .error && table.createsOwnerFromWrappers, let embedding = soleEmbedded(of: object, table) {
            // The usual owner of an embedded object: both created from their wrappers in one call.
            key = insertRow(table, primaryKey: { object.unmanagedValue(slot: $0) }) { out in
                object.withUnmanagedCValues(schema, nulling: schema.linkSlotMask) {
                    createOwner(table, $0, $1, with: embedding, out)
                }
            }
        } else {
            let values = object.unmanagedValues(schema)
            if schema.hasRelations { return addRelating(object, table: table, values: values, update: update) }
            key = upsert(table, named: nil, defaults: values, update: update)
        }
        guard let key else { return }
        object.bind(to: self, table: table, key: key, added: true)
        core.addedInWrite = writeSerial
    }

    /// Adds an object with links or collections: its row first, with the links
    /// null and the collections empty, then the links and the collections'
    /// elements, adding unmanaged objects they hold with the same policy. The
    /// object is managed before its targets are added, so a cycle back to it links it.
    private func addRelating(_ object: Object, table: ManagedClass, values: ContiguousArray<_StoredValue>,
                             update: Realm.UpdatePolicy) {
        let schema = table.schema
        // A mixed value that holds no object or nested collection goes in the row with the plain values.
        let linkSlots = relationLinkSlots(schema, values)
        // A new object's link to an object this Realm manages goes into its row: one
        // C write instead of two. Other targets are linked once the object is managed,
        // so that an unmanaged one is added first and a cycle back to it links it; an
        // embedded object is never linked as it is (created in place, or Realm's trap).
        // Decided before the object is managed: a link to itself is written after the row.
        var inRow = SlotMask()
        if update == .error { for slot in linkSlots where isLinkableInRow(values[slot]) { inRow.insert(slot) } }
        var rowValues = values
        let heldApart = rowNulls(schema, &rowValues, linkSlots: linkSlots, inRow: inRow)
        let named = update == .error ? nil : schema.properties.indices
            .filter { !linkSlots.contains($0) && !schema.collectionSlots.contains($0) }
            .map { ($0, values[$0]) }
        // The usual `person.address = Address(...)`: the address is created with the row.
        let embedding = update == .error ? embeddedInRow(table, values, linkSlots: linkSlots) : nil
        guard let key = upsert(table, named: named, defaults: rowValues, nulling: heldApart, embedding: embedding,
                               update: update) else {
            // The C create refuses a link to a deleted object: Realm's trap, as linking it later would.
            for slot in linkSlots where inRow.contains(slot) {
                if case .object(let target) = values[slot] { trapIfUnlinkable(target, LAR_EINVAL) }
            }
            return
        }
        object.bind(to: self, table: table, key: key, added: true)
        object.core.addedInWrite = writeSerial
        if let embedding { inRow.insert(embedding.slot) }
        fillRelations(object, values: values, linkSlots: linkSlots, linkedInRow: inRow, update: update)
    }

    /// Whether value links to an object of this Realm that a new row may hold as it is
    /// (not an embedded one: writeEmbedded creates those in place, or traps).
    private func isLinkableInRow(_ value: _StoredValue) -> Bool {
        guard case .object(let target) = value, target.core.realm === self,
              target.core.table?.schema.isEmbedded == false else { return false }
        return !isInvalidated(target.core)
    }

    func create<T: Object>(_ type: T.Type, value: Any, update: Realm.UpdatePolicy) -> T {
        unsafeDowncast(createObject(type, value: value, update: update), to: T.self)
    }

    func createObject(_ type: Object.Type, value: Any, update: Realm.UpdatePolicy) -> Object {
        requireWrite()
        return createObject(in: table(for: type), value: value, update: update)
    }

    /// Creates an object of table's class (a model class's, or a `DynamicObject`'s
    /// class of the file, whose values not given are Realm's defaults for their types).
    func createObject(in table: ManagedClass, value: Any, update: Realm.UpdatePolicy) -> Object {
        if table.schema.isEmbedded { trapEmbeddedCreatedDirectly() }
        let prototype = table.schema.type.init()
        var named = ValueReader.read(value, schema: table.schema, creating: .init(instance: self, update: update))
        var values = table.schema.isDynamic ? table.schema.dynamicDefaults(named) : prototype.unmanagedValues(table.schema)
        for (slot, stored) in named { values[slot] = stored }
        // Embedded objects are created in place once their owner exists.
        var embedded: [(Int, _StoredValue)] = []
        for slot in table.schema.linkSlots where table.schema.embeddedLink[slot] {
            if case .object = values[slot] { embedded.append((slot, values[slot])) }
            values[slot] = .null
        }
        if !embedded.isEmpty { named = named.filter { !table.schema.embeddedLink[$0.0] } }
        for slot in table.schema.linkSlots where !table.schema.embeddedLink[slot] {
            // An initial value of a link is an unmanaged object: added with the new one.
            if case .object(let target) = values[slot], !makeLinkable(target, update: update) { values[slot] = .null }
        }
        guard pendingError == nil,
              let key = upsert(table, named: named, defaults: values, update: update) else {
            if !table.schema.isDynamic { prototype.setUnmanagedValues(values, table.schema) }
            return prototype
        }
        let created = accessor(table, key: key)
        for (slot, value) in embedded { writeAny(created.core, slot: slot, value, update: update) }
        return created
    }

    /// Creates the object from values, or with an update policy updates the one
    /// with its primary key, writing the named values (nil: all of them). Returns
    /// its key, or nil with the write's error recorded.
    /// nulling: slots a new row takes as null whatever defaults holds (written after it);
    /// embedding: an embedded object a new row is created with (its slot among nulling).
    private func upsert(_ table: ManagedClass, named: [(Int, _StoredValue)]?, defaults: ContiguousArray<_StoredValue>,
                        nulling: SlotMask = SlotMask(), embedding: EmbeddedInRow? = nil,
                        update: Realm.UpdatePolicy) -> lar_objkey? {
        if update != .error {
            guard let pk = table.schema.primaryKeySlot else {
                fatalError("'\(table.schema.name)' does not have a primary key and can not be updated")
            }
            if let existing = find(table, stored: defaults[pk]) {
                let changes = named ?? defaults.enumerated().map { ($0.offset, $0.element) }
                updateExisting(table, key: existing, named: changes, update: update)
                return existing
            }
        }
        let txn = txn!, id = table.id
        guard let key = insertRow(table, primaryKey: { defaults[$0] }, { out in
            table.withRowCValues(defaults, nulling: nulling) { values, count in
                guard let embedding else { return lar_obj_create(txn, id, values, count, out) }
                return createOwner(table, values, count, with: embedding, out)
            }
        }) else { return nil }
        if !table.schema.collectionSlots.isEmpty || !table.mixedValueSlots.isEmpty {
            fillCollections(table, key: key, values: defaults, skipping: nulling)
        }
        return key
    }

    /// Creates a row of table with create, which writes the new object to its pointer:
    /// its key, or nil with the write's error recorded (primaryKey(slot) names the value
    /// in Realm's error for a taken primary key).
    private func insertRow(_ table: ManagedClass, primaryKey: (Int) -> _StoredValue,
                           _ create: (UnsafeMutablePointer<lar_obj>) -> Int32) -> lar_objkey? {
        // A pointer passed down: a closure capturing `created` itself boxed it on the
        // heap and checked its exclusivity, twice per add.
        var created = lar_obj()
        let rc = withUnsafeMutablePointer(to: &created, create)
        version &+= 1
        if rc == LAR_EEXISTS, let pk = table.schema.primaryKeySlot {
            let value = primaryKey(pk).anyValue.map { "\($0)" } ?? "null"
            pendingError = Realm.Error(.fail, "Attempting to create an object of type '\(table.schema.name)' " +
                                       "with an existing primary key value '\(value)'.")
            return nil
        }
        if rc != LAR_OK {
            pendingError = Realm.Error.last(rc, context: "Cannot create an object of type '\(table.schema.name)'")
            return nil
        }
        table.changes.didCreate(created.key)
        return created.key
    }

    private func updateExisting(_ table: ManagedClass, key: lar_objkey, named: [(Int, _StoredValue)],
                                update: Realm.UpdatePolicy) {
        let core = ObjectCore()
        core.bind(to: self, table: table, key: key)
        for (slot, value) in named where slot != table.schema.primaryKeySlot {
            if case .collection = value {
                assignCollection(core, slot: slot, value, update: update)
                continue
            }
            if update == .modified && readStored(core, slot: slot) == value { continue }
            writeAny(core, slot: slot, value, update: update)
        }
    }

    func delete(_ object: Object) {
        requireWrite()
        let core = object.core
        guard core.realm === self, !isInvalidated(core) else {
            fatalError("Can only delete an object from the Realm it belongs to.")
        }
        if isReplaced(core, core.table) { fatalError("Object has been deleted or invalidated.") }
        let rc = lar_obj_delete(txn, lar_obj(cls: core.table.id, key: core.key))
        version &+= 1
        core.table.changes.didDelete()
        // A cascade may have deleted objects of other classes: their results must look again.
        if core.table.schema.hasCascades { state.membershipChanged() }
        if rc == LAR_EDELETED { fatalError("Object has been deleted or invalidated.") }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot delete an object") }
        core.invalidated = true
    }

    /// Deletes objects in order; one that a cascading delete earlier in the call
    /// already deleted (a person's dog, listed after the person) is skipped.
    func delete(_ objects: [Object]) {
        var cascaded = false
        for object in objects {
            let core = object.core
            if cascaded, core.realm === self, !isInvalidated(core), !exists(core) {
                core.invalidated = true
                continue
            }
            delete(object)
            cascaded = cascaded || core.table.schema.hasCascades
        }
    }

    func delete<Element: Object>(_ results: Results<Element>) {
        requireWrite()
        let table = results.table
        for key in results.keys() {
            let rc = lar_obj_delete(txn, lar_obj(cls: table.id, key: key))
            if rc != LAR_OK && rc != LAR_EDELETED { fatalCoreError(rc, "Cannot delete an object") }
        }
        version &+= 1
        table.changes.didDelete()
        if table.schema.hasCascades { state.membershipChanged() }
    }

    func deleteAll() {
        requireWrite()
        for id in 0..<environment.classCount {
            let rc = lar_objects_delete_all(txn, id)
            if rc != LAR_OK { fatalCoreError(rc, "Cannot delete all objects") }
        }
        version &+= 1
        state.membershipChanged()
    }

}
