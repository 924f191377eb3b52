import CLarder
import Foundation

/// Realm's aggregate operations; the raw value names them in Realm's messages.
enum AggregateOperation: String, CaseIterable {
    case min, max, sum, average

    /// Whether the operation takes values of type (a property's, or a collection's elements').
    func accepts(_ type: lar_type) -> Bool {
        switch type {
        case LAR_TYPE_INT, LAR_TYPE_FLOAT, LAR_TYPE_DOUBLE, LAR_TYPE_DECIMAL128: return true
        case LAR_TYPE_TIMESTAMP: return self == .min || self == .max
        case LAR_TYPE_MIXED: return true // its numbers only (see Aggregator)
        default: return false
        }
    }
}

/// Where the objects of an aggregate over a property come from.
enum AggregateSource {
    /// The objects a query selects: folded by the C core as it runs the query.
    case query(RealmInstance, ManagedClass, QueryHandle)
    /// The objects of a class with these keys: folded by the C core, no accessor.
    case keys(RealmInstance, ManagedClass, [lar_objkey])
    /// Objects in memory (an unmanaged collection's), managed or not.
    case objects([Object])

    /// The class of a managed source (a `DynamicObject`'s is known only from its table).
    var schema: ClassSchema? {
        switch self {
        case .query(_, let table, _), .keys(_, let table, _): return table.schema
        case .objects: return nil
        }
    }
}

/// A collection of objects that knows the cheapest way to its objects' values.
protocol ObjectAggregating {
    var aggregateSource: AggregateSource { get }
    /// Where the collection keeps the aggregates of a property between calls; nil: it does not.
    var aggregateMemo: AggregateMemo? { get }
}

extension ObjectAggregating {
    var aggregateMemo: AggregateMemo? { nil }
}

/// The min, max, sum and average of one property of a collection, folded by the C core in
/// one pass and kept while the Realm stays at the version they were folded at: Realm code
/// asks them in a row (a sum, then an average) and the objects are read once. Any end or
/// start of a transaction moves the version, but not every write inside one (a list's
/// do not), so inside a write transaction nothing is kept.
final class AggregateMemo {
    private var property = ""
    private var version: UInt64 = 0
    private var values: [AggregateOperation: _StoredValue?] = [:]
    /// How many times the objects were folded: tests check a sum and an average fold once.
    private(set) var folds = 0

    /// operation's value of property at version, folding every operation of operations
    /// (which holds it) when it is not kept.
    func value(_ operation: AggregateOperation, of property: String, at version: UInt64,
               folding operations: [AggregateOperation], _ fold: ([AggregateOperation]) -> [_StoredValue?]) -> _StoredValue? {
        if property != self.property || version != self.version { values = [:] }
        if let kept = values[operation] { return kept }
        values = Dictionary(uniqueKeysWithValues: zip(operations, fold(operations)))
        folds += 1
        self.property = property
        self.version = version
        return values[operation] ?? nil
    }
}

/// Folds values of one stored type into a min, max, sum or average, as realm-core
/// does: nulls are skipped; ints sum in 64 bits, floats and doubles in a double,
/// decimals in a decimal; an average of ints, floats or doubles is a double.
/// Mixed values, as realm-core's Mixed column: min and max take values of every kind
/// in Realm's order (numbers by value across types: the min of int 2 and decimal 1.5
/// is decimal 1.5; a string above every number); a sum or an average takes the
/// numbers and is a decimal.
struct Aggregator {
    let operation: AggregateOperation
    let type: lar_type
    private var count = 0
    private var best: _StoredValue?
    private var intSum: Int64 = 0
    private var doubleSum: Double = 0
    private var decimalSum = Decimal128(0)

    init(_ operation: AggregateOperation, type: lar_type) {
        self.operation = operation
        self.type = type
    }

    mutating func add(_ value: _StoredValue) {
        if type == LAR_TYPE_MIXED { return addMixed(value) }
        switch value {
        case .int(let v): intSum = intSum &+ v
        case .float(let v): doubleSum += Double(v)
        case .double(let v): doubleSum += v
        case .decimal128(let v): decimalSum += v
        case .date: break
        default: return // null, or a value of no aggregated type
        }
        record(value)
    }

    /// realm-core's rule for a Mixed column (aggregate_ops.hpp): min and max take every
    /// value but null and a NaN decimal, in Realm's order of kinds (a string above every
    /// number); sum and average take the numbers.
    private mutating func addMixed(_ value: _StoredValue) {
        switch (operation, value) {
        case (_, .null): return
        case (.min, .decimal128(let v)) where v.isNaN, (.max, .decimal128(let v)) where v.isNaN: return
        case (.min, _), (.max, _): record(value)
        case (.sum, _), (.average, _):
            guard let decimal = value.numberAsDecimal else { return }
            decimalSum += decimal
            record(value)
        }
    }

    private mutating func record(_ value: _StoredValue) {
        count += 1
        switch operation {
        case .min: if best.map({ _StoredValue.ascending(value, $0) }) ?? true { best = value }
        case .max: if best.map({ _StoredValue.ascending($0, value) }) ?? true { best = value }
        case .sum, .average: break
        }
    }

    /// Nil for a min, max or average of no values; a sum of none is zero.
    var result: _StoredValue? {
        switch operation {
        case .min, .max: return best
        case .sum:
            switch type {
            case LAR_TYPE_INT: return .int(intSum)
            case LAR_TYPE_DECIMAL128, LAR_TYPE_MIXED: return .decimal128(decimalSum)
            default: return .double(doubleSum)
            }
        case .average:
            if count == 0 { return nil }
            switch type {
            case LAR_TYPE_INT: return .double(Double(intSum) / Double(count))
            case LAR_TYPE_DECIMAL128, LAR_TYPE_MIXED: return .decimal128(decimalSum / Decimal128(count))
            default: return .double(doubleSum / Double(count))
            }
        }
    }

