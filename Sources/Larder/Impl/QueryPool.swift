import CLarder
import Foundation

/// Resolved C queries kept for reuse, per environment: a query asked again with the
/// same shape (a DSL query whose values differ, a format with other arguments)
/// rebinds its arguments, which the core swaps in without parsing or resolving the
/// query again. A query serves one Results at a time; it comes back here when that
/// Results lets it go. Classes never change once in a file (schema changes only add
/// classes), so a query resolved once stays valid for the environment's life.
final class QueryPool: @unchecked Sendable {
    enum Key: Hashable {
        /// A `where {}` query: its builder calls, values left as arguments.
        case built(QuerySubject, [QueryToken])
        /// A `filter(format, ...)` query.
        case text(QuerySubject, String)
    }

    /// The idle queries of one key. A query in use holds its slot (so that giving it
    /// back takes no lookup) and its environment (which owns the pool).
    final class Slot {
        fileprivate unowned let pool: QueryPool
        // Under the pool's lock, which makes Swift's dynamic exclusivity checks redundant.
        @exclusivity(unchecked) fileprivate var idle: [OpaquePointer] = []

        fileprivate init(pool: QueryPool) { self.pool = pool }

        /// Keeps query for the next taker; false when the slot is full (the caller frees it).
        func keep(_ query: OpaquePointer) -> Bool {
            pool.lock.withLock {
                guard idle.count < QueryPool.idlePerSlot else { return false }
                idle.append(query)
                return true
            }
        }
    }

    /// Idle queries kept per key, and keys kept: a program that builds queries from
    /// ever-new shapes holds no more than this.
    fileprivate static let idlePerSlot = 4
    private static let slotLimit = 256

    fileprivate let lock = NSLock()
    @exclusivity(unchecked) private var slots: [Key: Slot] = [:]
    /// The key taken last and its slot: a loop that builds one query shape finds its slot
    /// by comparing keys, without hashing one (tokens and names) on every take.
    @exclusivity(unchecked) private var last: (key: Key, slot: Slot)?
    /// How many queries were taken for reuse (tests check queries are reused).
    @exclusivity(unchecked) private(set) var reuses = 0

    /// The slot of key, with an idle query of it, now the caller's (nil when there is
    /// none); no slot when the pool holds as many keys as it may.
    func take(_ key: Key) -> (slot: Slot?, query: OpaquePointer?) {
        lock.withLock {
            guard let slot = slot(of: key) else { return (nil, nil) }
            guard let query = slot.idle.popLast() else { return (slot, nil) }
            reuses += 1
            return (slot, query)
        }
    }

    /// Under `lock`: key's slot, made if new; nil when the pool holds as many keys as it may.
    private func slot(of key: Key) -> Slot? {
        if let last, last.key == key { return last.slot }
        let slot: Slot
        if let found = slots[key] {
            slot = found
        } else {
            guard slots.count < Self.slotLimit else { return nil }
            slot = Slot(pool: self)
            slots[key] = slot
        }
        last = (key, slot)
        return slot
    }

    /// Frees every idle query; the environment closes next.
    func drain() {
        lock.withLock {
            for slot in slots.values {
                slot.idle.forEach { lar_query_free($0) }
                slot.idle = []
            }
        }
    }
}

/// What a query selects: the objects of a class, or plain values of one type (the
/// elements of a `List<Int>`, ...), each named `self` (`lar_query_parse_values`).
enum QuerySubject: Hashable {
    case objects(lar_class)
    case values(type: UInt32, optional: Bool)

    /// The subject of a query over values of type T.
    static func values<T: _Persistable>(of type: T.Type) -> QuerySubject {
        .values(type: T._larderType.rawValue, optional: T._larderIsOptional)
    }

    /// A new C query of this subject, empty for the builder; nil when the core refuses it.
    func newQuery(_ env: OpaquePointer) -> OpaquePointer? {
        var query: OpaquePointer?
        switch self {
        case .objects(let cls): return lar_query_new(env, cls, &query) == LAR_OK ? query : nil
        case .values(let type, let optional):
            return lar_query_new_values(env, lar_type(rawValue: type), optional ? 1 : 0, &query) == LAR_OK ? query : nil
        }
    }

    /// text parsed as a query of this subject; nil (the core's error recorded) when it is invalid.
    func parse(_ env: OpaquePointer, _ text: String) -> OpaquePointer? {
        var query: OpaquePointer?
        switch self {
        case .objects(let cls): return lar_query_parse(env, cls, text, &query) == LAR_OK ? query : nil
        case .values(let type, let optional):
            return lar_query_parse_values(env, lar_type(rawValue: type), optional ? 1 : 0, text, &query) == LAR_OK ? query : nil
        }
    }
}

/// One C builder call of a DSL query. Values other than nil are arguments, bound
/// apart, so that queries differing only in values share their tokens.
enum QueryToken: Hashable {
    case path
    case step(UInt32, String, String?)
    case aggregate(UInt32)
    /// The next value, of this kind (the case of `_StoredValue`, and an object's class).
    case argument(ValueKind)
    /// nil stays a literal: the core reads `list == nil` apart from `list == $0`.
    case null
    case list(Int)
    case compare(op: UInt32, options: UInt32, quantifier: UInt32)
    case and
    case or
    case not
    case subquery(String)

