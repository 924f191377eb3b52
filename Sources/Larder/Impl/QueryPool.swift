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
    /// The values of the query takeIdle matches, kept empty between takes for their storage.
    @exclusivity(unchecked) private var scratchValues: [_StoredValue] = []
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

    /// An idle query of the DSL shape taken last, when node has that shape, with node's
    /// values bound (bound false when the core refuses them): a loop building one query
    /// finds it without making its tokens.
    func takeIdle(like node: QueryNode, subject: QuerySubject) -> (slot: Slot, query: OpaquePointer, bound: Bool)? {
        lock.withLock {
            guard let last, case .built(let lastSubject, let tokens) = last.key, lastSubject == subject else { return nil }
            var match = QueryShapeMatch(against: tokens)
            swap(&match.values, &scratchValues) // moved, not copied: the storage stays unique
            match.walk(node.predicate)
            defer {
                match.values.removeAll(keepingCapacity: true) // no value outlives its query
                swap(&match.values, &scratchValues)
            }
            guard match.matches, let query = last.slot.idle.popLast() else { return nil }
            reuses += 1
            return (last.slot, query, QueryProgram.bind(match.values, to: query))
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

/// What walking a DSL query gives, in the order of its builder calls: each call as a
/// token, and each value an argument takes.
protocol QueryCallSink {
    mutating func add(_ token: QueryToken)
    mutating func add(_ value: _StoredValue)
}

extension QueryCallSink {
    /// Walks node as the C builder takes it: operands first, then their operator.
    mutating func walk(_ node: QueryNode) {
        switch node {
        case .path(let path): walk(path)
        case .value(let value): walk(value)
        case .list(let values):
            values.forEach { walk($0) }
            add(.list(values.count))
        case .compare(let left, let op, let options, let quantifier, let right):
            walk(left)
            walk(right)
            add(.compare(op: op.rawValue, options: options, quantifier: quantifier.rawValue))
        case .and(let a, let b):
            walk(a)
            walk(b)
            add(.and)
        case .or(let a, let b):
            walk(a)
            walk(b)
            add(.or)
        case .not(let a):
            walk(a)
            add(.not)
        case .subquery(let collection, let variable, let body):
            walk(collection)
            walk(body)
            add(.subquery(variable))
        }
    }

    private mutating func walk(_ path: QueryPath) {
        add(.path)
        for step in path.steps {
            switch step {
            case .property(let name, _): add(.step(LAR_QUERY_STEP_PROPERTY.rawValue, name, nil))
            case .backlink(let className, let property): add(.step(LAR_QUERY_STEP_BACKLINK.rawValue, property, className))
            case .variable(let name): add(.step(LAR_QUERY_STEP_VARIABLE.rawValue, name, nil))
            case .key(let key): add(.step(LAR_QUERY_STEP_KEY.rawValue, key, nil))
            case .keys: add(.step(LAR_QUERY_STEP_KEYS.rawValue, "", nil))
            case .values: add(.step(LAR_QUERY_STEP_VALUES.rawValue, "", nil))
            }
        }
        if let aggregate = path.aggregate { add(.aggregate(aggregate.rawValue)) }
    }

    /// nil stays a literal; any other value is an argument of its kind.
    private mutating func walk(_ value: _StoredValue) {
        QueryValues.checkQueryable(value)
        guard let kind = QueryToken.ValueKind(value) else {
            add(QueryToken.null)
            return
        }
        add(QueryToken.argument(kind))
        add(value)
    }
}

extension QueryToken.ValueKind {
    /// The kind of an argument holding value; nil for nil, which is no argument.
    init?(_ value: _StoredValue) {
        switch value {
        case .null: return nil
        case .int: self = .int
        case .bool: self = .bool
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .objectId: self = .objectId
        case .uuid: self = .uuid
        case .decimal128: self = .decimal128
        case .object(let object): self = .object(object.core.table.id)
        case .collection: self = .collection
        }
    }
}

/// A DSL query as its builder calls, in order, and the values its arguments take.
struct QueryProgram: QueryCallSink {
    private(set) var tokens: [QueryToken] = []
    private(set) var values: [_StoredValue] = []

    init(_ node: QueryNode) {
        tokens.reserveCapacity(8)
        values.reserveCapacity(2)
        walk(node.predicate)
    }

    mutating func add(_ token: QueryToken) { tokens.append(token) }
    mutating func add(_ value: _StoredValue) { values.append(value) }

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
    func bind(to query: OpaquePointer) -> Bool { Self.bind(values, to: query) }

    static func bind(_ values: [_StoredValue], to query: OpaquePointer) -> Bool {
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

/// Checks a DSL query against the builder calls of one built before, collecting its
/// values: a query of the same shape takes those calls' resolved C query with its own
/// values bound, and no tokens are made for it.
struct QueryShapeMatch: QueryCallSink {
    private let tokens: [QueryToken]
    private var next = 0
    private var differs = false
    /// The values of the query walked.
    var values: [_StoredValue] = []

    /// A check against tokens: walk the query, then read matches.
    init(against tokens: [QueryToken]) { self.tokens = tokens }

    var matches: Bool { !differs && next == tokens.count }

    mutating func add(_ token: QueryToken) {
        if differs { return }
        if next < tokens.count && tokens[next] == token {
            next += 1
        } else {
            differs = true
        }
    }

    mutating func add(_ value: _StoredValue) { values.append(value) }
}