    /// The result as T; traps when T cannot hold it (a date asked for as an Int).
    func result<T: MinMaxType>(as: T.Type, describing subject: @autoclosure () -> String) -> T? {
        ObjectAggregate.convert(result, as: T.self, operation, describing: subject())
    }
}

/// Aggregates over a property of objects.
enum ObjectAggregate {
    /// The slot and type of property name in schema, checked as Realm checks it:
    /// an unknown name, or a property of a type the operation does not take, traps.
    static func property(_ name: String, in schema: ClassSchema, for operation: AggregateOperation) -> (slot: Int, type: lar_type) {
        guard let slot = schema.slotByName[name] else {
            if schema.linkingObjects.contains(where: { $0.name == name }) {
                fatalError("Operation '\(operation.rawValue)' not supported for linking objects property '\(schema.name).\(name)'")
            }
            fatalError("Property '\(name)' not found in object of type '\(schema.name)'")
        }
        let property = schema.properties[slot]
        if property.isCollection || !operation.accepts(property.type) {
            let kind: String
            switch property.collection {
            case LAR_COLLECTION_LIST: kind = "list"
            case LAR_COLLECTION_SET: kind = "set"
            case LAR_COLLECTION_MAP: kind = "dictionary"
            default: kind = "property"
            }
            fatalError("Operation '\(operation.rawValue)' not supported for \(property.type.realmName)" +
                       "\(property.isOptional ? "?" : "") \(kind) '\(schema.name).\(name)'")
        }
        return (slot, property.type)
    }

    /// The aggregate of property name over the objects of source, as T. Managed objects
    /// are folded by the C core (lar_query_run_aggregate, lar_results_aggregate), so name may go through to-one
    /// links (`"owner.age"`); a plain name is checked first, with Realm's messages.
    static func run<T: MinMaxType>(_ operation: AggregateOperation, _ name: String, of type: Object.Type,
                                   _ source: AggregateSource, memo: AggregateMemo? = nil, as: T.Type) -> T? {
        let schema = source.schema ?? type.schema
        if case .objects = source {} else if !name.contains(".") {
            _ = property(name, in: schema, for: operation) // Realm's messages, before the core's
        }
        let folded: _StoredValue?
        switch source {
        case .query(let instance, _, let query):
            folded = fold(operation, name, of: schema, in: instance, memo: memo) { query.aggregates($0, name, in: instance) }
        case .keys(let instance, let table, let keys):
            folded = fold(operation, name, of: schema, in: instance, memo: memo) {
                CoreResults.of(keys, table, txn: instance.currentTxn()).aggregates($0, name, in: instance)
            }
        case .objects(let objects):
            let (slot, valueType) = property(name, in: schema, for: operation)
            var aggregator = Aggregator(operation, type: valueType)
            for object in objects {
                let objectSchema = object.objectClassSchema
                let objectSlot = objectSchema === schema ? slot : objectSchema.slotByName[name]!
                aggregator.add(object.stored(slot: objectSlot))
            }
            return aggregator.result(as: T.self, describing: "'\(schema.name).\(name)'")
        }
        return convert(folded, as: T.self, operation, describing: "'\(schema.name).\(name)'")
    }

    /// operation's value of property name, by fold: with every operation the property takes
    /// at once, through memo, when it is a plain name outside a write transaction.
    private static func fold(_ operation: AggregateOperation, _ name: String, of schema: ClassSchema,
                             in instance: RealmInstance, memo: AggregateMemo?,
                             _ fold: ([AggregateOperation]) -> [_StoredValue?]) -> _StoredValue? {
        guard let memo, !instance.isInWriteTransaction, let slot = schema.slotByName[name] else {
            return fold([operation])[0]
        }
        _ = instance.currentTxn() // a read transaction begun here moves the version
        let type = schema.properties[slot].type
        return memo.value(operation, of: name, at: instance.version,
                          folding: AggregateOperation.allCases.filter { $0.accepts(type) }, fold)
    }

    /// value as T; traps when T cannot hold it (a date asked for as an Int).
    static func convert<T: MinMaxType>(_ value: _StoredValue?, as: T.Type, _ operation: AggregateOperation,
                                       describing subject: @autoclosure () -> String) -> T? {
        guard let value else { return nil }
        guard let converted = T._larderFromAggregate(value) else {
            fatalError("Cannot convert the \(operation.rawValue) of \(subject()) (\(value.displayText)) to \(T.self).")
        }
        return converted
    }

    /// The objects of a sequence (an unmanaged collection's): by key when they
    /// are all managed by one instance and of one class, otherwise in memory.
    static func source<S: Sequence>(of objects: S) -> AggregateSource where S.Element: Object {
        let all = Array(objects)
        guard let first = all.first, let instance = first.core.realm, let table = first.core.table,
              all.allSatisfy({ $0.core.realm === instance && $0.core.table === table && !instance.isInvalidated($0.core) })
        else { return .objects(all) }
        return .keys(instance, table, all.map(\.core.key))
    }
}

/// Aggregates over the elements of a collection of values (`List<Int?>`):
/// nil elements are skipped.
enum ValueAggregate {
    static func run<Element: _Persistable, T: MinMaxType>(_ operation: AggregateOperation, _ elements: [Element],
                                                          as: T.Type) -> T? {
        var aggregator = Aggregator(operation, type: Element._larderType)
        for element in elements { aggregator.add(element._larderStored) }
        return aggregator.result(as: T.self, describing: "a collection of \(Element.self)")
    }
}
