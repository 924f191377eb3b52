import CLarder
import Foundation

/// A sort on some key paths, or the first object of each combination of their values.
/// Results apply them in the order they were asked for (Realm's descriptor ordering).
enum OrderingStep {
    case sort([SortDescriptor])
    case distinct([String])

    var keyPaths: [String] {
        switch self {
        case .sort(let descriptors): return descriptors.map(\.keyPath)
        case .distinct(let keyPaths): return keyPaths
        }
    }
}

/// A C `lar_results` (object keys of one class, in order), freed with its owner.
/// Sorts, distincts and aggregates of results of objects run on it in the core,
/// with realm-core's order of values and rules.
final class CoreResults {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { lar_results_free(pointer) }

    /// Every object of table, in key order.
    static func all(_ table: ManagedClass, in instance: RealmInstance, txn: OpaquePointer) -> CoreResults {
        QueryHandle.all(table, in: instance).runResults(in: txn)
    }

    /// The objects of table with keys, in their order (a list's, or what filters left).
    static func of(_ keys: [lar_objkey], _ table: ManagedClass, txn: OpaquePointer) -> CoreResults {
        var results: OpaquePointer?
        let rc = keys.withUnsafeBufferPointer { lar_results_from_keys(txn, table.id, $0.baseAddress, $0.count, &results) }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read objects") }
        return CoreResults(results!)
    }

    var count: Int {
        var count = 0
        lar_results_count(pointer, &count)
        return count
    }

    /// The key at index in result order; nil past the end.
    func key(at index: Int) -> lar_objkey? {
        var obj = lar_obj()
        return lar_results_get(pointer, index, &obj) == LAR_OK ? obj.key : nil
    }

    /// The keys in result order, read in one call.
    var keys: [lar_objkey] {
        let count = count
        return [lar_objkey](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            if count > 0 { lar_results_keys(pointer, 0, buffer.baseAddress, count, &initialized) }
        }
    }

    /// Whether the results still describe what txn sees (no write since, same snapshot).
    func isCurrent(in txn: OpaquePointer) -> Bool {
        var current: Int32 = 0
        return lar_results_is_current(pointer, txn, &current) == LAR_OK && current != 0
    }

    /// Sorts and thins the results by steps, in order. Key paths were checked when the
    /// steps were made (`KeyPathOrdering.check`); what the core still refuses traps with its message.
    func apply(_ steps: [OrderingStep], txn: OpaquePointer) {
        for step in steps {
            let paths = step.keyPaths.map { strdup($0)! }
            defer { paths.forEach { free($0) } }
            let rc: Int32
            switch step {
            case .sort(let descriptors):
                let c = zip(paths, descriptors).map { lar_sort_descriptor(keypath: $0, ascending: $1.ascending ? 1 : 0) }
                rc = lar_results_sort(txn, pointer, c, c.count)
            case .distinct:
                let c = paths.map { UnsafePointer<CChar>($0) as UnsafePointer<CChar>? }
                rc = lar_results_distinct(txn, pointer, c, c.count)
            }
            if rc == LAR_EDELETED { fatalError("Object has been deleted or invalidated.") }
            if rc != LAR_OK {
                fatalError("Cannot sort on key path '\(step.keyPaths.joined(separator: ", "))': " +
                           String(cString: lar_error_last().pointee.message))
            }
        }
    }

    /// The aggregates of keyPath over the objects, one per operation, in one pass; nil for
    /// a min, max or average of no values.
    func aggregates(_ operations: [AggregateOperation], _ keyPath: String, in instance: RealmInstance) -> [_StoredValue?] {
        let txn = instance.currentTxn()
        return AggregateOperation.folded(operations, keyPath, in: instance) {
            lar_results_aggregates(txn, pointer, keyPath, $0, $1, $2)
        }
    }
}

extension QueryHandle {
    /// `TRUEPREDICATE` on table: every object of the class.
    static func all(_ table: ManagedClass, in instance: RealmInstance) -> QueryHandle {
        QueryArgument.parse("TRUEPREDICATE", [], environment: instance.environment, cls: table.id, schema: table.schema)
    }

