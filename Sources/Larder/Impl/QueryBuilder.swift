import CLarder
import Foundation

/// One step of a query's key path, named as the C core names it.
enum QueryStep {
    case property(String, throughCollection: Bool)
    /// A LinkingObjects property: `@links.<class>.<property>`.
    case backlink(className: String, property: String)
    /// A subquery's element: `$name`.
    case variable(String)
    case key(String)
    case keys
    case values

    /// Whether the key path goes through a collection here (where a subquery's collection ends).
    var isCollection: Bool {
        switch self {
        case .property(_, let collection): return collection
        case .backlink: return true
        default: return false
        }
    }
}

struct QueryPath {
    var steps: [QueryStep] = []
    var aggregate: lar_query_aggregate?
}

/// The AST a `Query<T>` builds in Swift, handed to the C builder when a collection is filtered.
/// Leaves are stored inline, only the cases holding nodes are boxed: a `where {}` probe
/// allocated a box for its root, each step and each value.
enum QueryNode {
    case path(QueryPath)
    case value(_StoredValue)
    case list([_StoredValue])
    indirect case compare(QueryNode, lar_query_op, UInt32, lar_query_quantifier, QueryNode)
    indirect case and(QueryNode, QueryNode)
    indirect case or(QueryNode, QueryNode)
    indirect case not(QueryNode)
    indirect case subquery(QueryPath, variable: String, QueryNode)

    private var queryPath: QueryPath {
        guard case .path(let path) = self else { fatalError("Only a key path has properties") }
        return path
    }

    func appending(step: QueryStep) -> QueryNode {
        var path = queryPath
        if path.aggregate != nil { fatalError("Nothing may follow an aggregate in a query's key path") }
        path.steps.append(step)
        return .path(path)
    }

    func appending(property keyPath: AnyKeyPath, of type: Object.Type) -> QueryNode {
        appending(step: QueryKeyPaths.step(for: keyPath, of: type))
    }

    func aggregated(_ aggregate: lar_query_aggregate) -> QueryNode {
        var path = queryPath
        path.aggregate = aggregate
        return .path(path)
    }

    /// As a predicate: a bool property alone means `property == true`.
    var predicate: QueryNode {
        if case .path = self { return .compare(self, LAR_QUERY_EQ, 0, LAR_QUERY_PLAIN, .value(.bool(true))) }
        return self
    }

    /// `SUBQUERY(collection, $colN, predicate).@count`: the collection is the first
    /// one a key path of the predicate goes through; key paths through it start at $colN.
    func subquery() -> QueryNode {
        guard let collection = firstCollection() else {
            fatalError("Subqueries must contain a keypath starting with a collection.")
        }
        let variable = "col\(subqueryDepth + 1)"
        let prefix = collection.steps.count
        let body = predicate.mapPaths { path in
            guard path.steps.count >= prefix, QueryKeyPaths.same(Array(path.steps.prefix(prefix)), collection.steps) else {
                return path
            }
            return QueryPath(steps: [.variable(variable)] + path.steps.dropFirst(prefix), aggregate: path.aggregate)
        }
        return .subquery(collection, variable: variable, body)
    }

    private func firstCollection() -> QueryPath? {
        switch self {
        case .path(let path):
            guard let end = path.steps.firstIndex(where: \.isCollection) else { return nil }
            return QueryPath(steps: Array(path.steps[...end]))
        case .compare(let left, _, _, _, let right): return left.firstCollection() ?? right.firstCollection()
        case .and(let a, let b), .or(let a, let b): return a.firstCollection() ?? b.firstCollection()
        case .not(let a): return a.firstCollection()
        default: return nil
        }
    }

    private var subqueryDepth: Int {
        switch self {
        case .subquery(_, _, let body): return body.subqueryDepth + 1
        case .compare(let left, _, _, _, let right): return Swift.max(left.subqueryDepth, right.subqueryDepth)
        case .and(let a, let b), .or(let a, let b): return Swift.max(a.subqueryDepth, b.subqueryDepth)
        case .not(let a): return a.subqueryDepth
        default: return 0
        }
    }

    private func mapPaths(_ transform: (QueryPath) -> QueryPath) -> QueryNode {
        switch self {
        case .path(let path): return .path(transform(path))
        case .compare(let left, let op, let options, let quantifier, let right):
            return .compare(left.mapPaths(transform), op, options, quantifier, right.mapPaths(transform))
        case .and(let a, let b): return .and(a.mapPaths(transform), b.mapPaths(transform))
        case .or(let a, let b): return .or(a.mapPaths(transform), b.mapPaths(transform))
        case .not(let a): return .not(a.mapPaths(transform))
        default: return self
        }
    }
}

