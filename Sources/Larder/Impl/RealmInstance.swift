import CLarder
import Foundation

/// One thread's live view of a database file: its transaction, its classes, and
/// the version counter that tells cached reads when to look again.
@usableFromInline
final class RealmInstance {
    let configuration: Realm.Configuration
    let environment: Environment
    let thread = pthread_self()
    var autorefresh = true

    /// The transaction reads and writes go through; nil until needed.
    @exclusivity(unchecked) private var txn: OpaquePointer?
    /// The read transaction, kept between uses so it can be renewed cheaply.
    private var readTxn: OpaquePointer?
    private(set) var isInWriteTransaction = false
    /// Bumped whenever what an object reads may have changed: writes, refreshes, new transactions.
    @exclusivity(unchecked) @usableFromInline private(set) var version: UInt64 = 0
    /// Bumped by `invalidate()`: objects bound before it are invalidated.
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0
    private var tables: [ObjectIdentifier: ManagedClass] = [:]
    private var lastTable: ManagedClass?
    /// Tables made during the current write, and tables retired by a cancelled one:
    /// objects hold them unowned, so they live as long as the instance.
    private var tablesMadeInWrite: [ObjectIdentifier] = []
    private var retiredTables: [ManagedClass] = []
    /// The first error of the current write; `commitWrite` cancels and throws it.
    private var pendingError: Realm.Error?
    /// Numbers the write transactions; objects remember the one that added them.
    private var writeSerial: UInt64 = 0
    private var cancelledWrites: Set<UInt64> = []

    private init(configuration: Realm.Configuration, environment: Environment) {
        self.configuration = configuration
        self.environment = environment
    }

    deinit {
        cache?.remove(self, at: configuration.path)
        if let txn { lar_txn_free(txn) }
        if let readTxn, readTxn != txn { lar_txn_free(readTxn) }
    }

    // MARK: The per-thread cache

    private static let cacheKey = "larder.realms"
    /// This thread's cache, which lists the instance until it is freed.
    private var cache: InstanceCache?

    static func forCurrentThread(_ configuration: Realm.Configuration) throws -> RealmInstance {
        let dictionary = Thread.current.threadDictionary
        let cache = (dictionary[cacheKey] as? InstanceCache) ?? {
            let fresh = InstanceCache()
            dictionary[cacheKey] = fresh
            return fresh
        }()
        let path = configuration.path
        if let cached = cache.instance(at: path), cached.configuration.readOnly == configuration.readOnly {
            if cached.autorefresh { cached.refresh() }
            return cached
        }
        let instance = RealmInstance(configuration: configuration, environment: try Environment.open(configuration))
        if configuration.schemaVersion != 0 || configuration.objectTypes != nil {
            try instance.checkSchemaVersion()
        }
        cache.insert(instance, at: path)
        instance.cache = cache
        return instance
    }

    private func checkSchemaVersion() throws {
        var info = lar_env_info()
        lar_env_info_get(environment.handle, &info)
        if configuration.schemaVersion < info.schema_version {
            throw Realm.Error(.schemaMismatch, "Provided schema version \(configuration.schemaVersion) is less " +
                              "than last set version \(info.schema_version).")
        }
    }

    // MARK: Transactions

    func verifyThread() {
        if pthread_equal(thread, pthread_self()) == 0 { fatalError("Realm accessed from incorrect thread.") }
    }

    /// The active transaction, beginning a read transaction when there is none.
    func currentTxn() -> OpaquePointer {
        if let txn { return txn }
        verifyThread()
        var rc: Int32
        if let readTxn {
            rc = lar_txn_renew(readTxn)
        } else {
            var fresh: OpaquePointer?
            rc = lar_txn_begin(environment.handle, LAR_TXN_READ, &fresh)
            readTxn = fresh
        }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read the Realm at '\(environment.path)'") }
        txn = readTxn
        version &+= 1
        return readTxn!
    }

    private func endRead() {
        if let readTxn, txn == readTxn { lar_txn_commit(readTxn) }
        if !isInWriteTransaction { txn = nil }
        version &+= 1
    }