    /// The aggregates over the objects the query selects, one per operation, folded by the
    /// core in one scan.
    func aggregates(_ operations: [AggregateOperation], _ keyPath: String, in instance: RealmInstance) -> [_StoredValue?] {
        let txn = instance.currentTxn()
        return AggregateOperation.folded(operations, keyPath, in: instance) {
            lar_query_run_aggregates(txn, pointer, keyPath, $0, $1, $2)
        }
    }
}

extension AggregateOperation {
    /// The values fold writes, one per operation (nil for null; a link, the min or max of a
    /// mixed property, as instance's object); traps with Realm's message when the core refuses.
    static func folded(_ operations: [AggregateOperation], _ keyPath: String, in instance: RealmInstance,
                       _ fold: (UnsafePointer<lar_aggregate_op>, Int, UnsafeMutablePointer<lar_value>) -> Int32) -> [_StoredValue?] {
        let ops = operations.map(\.coreOperation)
        var out = [lar_value](repeating: lar_value(), count: ops.count)
        let rc = fold(ops, ops.count, &out)
        if rc == LAR_EDELETED { fatalError("Object has been deleted or invalidated.") }
        if rc != LAR_OK {
            fatalError("Operation '\(operations[0].rawValue)' not supported for key path '\(keyPath)': " +
                       String(cString: lar_error_last().pointee.message))
        }
        return out.map { value in
            if value.type == LAR_TYPE_LINK { return .object(instance.mixedLinkTarget(value.as.link)) }
            return value.type == LAR_TYPE_NULL ? nil : _StoredValue(value)
        }
    }

    var coreOperation: lar_aggregate_op {
        switch self {
        case .min: return LAR_AGGREGATE_MIN
        case .max: return LAR_AGGREGATE_MAX
        case .sum: return LAR_AGGREGATE_SUM
        case .average: return LAR_AGGREGATE_AVERAGE
        }
    }
}

/// Key paths of sorts and distincts (`"owner.name"`), checked against the schema when
/// the step is made, as Realm checks them, and the counters that move when a value
/// they read may have changed.
enum KeyPathOrdering {
    /// The classes and property slots keyPath reads, one per name. Traps with realm-core's
    /// message on an unknown name, a collection, or a non-link before the last name.
    static func resolve(_ keyPath: String, from table: ManagedClass,
                        instance: RealmInstance) -> [(table: ManagedClass, slot: Int)] {
        var steps: [(table: ManagedClass, slot: Int)] = []
        var current = table
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, name) in names.enumerated() {
            let schema = current.schema
            guard let slot = schema.slotByName[name] else {
                fatalError("Cannot sort on key path '\(keyPath)': property '\(schema.name).\(name)' does not exist.")
            }
            let property = schema.properties[slot]
            if property.isCollection {
                fatalError("Cannot sort on key path '\(keyPath)': property '\(schema.name).\(name)' is of unsupported type " +
                           "'\(collectionName(property.collection))'.")
            }
            steps.append((current, slot))
            if index == names.count - 1 { break }
            guard property.targetClassName != nil else {
                fatalError("Cannot sort on key path '\(keyPath)': property '\(schema.name).\(name)' of type " +
                           "'\(property.type.realmName)' may only be the final property in the key path.")
            }
            current = instance.targetTable(of: property)
        }
        return steps
    }

    /// realm-core's name for a kind of collection in its messages.
    private static func collectionName(_ collection: lar_collection) -> String {
        switch collection {
        case LAR_COLLECTION_LIST: return "array"
        case LAR_COLLECTION_SET: return "set"
        default: return "dictionary"
        }
    }

    /// Every class and slot the key paths read.
    static func reads(_ keyPaths: [String], from table: ManagedClass, instance: RealmInstance) -> [(table: ManagedClass, slot: Int)] {
        keyPaths.flatMap { resolve($0, from: table, instance: instance) }
    }

    /// A count that moves when a property reads names is written, or objects of a class
    /// they go through come or go (a deleted target nulls the links to it).
    static func stamp(_ reads: [(table: ManagedClass, slot: Int)], root: ManagedClass) -> UInt64 {
        var stamp: UInt64 = 0
        for read in reads {
            stamp &+= read.table.changes.writes(to: [read.slot])
            if read.table !== root { stamp &+= read.table.changes.membership }
        }
        return stamp
    }
}
