import CLarder
import Foundation

/// One open database file, shared by every Realm instance on it in this process.
/// Owns the C environment handle.
// Unchecked: `classIDs` is guarded by `lock`; the C environment handle is thread-safe
// (LMDB environments are shared by threads; transactions are not, and stay per instance).
final class Environment: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    /// One writer at a time in this process, waited for before LMDB's lock.
    let writeGate = WriteGate()
    private let lock = NSLock()
    private var classIDs: [ObjectIdentifier: lar_class] = [:]
    /// Resolved queries for reuse; a query in use keeps its environment alive.
    let queryPool = QueryPool()

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit {
        CommitWatcher.end(for: self)
        queryPool.drain()
        lar_env_close(handle)
    }

    private static let registryLock = NSLock()
    // Safe: read and written only under `lock`.
    nonisolated(unsafe) private static var registry: [String: WeakEnvironment] = [:]

    /// The environment of configuration's file, opened if needed, with configuration's
    /// classes checked against the file and declared to it.
    static func open(_ configuration: Realm.Configuration) throws -> Environment {
        if configuration.deleteRealmIfMigrationNeeded && configuration.readOnly {
            throw Realm.Error(.invalidInput, "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        }
        let path = configuration.path
        registryLock.lock()
        defer { registryLock.unlock() }
        if let open = registry[path]?.environment {
            try open.prepare(for: configuration)
            return open
        }
        let environment: Environment
        do {
            environment = try openPrepared(path: path, configuration: configuration)
        } catch let error as Realm.Error where error.code == .schemaMismatch && configuration.deleteRealmIfMigrationNeeded {
            // The environment that found the mismatch is closed by now: nothing in this process has the file open.
            try FileManager.default.removeItem(atPath: path)
            environment = try openPrepared(path: path, configuration: configuration)
        }
        registry[path] = WeakEnvironment(environment: environment)
        return environment
    }

    private static func openPrepared(path: String, configuration: Realm.Configuration) throws -> Environment {
        let environment = try create(path: path, configuration: configuration)
        try environment.prepare(for: configuration)
        return environment
    }

    /// Whether this process has the file at path open.
    static func isOpen(at path: String) -> Bool {
        registryLock.withLock { registry[path]?.environment != nil }
    }

    /// Checks the schema version and configuration's classes against the file, then
    /// declares the classes the file lacks, unless the Realm is read-only.
    private func prepare(for configuration: Realm.Configuration) throws {
        var info = lar_env_info()
        lar_env_info_get(handle, &info)
        if configuration.schemaVersion < info.schema_version {
            throw Realm.Error(.schemaMismatch, "Provided schema version \(configuration.schemaVersion) is less " +
                              "than last set version \(info.schema_version).")
        }
        let schemas = try Self.schemas(of: configuration)
        let stored = schemas.map(storedDifferences(of:))
        let differences = stored.flatMap { $0?.messages ?? [] }
        if !differences.isEmpty { throw SchemaDifferences.migrationRequired(differences) }
        // Declaring takes the write lock: only when there is something to write.
        let missing = zip(schemas, stored).filter { $0.1 == nil }.map(\.0)
        if !configuration.readOnly && (!missing.isEmpty || configuration.schemaVersion > info.schema_version) {
            try declare(missing, version: configuration.schemaVersion)
        }
    }

    /// The classes a configuration names; without objectTypes, the model classes
    /// met so far whose names are unambiguous (the rest are checked on first use).
    private static func schemas(of configuration: Realm.Configuration) throws -> [ClassSchema] {
        guard let types = configuration.objectTypes else {
            // Classes Realm refuses are left to their first use, which traps.
            let known = ClassSchema.all.filter { !$0.properties.isEmpty && $0.optionalMixedMessage == nil }
            let counts = Dictionary(known.map { ($0.name, 1) }, uniquingKeysWith: +)
            return known.filter { counts[$0.name] == 1 }
        }
        let schemas = types.map(ClassSchema.of)
        if let empty = schemas.first(where: { $0.properties.isEmpty }) {
            throw Realm.Error(.invalidInput, empty.noPropertiesMessage)
        }
        if let message = schemas.lazy.compactMap(\.optionalMixedMessage).first {
            throw Realm.Error(.invalidInput, message)
        }
        try checkLinkTargets(schemas)
        return schemas
    }

    /// Realm refuses objectTypes whose links point to a class outside them.
    private static func checkLinkTargets(_ schemas: [ClassSchema]) throws {
        let names = Set(schemas.map(\.name))
        var errors: [String] = []
        for schema in schemas {
            for property in schema.properties {
                guard let target = property.targetClass?.className(), !names.contains(target) else { continue }
                let kind = [LAR_COLLECTION_LIST: "array", LAR_COLLECTION_SET: "set", LAR_COLLECTION_MAP: "dictionary"]
                errors.append("Property '\(schema.name).\(property.name)' of type '\(kind[property.collection] ?? "object")' " +
                              "has unknown object type '\(target)'")
            }
        }
        for schema in schemas {
            for linking in schema.linkingObjects {
                if let error = linkingObjectsError(linking, in: schema, known: names) { errors.append(error) }
            }
        }
        if !errors.isEmpty { throw validationFailed(errors) }
    }

    private static func validationFailed(_ errors: [String]) -> Realm.Error {
        Realm.Error(.schemaMismatch, "Schema validation failed due to the following errors:" +
                    errors.map { "\n- \($0)" }.joined())
    }

    /// Realm's complaint about a LinkingObjects property whose origin is missing or does not link here;
    /// names, when given, are the classes of the configuration (the origin must be one).
    private static func linkingObjectsError(_ linking: LinkingObjectsSchema, in schema: ClassSchema,
                                            known names: Set<String>?) -> String? {
        let originName = linking.origin.className()
        if let names, !names.contains(originName) {
            return "Property '\(schema.name).\(linking.name)' of type 'linking objects' has unknown object type '\(originName)'"
        }
        let origin = ClassSchema.of(linking.origin)
        let declared = "Property '\(originName).\(linking.originProperty)' declared as origin of linking objects " +
            "property '\(schema.name).\(linking.name)'"
        guard let slot = origin.slotByName[linking.originProperty] else { return declared + " does not exist" }
        guard let target = origin.properties[slot].targetClass else { return declared + " is not a link" }
        if target.className() != schema.name { return declared + " links to type '\(target.className())'" }
        return nil
    }

    /// How schema differs from its stored class; nil when the file lacks the class.
    private func storedDifferences(of schema: ClassSchema) -> SchemaDifferences? {
        var id = lar_class()
        guard lar_class_find(handle, schema.name, &id) == LAR_OK else { return nil }
        return SchemaDifferences(schema, stored: id, in: handle)
    }

    private static func create(path: String, configuration: Realm.Configuration) throws -> Environment {
        let directory = (path as NSString).deletingLastPathComponent
        // A read-only Realm may live in a directory it cannot write (a bundled database): create nothing.
        if !configuration.readOnly && !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        if configuration.readOnly && !FileManager.default.fileExists(atPath: path) {
            throw Realm.Error(.fileNotFound, "Unable to open a realm at path '\(path)': No such file or directory.")
        }
        var options = lar_env_options()
        lar_env_options_init(&options) // the default map: address space for any file, grown by no write
        if configuration.readOnly { options.flags |= LAR_ENV_READONLY }
        if configuration.inMemoryIdentifier != nil { options.flags |= LAR_ENV_NOSYNC }
        var handle: OpaquePointer?
        let rc = lar_env_open(path, &options, &handle)
        guard rc == LAR_OK, let handle else {
            throw Realm.Error.last(rc, context: "Unable to open a realm at path '\(path)'")
        }
        if configuration.inMemoryIdentifier != nil {
            // The environment keeps both files open and never opens them by path
            // again, and other instances share it through the registry: unlinked
            // now, they vanish when it closes, even if the process is killed.
            unlink(path)
            unlink(path + "-lock")
        }
        return Environment(handle: handle, path: path)
    }

    /// Declares classes to the file (adding new ones); inside the calling thread's
    /// write transaction when it has one.
    /// Classes their links reach are declared with them when the file lacks them.
    func declare(_ requested: [ClassSchema], version: UInt64? = nil) throws {
        let schemas = withLinkedClassesMissing(requested)
        guard !schemas.isEmpty || version != nil else { return }
        var info = lar_env_info()
        lar_env_info_get(handle, &info)
        let rc = withClassDefs(schemas) { defs in
            lar_schema_apply(handle, defs.baseAddress, defs.count, version ?? info.schema_version)
        }
        if rc != LAR_OK { throw Realm.Error.last(rc) }
    }

    /// schemas, and the classes their links reach that the file lacks, each once.
    private func withLinkedClassesMissing(_ schemas: [ClassSchema]) -> [ClassSchema] {
        var names = Set(schemas.map(\.name))
        var all = schemas
        for schema in schemas where schema.hasRelations {
            for linked in schema.withLinkedClasses where !names.contains(linked.name) {
                var id = lar_class()
                guard lar_class_find(handle, linked.name, &id) == LAR_ENOTFOUND else { continue }
                names.insert(linked.name)
                all.append(linked)
            }
        }
        return all
    }

    private func withClassDefs<R>(_ schemas: [ClassSchema], _ body: (UnsafeBufferPointer<lar_class_def>) -> R) -> R {
        var defs: [lar_class_def] = []
        func collect(_ index: Int) -> R {
            if index == schemas.count { return defs.withUnsafeBufferPointer(body) }
            return schemas[index].withClassDef { def in
                defs.append(def)
                return collect(index + 1)
            }
        }
        return collect(0)
    }

    /// The file's id for a class, declaring the class first when the file lacks it;
    /// throws when the stored class differs from schema.
    func classID(for schema: ClassSchema, canDeclare: Bool) throws -> lar_class {
        let key = ObjectIdentifier(schema.type)
        if let id = lock.withLock({ classIDs[key] }) { return id }
        var id = lar_class()
        var rc = lar_class_find(handle, schema.name, &id)
        if rc == LAR_ENOTFOUND && canDeclare {
            try declare([schema])
            rc = lar_class_find(handle, schema.name, &id)
        }
        if rc == LAR_ENOTFOUND {
            throw Realm.Error(.schemaMismatch, "Object type '\(schema.name)' is not managed by the Realm.")
        }
        if rc != LAR_OK { throw Realm.Error.last(rc) }
        let differences = SchemaDifferences(schema, stored: id, in: handle)
        if !differences.isEmpty { throw SchemaDifferences.migrationRequired(differences.messages) }
        // Without objectTypes a class's LinkingObjects meet their origin here, on first use.
        let originErrors = schema.linkingObjects.compactMap { Self.linkingObjectsError($0, in: schema, known: nil) }
        if !originErrors.isEmpty { throw Self.validationFailed(originErrors) }
        lock.withLock { classIDs[key] = id }
        return id
    }

    /// Forgets class ids learned inside a write that was cancelled: they may not exist.
    func forgetClassIDs() {
        lock.withLock { classIDs.removeAll() }
    }

    var classCount: UInt32 {
        var info = lar_env_info()
        lar_env_info_get(handle, &info)
        return info.class_count
    }
}

private struct WeakEnvironment {
    weak var environment: Environment?
}

/// A class as one Realm instance reads it: the file's class id, where each Swift
/// property sits in the stored row, and a one-row cache of decoded values.
@usableFromInline
final class ManagedClass {
    let schema: ClassSchema
    let id: lar_class
    /// For each Swift slot, the stored property index.
    let propertyIndex: UnsafeMutablePointer<Int>
    /// The last row read, in stored property order.
    let values: UnsafeMutablePointer<lar_value>
    /// The same row in Swift slot order, which property reads index: `values`
    /// itself when the orders agree, as they do for classes this program
    /// declared; else a copy that `didDecode` rearranges.
    @usableFromInline let slotValues: UnsafeMutablePointer<lar_value>
    let storedCount: Int
    /// Whether the primary key is an int, by which the core keys objects (its rule:
    /// `keyed_by_primary` in CCore/catalog): the key of a deleted object then returns
    /// with a new object of the same primary key (see `lar_obj_stamp`).
    let reusesKeys: Bool
    /// The primary key is an `Int` or `Int64` (optional or not): every Int is a valid key,
    /// so a lookup by an Int needs no conversion or range check.
    let primaryKeyTakesEveryInt: Bool
    @exclusivity(unchecked) @usableFromInline var cachedKey: lar_objkey = 0
    @exclusivity(unchecked) @usableFromInline var cachedVersion: UInt64 = .max
    /// A projected walk's row (`ResultsWalker`): `values` holds, of the row of
    /// projectedKey at projectedVersion, only the slots in `projectedSlots`; the
    /// full-row cache above then names no row. Each decode names one cache or the other.
    @exclusivity(unchecked) var projectedKey: lar_objkey = 0
    @exclusivity(unchecked) var projectedVersion: UInt64 = .max
    @exclusivity(unchecked) var projectedSlots = SlotMask()
    /// Slots read from a projected row that did not hold them: projected walks decode
    /// them from their next step on.
    @exclusivity(unchecked) var wantedSlots = SlotMask()
    /// What this instance did to the class, so results know when their key
    /// snapshots are stale: creations and deletions, and writes to each property.
    let changes: ClassChanges
    /// Slots of single mixed properties, whose nested collections a decode registers.
    /// (A `let`: a lazy var's every read paid a dynamic exclusivity check, once per add.)
    let mixedValueSlots: [Int]

    init(schema: ClassSchema, id: lar_class, environment: Environment) throws {
        self.schema = schema
        self.id = id
        mixedValueSlots = schema.linkSlots.filter { schema.properties[$0].isMixed }
        reusesKeys = schema.primaryKeySlot.map { schema.properties[$0].type == LAR_TYPE_INT } ?? false
        primaryKeyTakesEveryInt = schema.primaryKeySlot.map { slot in
            let type = ObjectIdentifier(schema.properties[slot].valueType)
            return [Int.self, Int64.self, Int?.self, Int64?.self].contains { ObjectIdentifier($0) == type }
        } ?? false
        changes = ClassChanges(propertyCount: schema.properties.count)
        var info = lar_class_info()
        let rc = lar_class_info_get(environment.handle, id, &info)
        if rc != LAR_OK { throw Realm.Error.last(rc) }
        storedCount = Int(info.property_count)
        values = .allocate(capacity: max(storedCount, 1))
        values.initialize(repeating: lar_value(), count: max(storedCount, 1))
        propertyIndex = .allocate(capacity: max(schema.properties.count, 1))
        for (slot, property) in schema.properties.enumerated() {
            var index: UInt32 = 0
            let found = lar_property_find(environment.handle, id, property.name, &index)
            if found != LAR_OK {
                throw SchemaDifferences.migrationRequired(["Property '\(schema.name).\(property.name)' has been added."])
            }
            propertyIndex[slot] = Int(index)
            if Int(index) != slot { isInSlotOrder = false }
        }
        slotValues = isInSlotOrder ? values : .allocate(capacity: max(schema.properties.count, 1))
        if !isInSlotOrder { slotValues.initialize(repeating: lar_value(), count: max(schema.properties.count, 1)) }
        isProjectable = isInSlotOrder && !schema.isDynamic && schema.properties.count <= 64 && mixedValueSlots.isEmpty
            && !schema.linkSlots.contains { schema.embeddedLink[$0] && !schema.properties[$0].isCollection }
    }

    deinit {
        if slotValues != values { slotValues.deallocate() }
        values.deallocate()
        propertyIndex.deallocate()
    }

    /// Records that `values` holds the row of key at version (the instance's
    /// `cacheStamp`), arranging its slot-order copy.
    func didDecode(key: lar_objkey, version: UInt64) {
        if !isInSlotOrder {
            for slot in 0..<schema.properties.count { slotValues[slot] = values[propertyIndex[slot]] }
        }
        projectedVersion = .max
        if isShared { return }
        cachedKey = key
        cachedVersion = version
    }

    /// Records that `values` holds, of the row of key at version, the slots in slots
    /// (a projected walk's step: only `isProjectable` classes).
    func didDecodeProjected(key: lar_objkey, version: UInt64, slots: SlotMask) {
        cachedVersion = .max
        projectedKey = key
        projectedVersion = version
        projectedSlots = slots
    }

    /// After a decode that neither cache may name (a row the caller did not ask for).
    func forgetRow() {
        cachedVersion = .max
        projectedVersion = .max
    }

    /// Whether the projected row of key at stamp holds slot; when it is that row but
    /// lacks the slot, the slot is wanted from the next projected step on.
    func projectedRowHolds(_ key: lar_objkey, slot: Int, stamp: UInt64) -> Bool {
        guard projectedKey == key && projectedVersion == stamp else { return false }
        if projectedSlots.contains(slot) { return true }
        wantedSlots.insert(slot) // slot < 64: isProjectable
        return false
    }

    /// Whether walks of this class may decode only the slots their loops read: its rows
    /// are in slot order, it has at most 64 slots, no mixed value (whose decode registers
    /// nested collections) and no to-one embedded link (whose object a walk follows).
    let isProjectable: Bool

    /// Set on a frozen instance's classes, which threads share: no row is ever
    /// named cached, so `read` never reads `values` without the instance's lock,
    /// and the cache fields it checks without it are never written.
    @exclusivity(unchecked) var isShared = false

    /// True when stored order is slot order, as it is for classes this program declared.
    private(set) var isInSlotOrder = true

    /// A new object of this class is created from its `@Persisted` wrappers as they are
    /// (`Object.withUnmanagedCValues`): plain values only, in stored order, not dynamic.
    var createsFromWrappers: Bool { !schema.hasRelations && !schema.isDynamic && isInSlotOrder }

    /// A new object of this class is created from its wrappers with its links null, and the
    /// embedded object of one of them created with it (`add`, `soleEmbedded`): its only
    /// relations are to-one embedded links, in stored order, not dynamic.
    var createsOwnerFromWrappers: Bool { schema.relatesByEmbeddedLinksOnly && !schema.isDynamic && isInSlotOrder }

    /// Values in Swift slot order, rearranged into stored order.
    /// Calls body with the C values of a new row of this class from values (in slot
    /// order), in stored order, those of the slots in nulling as null.
    func withRowCValues<R>(_ values: ContiguousArray<_StoredValue>, nulling: SlotMask,
                           _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        isInSlotOrder ? _StoredValue.withCValues(values, nulling: nulling, body)
                      : _StoredValue.withCValues(storedOrder(values, nulling: nulling), body)
    }

    /// values in stored order; those of the slots in nulling as null.
    func storedOrder(_ values: some Collection<_StoredValue>, nulling: SlotMask = SlotMask()) -> [_StoredValue] {
        var ordered = [_StoredValue](repeating: .null, count: storedCount)
        for (slot, value) in values.enumerated() where !nulling.contains(slot) { ordered[propertyIndex[slot]] = value }
        return ordered
    }
}