    enum ValueKind: Hashable {
        case int, bool, float, double, string, data, date, objectId, uuid, decimal128
        case object(lar_class)
        case collection
    }
}

/// A DSL query as its builder calls, in order, and the values its arguments take.
struct QueryProgram {
    private(set) var tokens: [QueryToken] = []
    private(set) var values: [_StoredValue] = []

    init(_ node: QueryNode) {
        tokens.reserveCapacity(8)
        values.reserveCapacity(2)
        append(node.predicate)
    }

    private mutating func append(_ node: QueryNode) {
        switch node {
        case .path(let path): append(path)
        case .value(let value): append(value)
        case .list(let values):
            values.forEach { append($0) }
            tokens.append(.list(values.count))
        case .compare(let left, let op, let options, let quantifier, let right):
            append(left)
            append(right)
            tokens.append(.compare(op: op.rawValue, options: options, quantifier: quantifier.rawValue))
        case .and(let a, let b):
            append(a)
            append(b)
            tokens.append(.and)
        case .or(let a, let b):
            append(a)
            append(b)
            tokens.append(.or)
        case .not(let a):
            append(a)
            tokens.append(.not)
        case .subquery(let collection, let variable, let body):
            append(collection)
            append(body)
            tokens.append(.subquery(variable))
        }
    }

    private mutating func append(_ path: QueryPath) {
        tokens.append(.path)
        for step in path.steps {
            switch step {
            case .property(let name, _): tokens.append(.step(LAR_QUERY_STEP_PROPERTY.rawValue, name, nil))
            case .backlink(let className, let property):
                tokens.append(.step(LAR_QUERY_STEP_BACKLINK.rawValue, property, className))
            case .variable(let name): tokens.append(.step(LAR_QUERY_STEP_VARIABLE.rawValue, name, nil))
            case .key(let key): tokens.append(.step(LAR_QUERY_STEP_KEY.rawValue, key, nil))
            case .keys: tokens.append(.step(LAR_QUERY_STEP_KEYS.rawValue, "", nil))
            case .values: tokens.append(.step(LAR_QUERY_STEP_VALUES.rawValue, "", nil))
            }
        }
        if let aggregate = path.aggregate { tokens.append(.aggregate(aggregate.rawValue)) }
    }

    private mutating func append(_ value: _StoredValue) {
        QueryValues.checkQueryable(value)
        guard let kind = Self.kind(of: value) else {
            tokens.append(.null)
            return
        }
        tokens.append(.argument(kind))
        values.append(value)
    }

    private static func kind(of value: _StoredValue) -> QueryToken.ValueKind? {
        switch value {
        case .null: return nil
        case .int: return .int
        case .bool: return .bool
        case .float: return .float
        case .double: return .double
        case .string: return .string
        case .data: return .data
        case .date: return .date
        case .objectId: return .objectId
        case .uuid: return .uuid
        case .decimal128: return .decimal128
        case .object(let object): return .object(object.core.table.id)
        case .collection: return .collection
        }
    }

    /// Makes the builder calls on query: with values as arguments `$0...`, or
    /// (literal) with the values written in. Errors stick in the query until its finish.
    func emit(into query: OpaquePointer, literal: Bool) {
        var next = 0
        for token in tokens {
            switch token {
            case .path: lar_query_push_path(query)
            case .step(let kind, let name, let className):
                let step = lar_query_step(rawValue: kind)
                lar_query_path_append(query, step, step == LAR_QUERY_STEP_KEYS || step == LAR_QUERY_STEP_VALUES ? nil : name,
                                      className)
            case .aggregate(let aggregate): lar_query_path_aggregate(query, lar_query_aggregate(rawValue: aggregate))
            case .argument:
                if literal {
                    values[next].withCValue { _ = lar_query_push_value(query, $0) }
                } else {
                    lar_query_push_argument(query, next)
                }
                next += 1
            case .null: _StoredValue.null.withCValue { _ = lar_query_push_value(query, $0) }
            case .list(let count): lar_query_push_list(query, count)
            case .compare(let op, let options, let quantifier):
                lar_query_compare(query, lar_query_op(rawValue: op), options, lar_query_quantifier(rawValue: quantifier))
            case .and: lar_query_and(query, 2)
            case .or: lar_query_or(query, 2)
            case .not: lar_query_not(query)
            case .subquery(let variable): lar_query_subquery(query, variable)
            }
        }
    }

    /// Binds the values to a query emitted with arguments; false when the core refuses them.
    func bind(to query: OpaquePointer) -> Bool {
        _StoredValue.withCValues(values) { pointer, count in
            withUnsafeTemporaryAllocation(of: lar_query_arg.self, capacity: Swift.max(count, 1)) { args in
                for index in 0..<count {
                    var arg = lar_query_arg()
                    arg.kind = LAR_QUERY_ARG_VALUE
                    arg.value = pointer[index]
                    args[index] = arg
                }
                return lar_query_bind(query, args.baseAddress, count) == LAR_OK
            }
        }
    }
}
