import CLarder
import CLarderSwift

/// The object store, reading: property reads through the class's one-row
/// cache, accessors, counts, primary-key lookups and iterators.
extension RealmInstance {
    // MARK: Reading objects

    @inlinable
    func read<Value: _Persistable>(_ core: ObjectCore, slot: Int) -> Value {
        core.tableRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { table in
            // A core's invalidation (its deletion) changed the version, so a row
            // cached at this version is never that of an invalidated core.
            // The stamp holds the reading thread, so another thread misses the cache and load traps.
            if table.cachedKey != core.key || table.cachedVersion != cacheStamp {
                // A frozen instance's classes cache no row (see frozenRead): live reads never get here.
                if _slowPath(isFrozen) { return frozenRead(core, table, slot: slot) }
                load(core, table, unlessProjectedHolds: slot)
            }
            // A link's accessor is kept by the object it was read from (ObjectCore.parkedLink).
            return Value._larderRead(table.slotValues[slot], owner: Value._larderType == LAR_TYPE_LINK ? core : self)
        }
    }

    func readStored(_ core: ObjectCore, slot: Int) -> _StoredValue {
        serialized { readStoredValue(core, slot: slot) }
    }

    private func readStoredValue(_ core: ObjectCore, slot: Int) -> _StoredValue {
        let table = core.table!
        let property = table.schema.properties[slot]
        if property.isCollection {
            if isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
            guard let collection = property.valueType._larderManaged(realm: self, owner: core, slot: slot)
                    as? _LarderCollection else { return .null }
            return .collection(collection)
        }
        load(core, table)
        let value = table.slotValues[slot]
        if value.type == LAR_TYPE_LINK { return .object(linkedObject(value, property: table.schema.properties[slot])) }
        if let nested = storedMixed(value, table: table, key: core.key, slot: slot) { return nested }
        return _StoredValue(value)
    }

    /// Decodes core's row into its class's one-row cache, unless a projected walk's step
    /// decoded slot of it (out of line, as `load`: property reads inline only their hit).
    @usableFromInline @inline(never)
    func load(_ core: ObjectCore, _ table: ManagedClass, unlessProjectedHolds slot: Int) {
        if !table.projectedRowHolds(core.key, slot: slot, stamp: cacheStamp) { load(core, table) }
    }

    /// Decodes core's row into its class's one-row cache.
    @usableFromInline @inline(never)
    func load(_ core: ObjectCore, _ table: ManagedClass) {
        // The thread is asked once here (verifyThread, currentTxn and decodeStamp asked four times).
        let onOwnThread = threadToken == larder_swift_thread_token()
        if !onOwnThread {
            verifyConfinement()
            // In a queue's or an actor's work a row decoded here keeps a stamp no read
            // matches (`decodeStamp`); the check just made lets this thread read it again.
            if table.cachedKey == core.key && table.cachedVersion == decodeStamp { return }
        }
        if isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
        let txn = state.txn ?? state.current(in: environment)
        let rc = lar_obj_get_all(txn, lar_obj(cls: table.id, key: core.key), table.values, table.storedCount)
        // The stamp check first: the transaction taken above made `version` its own.
        if rc == LAR_EDELETED || (rc == LAR_OK && table.reusesKeys && core.stampCheckedAt != version
                                  && isReplaced(core, table)) {
            fatalError("Object has been deleted or invalidated.")
        }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read an object") }
        // Asked after the transaction: beginning a read transaction moves the version.
        table.didDecode(key: core.key, version: onOwnThread ? cacheStamp : decodeStamp)
    }

    /// Whether the object was deleted through this accessor, invalidated, or added by a cancelled write.
    func isInvalidated(_ core: ObjectCore) -> Bool {
        core.invalidated || core.generation != generation ||
            state.wasCancelled(write: core.addedInWrite)
    }

    func exists(_ core: ObjectCore) -> Bool {
        serialized { existsNow(core) }
    }

    private func existsNow(_ core: ObjectCore) -> Bool {
        verifyThread()
        if isInvalidated(core) { return false }
        var exists: Int32 = 0
        lar_obj_exists(currentTxn(), lar_obj(cls: core.table.id, key: core.key), &exists)
        return exists != 0 && !isReplaced(core, core.table)
    }

    /// The stamp of table's object key (0 when it has none, or no object has the key).
    func stamp(of key: lar_objkey, in table: ManagedClass) -> UInt64 {
        var stamp: UInt64 = 0
        return lar_obj_stamp(currentTxn(), lar_obj(cls: table.id, key: key), &stamp) == LAR_OK ? stamp : 0
    }