    func beginWrite() {
        verifyThread()
        if isInWriteTransaction { fatalError("The Realm is already in a write transaction") }
        if configuration.readOnly { fatalError("Can't perform transactions on read-only Realms.") }
        endRead()
        var writer: OpaquePointer?
        let rc = lar_txn_begin(environment.handle, LAR_TXN_WRITE, &writer)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot begin a write transaction") }
        txn = writer
        isInWriteTransaction = true
        writeSerial &+= 1
        pendingError = nil
        version &+= 1
    }

    func commitWrite() throws {
        verifyThread()
        guard isInWriteTransaction, let writer = txn else {
            fatalError("Can't commit a non-existing write transaction")
        }
        if let error = pendingError {
            cancelWrite()
            throw error
        }
        tablesMadeInWrite = []
        let rc = lar_txn_commit(writer)
        let error = rc == LAR_OK ? nil : Realm.Error.last(rc, context: "Cannot commit the write transaction")
        lar_txn_free(writer)
        finishWrite()
        if rc != LAR_OK { environment.forgetClassIDs() }
        if let error { throw error }
    }

    func cancelWrite() {
        verifyThread()
        guard isInWriteTransaction, let writer = txn else {
            fatalError("Can't cancel a non-existing write transaction")
        }
        lar_txn_free(writer)
        cancelledWrites.insert(writeSerial)
        finishWrite()
        // Classes declared in the cancelled write are gone from the file.
        lastTable = nil
        for type in tablesMadeInWrite {
            if let table = tables.removeValue(forKey: type) { retiredTables.append(table) }
        }
        tablesMadeInWrite = []
        environment.forgetClassIDs()
    }

    private func finishWrite() {
        txn = nil
        isInWriteTransaction = false
        pendingError = nil
        version &+= 1
    }

    @discardableResult
    func refresh() -> Bool {
        verifyThread()
        if isInWriteTransaction { return false }
        endRead()
        return true
    }

    func invalidate() {
        verifyThread()
        if isInWriteTransaction { cancelWrite() }
        endRead()
        generation &+= 1
    }

    private func requireWrite() {
        verifyThread()
        if !isInWriteTransaction {
            fatalError("Can only add, remove, or create objects in a Realm in a write transaction - " +
                       "call beginWriteTransaction on an RLMRealm instance first.")
        }
    }

    // MARK: Classes

    /// This instance's view of a class, declaring it to the file if it is new.
    func table(for type: Object.Type) -> ManagedClass {
        // Bulk work touches one class again and again: skip the dictionary then.
        if let last = lastTable, last.schema.type == type { return last }
        if let table = tables[ObjectIdentifier(type)] {
            lastTable = table
            return table
        }
        let schema = ClassSchema.of(type)
        do {
            let id = try environment.classID(for: schema, canDeclare: !configuration.readOnly)
            let table = try ManagedClass(schema: schema, id: id, environment: environment)
            tables[ObjectIdentifier(type)] = table
            if isInWriteTransaction { tablesMadeInWrite.append(ObjectIdentifier(type)) }
            return table
        } catch {
            fatalError("\(error)")
        }
    }

    // MARK: Reading objects

    @inlinable
    func read<Value: _Persistable>(_ core: ObjectCore, slot: Int) -> Value {
        core.tableRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { table in
            // A core's invalidation (its deletion) changed the version, so a row
            // cached at this version is never that of an invalidated core.
            if table.cachedKey != core.key || table.cachedVersion != version { load(core, table) }
            return Value._larderRead(table.slotValues[slot])
        }
    }

    func readStored(_ core: ObjectCore, slot: Int) -> _StoredValue {
        let table = core.table!
        load(core, table)
        return _StoredValue(table.slotValues[slot])
    }

    /// Decodes core's row into its class's one-row cache.
    @usableFromInline @inline(never)
    func load(_ core: ObjectCore, _ table: ManagedClass) {
        verifyThread()
        if isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
        let rc = lar_obj_get_all(currentTxn(), lar_obj(cls: table.id, key: core.key), table.values, table.storedCount)
        if rc == LAR_EDELETED { fatalError("Object has been deleted or invalidated.") }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read an object") }
        table.didDecode(key: core.key, version: version)
    }