/// A C query (`lar_query`), freed with its owner, or given back to the pool it came from.
final class QueryHandle {
    let pointer: OpaquePointer
    /// Where the query goes when its owner is done with it.
    private let slot: QueryPool.Slot?
    /// The environment of slot's pool, kept open till then.
    private let environment: Environment?

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        slot = nil
        environment = nil
    }

    /// A query taken from environment's pool (an idle one, or query, new), given back to slot when done.
    init(_ query: OpaquePointer, environment: Environment, slot: QueryPool.Slot?) {
        pointer = query
        self.slot = slot
        self.environment = slot == nil ? nil : environment
    }

    deinit {
        if let slot, slot.keep(pointer) { return }
        lar_query_free(pointer)
    }

    /// The canonical text of the query (`lar_query_describe`); values: bound arguments by their values.
    func description(values: Bool = false) -> String {
        let flags = values ? UInt32(LAR_QUERY_DESCRIBE_VALUES) : 0
        var length = 0
        _ = lar_query_describe(pointer, nil, 0, &length, flags)
        var buffer = [CChar](repeating: 0, count: length + 1)
        let rc = lar_query_describe(pointer, &buffer, buffer.count, nil, flags)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot describe a query") }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The query the DSL built, resolved against cls: one of the same shape from
    /// environment's pool with node's values bound, or a new one that goes to the pool
    /// when done. Traps with the core's message when the query is invalid.
    static func build(_ node: QueryNode, environment: Environment, cls: lar_class) -> QueryHandle {
        build(node, environment: environment, subject: .objects(cls))
    }

    /// The same for any subject (objects of a class, or plain values).
    static func build(_ node: QueryNode, environment: Environment, subject: QuerySubject) -> QueryHandle {
        if let idle = environment.queryPool.takeIdle(like: node, subject: subject) {
            if idle.bound { return QueryHandle(idle.query, environment: environment, slot: idle.slot) }
            lar_query_free(idle.query)
        } else if let handle = pooled(QueryProgram(node), environment: environment, subject: subject) {
            return handle
        }
        // Refused: the query with its values written in gives the core's message for them.
        return buildLiteral(QueryProgram(node), env: environment.handle, subject: subject)
    }

    /// program's query from environment's pool (an idle one of its shape rebound, or a new
    /// one); nil when the core refuses it.
    private static func pooled(_ program: QueryProgram, environment: Environment, subject: QuerySubject) -> QueryHandle? {
        let (slot, idle) = environment.queryPool.take(.built(subject, program.tokens))
        if let query = idle {
            if program.bind(to: query) { return QueryHandle(query, environment: environment, slot: slot) }
            lar_query_free(query)
        } else if let query = subject.newQuery(environment.handle) {
            program.emit(into: query, literal: false)
            if lar_query_finish(query) == LAR_OK && program.bind(to: query) {
                return QueryHandle(query, environment: environment, slot: slot)
            }
            lar_query_free(query) // a refused query never goes to the pool
        }
        return nil
    }

    /// The query with its values written in (no arguments), as its description shows them.
    static func buildLiteral(_ node: QueryNode, env: OpaquePointer, cls: lar_class) -> QueryHandle {
        buildLiteral(QueryProgram(node), env: env, subject: .objects(cls))
    }

    private static func buildLiteral(_ program: QueryProgram, env: OpaquePointer, subject: QuerySubject) -> QueryHandle {
        guard let query = subject.newQuery(env) else { invalidQuery() }
        let handle = QueryHandle(query)
        program.emit(into: query, literal: true)
        if lar_query_finish(query) != LAR_OK { invalidQuery() }
        return handle
    }

    /// Realm traps on an invalid predicate; the message is the core's.
    static func invalidQuery() -> Never {
        fatalError("Invalid query: \(String(cString: lar_error_last().pointee.message))")
    }
}

enum QueryValues {
    /// Objects in a query must be managed, as in Realm; nested collections have no value to compare.
    static func checkQueryable(_ value: _StoredValue) {
        switch value {
        case .object(let object) where object.core.realm == nil:
            fatalError("Only managed objects may be used in a query: add the object to a Realm first.")
        case .collection:
            fatalError("A collection cannot be a value in a query.")
        default: break
        }
    }
}

/// The names of model key paths, as the query's steps. Swift on Linux cannot name
/// a key path, so a property is found by its value type, and among properties of
/// the same type by reading the key path back from a probe object that holds a
/// distinct value in each. Names are cached per key path.
enum QueryKeyPaths {
    private static let lock = NSLock()
    // Safe: read and written only under `lock`.
    @exclusivity(unchecked) nonisolated(unsafe) private static var cache: [AnyKeyPath: QueryStep] = [:]
    /// The same by key path object: a key path literal is one object for the program's life,
    /// so a `where {}` run again finds its steps without hashing the key path's components
    /// (a third of building the query). Holds the key paths it names, so no other takes
    /// their identity; emptied when full, for programs that make key paths at run time.
    @exclusivity(unchecked) nonisolated(unsafe) private static var byIdentity: [ObjectIdentifier: (keyPath: AnyKeyPath, step: QueryStep)] = [:]
    private static let identityLimit = 1024
    /// The key path found last: a loop building one query asks for it again.
    @exclusivity(unchecked) nonisolated(unsafe) private static var last: (keyPath: AnyKeyPath, step: QueryStep)?