    /// Whether core's object was deleted and its key taken by a new object with the same primary key.
    func isReplaced(_ core: ObjectCore, _ table: ManagedClass) -> Bool {
        guard table.reusesKeys else { return false }
        _ = currentTxn() // so that the version below is the current transaction's
        if core.stampCheckedAt == version { return false }
        if stamp(of: core.key, in: table) != core.stamp { return true }
        core.stampCheckedAt = version
        return false
    }

    /// A managed object of table's class for key, whose stamp (`lar_obj_stamp`) the
    /// caller may have read already.
    func accessor(_ table: ManagedClass, key: lar_objkey, stamp: UInt64? = nil) -> Object {
        let object = AccessorConstruction.make(table.schema.type)
        if _slowPath(isFrozen) {
            serialized { object.bind(to: self, table: table, key: key, stamp: stamp) }
        } else {
            object.bind(to: self, table: table, key: key, stamp: stamp)
        }
        return object
    }

    func count(_ table: ManagedClass) -> Int {
        var count: UInt64 = 0
        let rc = serialized { lar_objects_count(currentTxn(), table.id, &count) }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot count objects") }
        return Int(count)
    }

    var isEmpty: Bool {
        serialized { isEmptyNow }
    }

    private var isEmptyNow: Bool {
        let txn = currentTxn()
        return (0..<environment.classCount).allSatisfy { id in
            var count: UInt64 = 0
            return lar_objects_count(txn, id, &count) == LAR_OK && count == 0
        }
    }

    /// The object with a primary key, given in stored form when the caller could
    /// convert it without a dynamic cast, else as it came. The key as it came is asked
    /// for only when the stored form does not do: boxing an Int into `Any` and freeing
    /// it cost more than the rest of a lookup's Swift side.
    @usableFromInline
    func object(ofType type: Object.Type, primaryKey stored: _StoredValue?, key: () -> Any?) -> Object? {
        object(in: table(for: type), primaryKey: stored, key: key)
    }

    func object(in table: ManagedClass, primaryKey stored: _StoredValue?, key: () -> Any?) -> Object? {
        let found = _slowPath(isFrozen) ? serialized { find(table, primaryKey: stored, key: key) }
                                        : find(table, primaryKey: stored, key: key)
        guard let found else { return nil }
        return accessor(table, key: found.key, stamp: found.stamp)
    }

    /// The object with a primary key and its stamp, read by the lookup (no second call to take it).
    typealias Found = (key: lar_objkey, stamp: UInt64)

    private func find(_ table: ManagedClass, primaryKey stored: _StoredValue?, key asGiven: () -> Any?) -> Found? {
        if table.primaryKeyTakesEveryInt, case .int(let int)? = stored { return find(table, int: int) }
        let key = asGiven()
        guard let slot = table.schema.primaryKeySlot else {
            fatalError("'\(table.schema.name)' does not have a primary key")
        }
        let property = table.schema.properties[slot]
        guard let stored = stored.flatMap({ ValueReader.coerce($0, to: property) }) ?? ValueReader.convert(key, to: property) else {
            fatalError("Invalid value '\(key.map { "\($0)" } ?? "nil")' of type '\(key.map { "\(type(of: $0))" } ?? "nil")' " +
                       "for primary key of '\(table.schema.name)'")
        }
        return findStamped(table, stored: stored)
    }

    /// The usual lookup, by an Int: the C value built in place, no conversion.
    private func find(_ table: ManagedClass, int: Int64) -> Found? {
        var value = lar_value()
        value.type = LAR_TYPE_INT
        value.as.integer = int
        var found = lar_obj(), stamp: UInt64 = 0
        let rc = lar_obj_find_stamped(currentTxn(), table.id, &value, &found, &stamp)
        if rc == LAR_ENOTFOUND { return nil }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot find an object by primary key") }
        return (found.key, stamp)
    }

    func find(_ table: ManagedClass, stored: _StoredValue) -> lar_objkey? {
        findStamped(table, stored: stored)?.key
    }

    private func findStamped(_ table: ManagedClass, stored: _StoredValue) -> Found? {
        var found = lar_obj(), stamp: UInt64 = 0
        let txn = currentTxn()
        let rc = stored.withCValue { lar_obj_find_stamped(txn, table.id, $0, &found, &stamp) }
        if rc == LAR_ENOTFOUND { return nil }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot find an object by primary key") }
        return (found.key, stamp)
    }


    // MARK: Iterating

    /// Opens a C iterator over table in the current transaction, resuming at key from.
    func openIterator(_ table: ManagedClass, from key: lar_objkey) -> OpaquePointer {
        var iterator: OpaquePointer?
        let rc = lar_iter_open(currentTxn(), table.id, &iterator)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
        if key > 0 { lar_iter_seek(iterator, key) }
        return iterator!
    }
}