    /// Whether the object was deleted through this accessor, invalidated, or added by a cancelled write.
    func isInvalidated(_ core: ObjectCore) -> Bool {
        core.invalidated || core.generation != generation ||
            (core.addedInWrite != 0 && cancelledWrites.contains(core.addedInWrite))
    }

    func exists(_ core: ObjectCore) -> Bool {
        if isInvalidated(core) { return false }
        var exists: Int32 = 0
        lar_obj_exists(currentTxn(), lar_obj(cls: core.table.id, key: core.key), &exists)
        return exists != 0
    }

    /// A managed object of table's class for key.
    func accessor(_ table: ManagedClass, key: lar_objkey) -> Object {
        let object = AccessorConstruction.make(table.schema.type)
        object.bind(to: self, table: table, key: key)
        return object
    }

    func count(_ table: ManagedClass) -> Int {
        var count: UInt64 = 0
        let rc = lar_objects_count(currentTxn(), table.id, &count)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot count objects") }
        return Int(count)
    }

    var isEmpty: Bool {
        let txn = currentTxn()
        return (0..<environment.classCount).allSatisfy { id in
            var count: UInt64 = 0
            return lar_objects_count(txn, id, &count) == LAR_OK && count == 0
        }
    }

    /// The object with a primary key, given in stored form when the caller could
    /// convert it without a dynamic cast, else as it came.
    @usableFromInline
    func object(ofType type: Object.Type, primaryKey stored: _StoredValue?, key: Any?) -> Object? {
        let table = table(for: type)
        guard let found = find(table, primaryKey: stored, key: key) else { return nil }
        return accessor(table, key: found)
    }

    private func find(_ table: ManagedClass, primaryKey stored: _StoredValue?, key: Any?) -> lar_objkey? {
        guard let slot = table.schema.primaryKeySlot else {
            fatalError("'\(table.schema.name)' does not have a primary key")
        }
        let property = table.schema.properties[slot]
        guard let stored = stored.flatMap({ ValueReader.coerce($0, to: property) }) ?? ValueReader.convert(key, to: property) else {
            fatalError("Invalid value '\(key.map { "\($0)" } ?? "nil")' of type '\(key.map { "\(type(of: $0))" } ?? "nil")' " +
                       "for primary key of '\(table.schema.name)'")
        }
        return find(table, stored: stored)
    }

    private func find(_ table: ManagedClass, stored: _StoredValue) -> lar_objkey? {
        var found = lar_obj()
        let txn = currentTxn()
        let rc = stored.withCValue { lar_obj_find(txn, table.id, $0, &found) }
        if rc == LAR_ENOTFOUND { return nil }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot find an object by primary key") }
        return found.key
    }

    // MARK: Writing objects

    @usableFromInline
    func write(_ core: ObjectCore, slot: Int, _ value: _StoredValue) {
        verifyThread()
        if !isInWriteTransaction {
            fatalError("Attempting to modify object outside of a write transaction - call beginWriteTransaction " +
                       "on an RLMRealm instance first.")
        }
        if isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
        let table = core.table!
        // Even to an equal value, as Realm.
        if slot == table.schema.primaryKeySlot { fatalError("Primary key can't be changed after an object is inserted.") }
        let obj = lar_obj(cls: table.id, key: core.key)
        let rc = value.withCValue { lar_obj_set(txn, obj, UInt32(table.propertyIndex[slot]), $0) }
        version &+= 1
        switch rc {
        case LAR_OK: return
        case LAR_EDELETED: fatalError("Object has been deleted or invalidated.")
        default: fatalCoreError(rc, "Cannot set '\(table.schema.name).\(table.schema.properties[slot].name)'")
        }
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
        let table = table(for: type(of: object))
        guard let key = upsert(table, named: nil, defaults: object.unmanagedValues(table.schema), update: update) else { return }
        object.bind(to: self, table: table, key: key, added: true)
        core.addedInWrite = writeSerial
    }