    static func step(for keyPath: AnyKeyPath, of type: Object.Type) -> QueryStep {
        let id = ObjectIdentifier(keyPath)
        let known: QueryStep? = lock.withLock {
            if let last, last.keyPath === keyPath { return last.step }
            if let hit = byIdentity[id] {
                last = hit
                return hit.step
            }
            guard let step = cache[keyPath] else { return nil }
            remember(keyPath, step)
            return step
        }
        if let known { return known }
        let step = findStep(for: keyPath, of: type)
        lock.withLock {
            cache[keyPath] = step
            remember(keyPath, step)
        }
        return step
    }

    /// Under `lock`.
    private static func remember(_ keyPath: AnyKeyPath, _ step: QueryStep) {
        if byIdentity.count >= identityLimit { byIdentity.removeAll() }
        byIdentity[ObjectIdentifier(keyPath)] = (keyPath, step)
        last = (keyPath, step)
    }

    static func same(_ a: [QueryStep], _ b: [QueryStep]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { name($0) == name($1) }
    }

    private static func name(_ step: QueryStep) -> String {
        switch step {
        case .property(let name, _): return name
        case .backlink(let className, let property): return "@links.\(className).\(property)"
        case .variable(let name): return "$" + name
        case .key(let key): return "[\(key)]"
        case .keys: return "@keys"
        case .values: return "@values"
        }
    }

    private static func findStep(for keyPath: AnyKeyPath, of type: Object.Type) -> QueryStep {
        let schema = type.schema
        let valueType = ObjectIdentifier(Swift.type(of: keyPath).valueType)
        let backlinks = schema.linkingObjects.filter { ObjectIdentifier($0.valueType) == valueType }
        if backlinks.count == 1 {
            return .backlink(className: backlinks[0].origin.className(), property: backlinks[0].originProperty)
        }
        if let slot = schema.slot(ofAny: keyPath, root: type) {
            return .property(schema.properties[slot].name, throughCollection: schema.properties[slot].isCollection)
        }
        fatalError("Cannot use key path \(keyPath) in a query: it is not a persisted property of '\(schema.name)'")
    }
}

// MARK: Entry points

extension Query where T: Object {
    /// The C query isIncluded builds over objects of T in instance's file.
    static func build(_ isIncluded: (Query<T>) -> Query<Bool>, instance: RealmInstance, table: ManagedClass) -> QueryHandle {
        QueryHandle.build(isIncluded(root()).node, environment: instance.environment, cls: table.id)
    }
}

extension Realm {
    /// The canonical text of the query isIncluded builds on T (tests compare it with the core's).
    func _queryDescription<T: Object>(_ type: T.Type, _ isIncluded: (Query<T>) -> Query<Bool>) -> String {
        QueryHandle.buildLiteral(isIncluded(Query<T>.root()).node, env: instance.environment.handle,
                                 cls: instance.table(for: type).id).description()
    }

    /// The same for a format and its arguments (values: bound arguments described by value).
    func _queryDescription<T: Object>(_ type: T.Type, _ format: String, _ args: [Any?], values: Bool = false) -> String {
        let table = instance.table(for: type)
        return QueryArgument.parse(format, args, environment: instance.environment, cls: table.id, schema: table.schema)
            .description(values: values)
    }
}

// MARK: Running

extension QueryHandle {
    /// Runs the query in txn, as the C result, to sort or aggregate in the core; traps with the
    /// core's message when it cannot run (a construct not supported yet).
    func runResults(in txn: OpaquePointer) -> CoreResults {
        var results: OpaquePointer?
        let rc = lar_query_run(txn, pointer, &results)
        if rc != LAR_OK { QueryHandle.invalidQuery() }
        return CoreResults(results!)
    }

    /// The same on the objects keys names, in their order (a list's, what another filter
    /// kept): the core reads only those objects, not the class.
    func runResults(on keys: [lar_objkey], in txn: OpaquePointer) -> CoreResults {
        var results: OpaquePointer?
        let rc = keys.withUnsafeBufferPointer { lar_query_run_keys(txn, pointer, $0.baseAddress, $0.count, &results) }
        if rc != LAR_OK { QueryHandle.invalidQuery() }
        return CoreResults(results!)
    }
}

extension Array where Element == QueryHandle {
    /// The objects every query matches, of the class (keys nil) or of keys in their order:
    /// the first query runs, and each next one checks only what the one before kept.
    func runResults(on keys: [lar_objkey]?, in txn: OpaquePointer) -> CoreResults {
        var results = keys.map { self[0].runResults(on: $0, in: txn) } ?? self[0].runResults(in: txn)
        for query in dropFirst() { results = query.runResults(on: results.keys, in: txn) }
        return results
    }
}