    func create<T: Object>(_ type: T.Type, value: Any, update: Realm.UpdatePolicy) -> T {
        requireWrite()
        let table = table(for: type)
        let prototype = T()
        let named = ValueReader.read(value, schema: table.schema)
        var values = prototype.unmanagedValues(table.schema)
        for (slot, stored) in named { values[slot] = stored }
        guard pendingError == nil,
              let key = upsert(table, named: named, defaults: values, update: update) else {
            prototype.setUnmanagedValues(values, table.schema)
            return prototype
        }
        return unsafeDowncast(accessor(table, key: key), to: T.self)
    }

    /// Creates the object from values, or with an update policy updates the one
    /// with its primary key, writing the named values (nil: all of them). Returns
    /// its key, or nil with the write's error recorded.
    private func upsert(_ table: ManagedClass, named: [(Int, _StoredValue)]?, defaults: ContiguousArray<_StoredValue>,
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
        var created = lar_obj()
        let txn = txn!
        let create = { (values: UnsafeMutablePointer<lar_value>, count: Int) in
            lar_obj_create(txn, table.id, values, count, &created)
        }
        let rc = table.isInSlotOrder ? _StoredValue.withCValues(defaults, create)
                                     : _StoredValue.withCValues(table.storedOrder(defaults), create)
        version &+= 1
        if rc == LAR_EEXISTS, let pk = table.schema.primaryKeySlot {
            let value = defaults[pk].anyValue.map { "\($0)" } ?? "null"
            pendingError = Realm.Error(.fail, "Attempting to create an object of type '\(table.schema.name)' " +
                                       "with an existing primary key value '\(value)'.")
            return nil
        }
        if rc != LAR_OK {
            pendingError = Realm.Error.last(rc, context: "Cannot create an object of type '\(table.schema.name)'")
            return nil
        }
        return created.key
    }

    private func updateExisting(_ table: ManagedClass, key: lar_objkey, named: [(Int, _StoredValue)],
                                update: Realm.UpdatePolicy) {
        let core = ObjectCore()
        core.bind(to: self, table: table, key: key)
        for (slot, value) in named where slot != table.schema.primaryKeySlot {
            if update == .modified && readStored(core, slot: slot) == value { continue }
            write(core, slot: slot, value)
        }
    }

    func delete(_ object: Object) {
        requireWrite()
        let core = object.core
        guard core.realm === self, !isInvalidated(core) else {
            fatalError("Can only delete an object from the Realm it belongs to.")
        }
        let rc = lar_obj_delete(txn, lar_obj(cls: core.table.id, key: core.key))
        version &+= 1
        if rc == LAR_EDELETED { fatalError("Object has been deleted or invalidated.") }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot delete an object") }
        core.invalidated = true
    }

    func delete<Element: Object>(_ results: Results<Element>) {
        requireWrite()
        let table = results.table
        for key in results.keys() {
            let rc = lar_obj_delete(txn, lar_obj(cls: table.id, key: key))
            if rc != LAR_OK && rc != LAR_EDELETED { fatalCoreError(rc, "Cannot delete an object") }
        }
        version &+= 1
    }

    func deleteAll() {
        requireWrite()
        for id in 0..<environment.classCount {
            let rc = lar_objects_delete_all(txn, id)
            if rc != LAR_OK { fatalCoreError(rc, "Cannot delete all objects") }
        }
        version &+= 1
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

/// A thread's Realm instances by path. It holds them unretained, not weakly: a
/// weak reference would put every retain of an instance on the runtime's slow path.
private final class InstanceCache {
    private let lock = NSLock()
    private var instances: [String: Unmanaged<RealmInstance>] = [:]

    func instance(at path: String) -> RealmInstance? {
        lock.withLock { instances[path]?.takeUnretainedValue() }
    }

    func insert(_ instance: RealmInstance, at path: String) {
        lock.withLock { instances[path] = Unmanaged.passUnretained(instance) }
    }

    /// Called by the instance's deinit.
    func remove(_ instance: RealmInstance, at path: String) {
        lock.withLock {
            if instances[path]?.toOpaque() == Unmanaged.passUnretained(instance).toOpaque() {
                instances[path] = nil
            }
        }
    }
}
