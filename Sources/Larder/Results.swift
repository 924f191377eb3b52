import CLarder
import CLarderSwift
import Foundation

/// The objects of a class, or the values of a collection, as in Realm: lazy and
/// live. Nothing is read until it is used, and every use sees the Realm's
/// current version. Iterating objects streams from the database, so memory
/// stays flat however many objects there are.
///
/// `Results<Dog>` come from `realm.objects(Dog.self)` and from sorting or
/// distinguishing a collection of objects; `Results<Int>` (any collection value)
/// from `sorted(ascending:)` and `distinct()` on a List, MutableSet or Map of
/// values, and `Results<Dog?>` from sorting a Map of objects by a property.
public final class Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    let instance: RealmInstance
    /// The class of results of objects; nil for results of values.
    let objectTable: ManagedClass?
    /// Sorts and distincts, applied in the order they were asked for (Realm's descriptor ordering).
    /// Results of values sort and distinguish on "self", or on a property of the objects a map holds.
    let steps: [OrderingStep]
    /// Object keys in result order, for positional access; rebuilt when objects
    /// of the class may have come or gone, or a sort key was written.
    private var snapshot: [lar_objkey] = []
    /// The sorted result the snapshot's keys come from (nil for the table in key order).
    private var snapshotResults: CoreResults?
    private var snapshotStamp: SnapshotStamp?
    /// How many times the snapshot was built: tests check writes do not rebuild it.
    private(set) var snapshotBuilds = 0
    /// The classes and property slots the sorts and distincts of results of objects read.
    private lazy var orderingReads = KeyPathOrdering.reads(steps.flatMap(\.keyPaths), from: table, instance: instance)

    /// The object keys of the collection these results view (a list), read
    /// afresh on each use; nil for all the objects of the class.
    let source: (() -> [lar_objkey])?
    /// The same source in another instance of the file (frozen, thawed, resolved on
    /// another thread); nil when the collection is gone there.
    let sourceIn: ((RealmInstance) -> (() -> [lar_objkey])?)?

    /// The queries (`where`, `filter`) every object must match, applied before
    /// sorts and distincts as Realm applies its query first; empty for none.
    let filters: [QueryHandle]
    /// The last run of the filters, in result order, kept while the C core says it is
    /// current (no write, same snapshot).
    private var filterRun: CoreResults?
    /// Its keys, once read: a count or a first object reads none.
    private var filterKeys: [lar_objkey]?
    /// The aggregates of the property last aggregated, kept while the version stays.
    private(set) lazy var aggregateMemo: AggregateMemo? = AggregateMemo()

    /// The collection results of values view; nil for results of objects.
    let valueSource: ValueSource?
    /// The values in result order as last read, and when: kept until the
    /// version (writes, other transactions) or a collection write moves.
    private var valueSnapshot: [Element] = []
    private var valueStamp: (version: UInt64, collectionWrites: UInt64)?

    /// A managed collection of values and its elements in its own order, read afresh on each use.
    struct ValueSource {
        let collection: _LarderCollection
        /// The class of the collection's owner: an iterator of values walks no objects of it.
        let ownerTable: ManagedClass
        let elements: () -> [Element]
        /// The same source in another instance of the file; nil when the collection is gone there.
        let rebind: (RealmInstance) -> ValueSource?
    }

    convenience init(instance: RealmInstance, table: ManagedClass, sort: [SortDescriptor]) {
        self.init(instance: instance, table: table, steps: sort.isEmpty ? [] : [.sort(sort)], source: nil, sourceIn: nil,
                  filters: [])
    }

    /// Results of the objects of a collection whose keys (in its order) source
    /// reads; sourceIn makes the same source in another instance of the file.
    convenience init(instance: RealmInstance, table: ManagedClass, source: @escaping () -> [lar_objkey],
                     sourceIn: @escaping (RealmInstance) -> (() -> [lar_objkey])?) {
        self.init(instance: instance, table: table, steps: [], source: source, sourceIn: sourceIn, filters: [])
    }

    init(instance: RealmInstance, table: ManagedClass, steps: [OrderingStep], source: (() -> [lar_objkey])?,
                 sourceIn: ((RealmInstance) -> (() -> [lar_objkey])?)?, filters: [QueryHandle]) {
        self.instance = instance
        objectTable = table
        self.steps = steps
        self.source = source
        self.sourceIn = sourceIn
        self.filters = filters
        valueSource = nil
    }

    /// The same derivation of another results: these steps and filters on its objects.
    private convenience init(_ other: Results, steps: [OrderingStep], filters: [QueryHandle]) {
        self.init(instance: other.instance, table: other.table, steps: steps, source: other.source,
                  sourceIn: other.sourceIn, filters: filters)
    }

    /// Results of the values of a managed collection, which elements reads in the
    /// collection's order. An unmanaged one traps with Realm's message (kind: Realm's
    /// name for the collection, as "RLMArray"), as Realm's results need a Realm.
    convenience init<C: _LarderCollection>(values collection: C, kind: String, read: @escaping (C) -> [Element]) {
        guard collection.ref != nil else {
            fatalError("This method may only be called on \(kind) instances retrieved from an RLMRealm")
        }
        self.init(values: Self.valueSource(collection, read), steps: [], filters: [])
    }

    private static func valueSource<C: _LarderCollection>(_ collection: C, _ read: @escaping (C) -> [Element]) -> ValueSource {
        ValueSource(collection: collection, ownerTable: collection.ref!.ownerTable, elements: { read(collection) },
                    rebind: { instance in collection.rebound(to: instance).map { valueSource($0, read) } })
    }

    private init(values: ValueSource, steps: [OrderingStep], filters: [QueryHandle]) {
        instance = values.collection.ref!.instance
        objectTable = nil
        self.steps = steps
        source = nil
        sourceIn = nil
        self.filters = filters
        valueSource = values
    }

    /// The same results in another instance of the file; nil when the collection
    /// they view is gone there.
    func rebound(to other: RealmInstance) -> Results? {
        if other === instance { return self }
        if let valueSource {
            return valueSource.rebind(other).map { Results(values: $0, steps: steps, filters: filters) }
        }
        var source: (() -> [lar_objkey])?
        if let sourceIn {
            guard let rebound = sourceIn(other) else { return nil }
            source = rebound
        }
        return Results(instance: other, table: other.table(like: table), steps: steps, source: source,
                       sourceIn: sourceIn, filters: filters)
    }

    /// The class of results of objects.
    var table: ManagedClass { objectTable! }

    /// Whether the results stream over the whole table in key order.
    var isWholeTable: Bool { steps.isEmpty && source == nil && valueSource == nil && filters.isEmpty }

    public var realm: Realm? { Realm(instance: instance) }

    /// True once the collection results of values view was deleted with its owner, or its Realm invalidated.
    public var isInvalidated: Bool {
        valueSource?.collection.ref?.isInvalidated ?? false
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// O(1) for all the objects of a class: the count comes from the table.
    public var count: Int {
        if valueSource != nil { return values().count }
        if isWholeTable { return instance.count(table) }
        if !filters.isEmpty { return instance.serialized { runFilters(instance.currentTxn())?.count ?? filterRun!.count } }
        return keys().count
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        if valueSource != nil {
            let values = values()
            checkIndex(position, count: values.count)
            return values[position]
        }
        let keys = keys()
        checkIndex(position, count: keys.count)
        return object(keys[position])
    }

    public var first: Element? {
        if valueSource != nil { return values().first }
        if isWholeTable {
            var iterator = makeIterator()
            return iterator.next()
        }
        if !filters.isEmpty {
            let key = instance.serialized { runFilters(instance.currentTxn()).map(\.first) ?? filterRun!.key(at: 0) }
            guard let key else { return nil }
            return object(key)
        }
        guard let key = keys().first else { return nil }
        return object(key)
    }

    public var last: Element? {
        if valueSource != nil { return values().last }
        guard let key = keys().last else { return nil }
        return object(key)
    }

    public func makeIterator() -> ResultsIterator<Element> {
        if let valueSource { return ResultsIterator(values: values(), instance: instance, ownerTable: valueSource.ownerTable) }
        if isWholeTable { return ResultsIterator(streaming: instance, table: table) }
        let run = instance.serialized { currentRun() }
        return ResultsIterator(keys: run.keys, results: run.results, instance: instance, table: table)
    }

    /// The position of element in these results (an object: the same object), or nil.
    public func index(of element: Element) -> Int? {
        if valueSource != nil { return values().firstIndex { List<Element>.same($0, element) } }
        let object = _unsafeReferenceCast(element, to: Object.self)
        guard object.core.realm === instance, object.core.table.id == table.id else { return nil }
        return keys().firstIndex(of: object.core.key)
    }

    /// The elements at indexes, in ascending order of index; an index past the end traps.
    public func objects(at indexes: IndexSet) -> [Element] {
        if valueSource != nil {
            let values = values()
            checkObjectIndexes(indexes, count: values.count)
            return indexes.map { values[$0] }
        }
        let keys = keys()
        checkObjectIndexes(indexes, count: keys.count)
        return indexes.map { object(keys[$0]) }
    }

    /// The accessor of key, for results of objects (whose Element is an Object class).
    private func object(_ key: lar_objkey) -> Element {
        // Not `_unsafeReferenceCast`: unspecialized, it is a dynamic cast (~170 instructions).
        unsafeBitCast(instance.accessor(table, key: key), to: Element.self)
    }

    /// Traps, with Realm's messages, unless position is in the results.
    private func checkIndex(_ position: Int, count: Int) {
        if position < 0 { fatalError("Cannot pass a negative value for 'index'.") }
        if position >= count { fatalError("Index \(position) is out of bounds (must be less than \(count)).") }
    }

    // MARK: Values

    /// The values sorted by their own value, as Realm's `sorted(ascending:)` (the key path "self").
    /// Results of values only: objects sort by their properties.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        guard let valueSource else { fatalError("Cannot sort on key path 'self': objects sort by their properties.") }
        return Results(values: valueSource, steps: adding(.sort([SortDescriptor(keyPath: "self", ascending: ascending)])),
                       filters: filters)
    }

    /// Each distinct value once, at its first position, as Realm's `distinct()`
    /// (the key path "self"). Results of values only: objects are distinct already.
    public func distinct() -> Results<Element> {
        guard let valueSource else { fatalError("Cannot distinct on key path 'self': objects are distinct by their properties.") }
        return Results(values: valueSource, steps: steps + [.distinct(["self"])], filters: filters)
    }

    /// The filters with query after them, in one array (`filters + [query]` made two).
    private func filters(adding query: QueryHandle) -> [QueryHandle] {
        if filters.isEmpty { return [query] }
        var all = filters
        all.append(query)
        return all
    }

    /// The steps with step after them: a sort after a sort decides first, the earlier one breaks its ties.
    private func adding(_ step: OrderingStep) -> [OrderingStep] {
        var steps = steps
        if case .sort(let added) = step, case .sort(let earlier) = steps.last {
            steps[steps.count - 1] = .sort(added + earlier)
        } else {
            steps.append(step)
        }
        return steps
    }

    /// The values in result order at the current version.
    func values() -> [Element] {
        instance.serialized { currentValues() }
    }

    private func currentValues() -> [Element] {
        let txn = instance.currentTxn() // so that the version below is the current transaction's
        let stamp = (version: instance.version, collectionWrites: instance.collectionWrites)
        if let valueStamp, valueStamp == stamp,
           filters.isEmpty || Element._larderTargetClass == nil || filterRun?.isCurrent(in: txn) == true {
            return valueSnapshot
        }
        let values = orderedValues(txn)
        valueSnapshot = values
        valueStamp = stamp
        snapshotBuilds += 1
        return values
    }

    /// The objects among values that every filter matches (nil and other values match none);
    /// plain values, those every filter over values matches.
    private func matching(_ values: [Element], _ txn: OpaquePointer) -> [Element] {
        if Element._larderTargetClass == nil { return matchingPlain(values, txn) }
        let objects = values.compactMap { value -> lar_objkey? in
            guard case .object(let object) = value._larderStored else { return nil }
            return object.core.key
        }
        let results = filters.runResults(on: objects, in: txn)
        filterRun = results
        filterKeys = nil
        let matched = Set(results.keys)
        return values.filter { value in
            guard case .object(let object) = value._larderStored else { return false }
            return matched.contains(object.core.key)
        }
    }

    /// The plain values that every filter (over values) matches, tested in the C core.
    private func matchingPlain(_ values: [Element], _ txn: OpaquePointer) -> [Element] {
        var kept = values
        for query in filters where !kept.isEmpty {
            var hits = [UInt8](repeating: 0, count: kept.count)
            let rc = _StoredValue.withCValues(kept.map(\._larderStored)) { pointer, count in
                lar_query_match_values(txn, query.pointer, pointer, count, &hits)
            }
            if rc != LAR_OK { QueryHandle.invalidQuery() }
            kept = zip(kept, hits).compactMap { $1 != 0 ? $0 : nil }
        }
        return kept
    }

    /// The same results of values, filtered by query too (`Map.where`, `List<Int>.where`).
    func filteredValues(by query: QueryHandle) -> Results<Element> {
        guard let valueSource else {
            fatalError("Invalid query: results of \(Element.self) objects filter by their properties, not 'self'")
        }
        return Results(values: valueSource, steps: steps, filters: filters(adding: query))
    }

    /// The values in result order, read from the collection now.
    private func orderedValues(_ txn: OpaquePointer) -> [Element] {
        if isInvalidated { return [] } // the collection's owner was deleted: Realm's results become empty
        var elements = valueSource!.elements()
        if !filters.isEmpty { elements = matching(elements, txn) } // the query first, as Realm applies it
        for step in steps {
            switch step {
            case .sort(let descriptors):
                let keyed = elements.enumerated().map { (offset: $0.offset, element: $0.element,
                                                         values: descriptors.map { [element = $0.element] in
                                                             Self.orderingValue(of: element, $0.keyPath) }) }
                elements = keyed.sorted { a, b in
                    for (index, descriptor) in descriptors.enumerated() where a.values[index] != b.values[index] {
                        let before = _StoredValue.ascending(a.values[index], b.values[index])
                        return descriptor.ascending ? before : !before
                    }
                    return a.offset < b.offset
                }.map(\.element)
            case .distinct(let keyPaths):
                var seen = Set<[_StoredValue]>()
                elements = elements.filter { element in
                    seen.insert(keyPaths.map { Self.orderingValue(of: element, $0) }).inserted
                }
            }
        }
        return elements
    }

    /// What a value sorts by: itself ("self"), or a property of the object it is (nil objects: null).
    private static func orderingValue(of element: Element, _ keyPath: String) -> _StoredValue {
        let stored = element._larderStored
        if keyPath == "self" { return stored }
        guard case .object(let object) = stored, let instance = object.core.realm, let table = object.core.table,
              let slot = table.schema.slotByName[keyPath] else { return .null }
        return instance.readStored(object.core, slot: slot)
    }

    /// Results of the objects a map holds sorted by their properties: `Results<Dog?>`.
    /// The names are checked against schema, the objects' class (a `DynamicObject`'s
    /// is not its type's: without it, each object's own class reads the names).
    func sortedObjects(by descriptors: [SortDescriptor], of type: Object.Type, schema: ClassSchema? = nil) -> Results<Element> {
        for descriptor in descriptors {
            guard let schema = schema ?? (type == DynamicObject.self ? nil : type.schema),
                  schema.slotByName[descriptor.keyPath] == nil else { continue }
            fatalError("Cannot sort on key path '\(descriptor.keyPath)': property '\(schema.name).\(descriptor.keyPath)' does not exist.")
        }
        if descriptors.isEmpty { return Results(values: valueSource!, steps: steps, filters: filters) }
        return Results(values: valueSource!, steps: adding(.sort(descriptors)), filters: filters)
    }

    public var description: String {
        if valueSource != nil {
            let lines = values().prefix(100).enumerated().map { index, element in
                "\t[\(index)] \(element._larderStored.displayText(depth: 0))"
            }
            let name = Element._larderTargetClass?.className() ?? "\(Element.self)"
            return "Results<\(name)> <\(count)> (\n" + lines.joined(separator: ",\n") + "\n)"
        }
        let items = keys().prefix(100).map { key in
            let object = instance.accessor(table, key: key)
            return "\t[\(key)] \(object.description.replacingOccurrences(of: "\n", with: "\n\t"))"
        }
        return "Results<\(table.schema.name)> <\(count)> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Snapshots

    /// The keys in result order at the current version.
    func keys() -> [lar_objkey] {
        instance.serialized { currentRun().keys }
    }

    /// The keys in result order, and the C result that holds exactly these keys when there
    /// is one (a query's, a sort's): a walk in the transaction that computed it reads the
    /// rows it read, without a lookup each.
    private func currentRun() -> (keys: [lar_objkey], results: CoreResults?) {
        let txn = instance.currentTxn() // so that the stamp below is the current transaction's
        if !filters.isEmpty {
            let keys = runFilters(txn) ?? filterRun!.keys
            filterKeys = keys
            return (keys, filterRun)
        }
        if let source { return (order(source(), txn), nil) }
        let stamp = currentStamp()
        if snapshotStamp == stamp { return (snapshot, snapshotResults) }
        var keys: [lar_objkey] = []
        snapshotResults = nil
        if steps.isEmpty {
            let walker = ResultsWalker(instance: instance, table: table, keys: nil)
            while let key = walker.nextKey() { keys.append(key) }
        } else {
            let all = CoreResults.all(table, in: instance, txn: txn)
            all.apply(steps, txn: txn)
            keys = all.keys
            snapshotResults = all
        }
        snapshot = keys
        snapshotStamp = stamp
        snapshotBuilds += 1
        return (keys, snapshotResults)
    }

    /// Runs the filters unless their last run is current: the objects (of the class, or of
    /// source) every filter matches, in result order, in `filterRun`. Returns the run's keys
    /// when they were read already.
    private func runFilters(_ txn: OpaquePointer) -> [lar_objkey]? {
        if let filterRun, filterRun.isCurrent(in: txn) { return filterKeys }
        let results = filters.runResults(on: source.map { $0() }, in: txn)
        results.apply(steps, txn: txn) // sorted in place
        filterRun = results
        filterKeys = nil
        snapshotBuilds += 1
        return nil
    }

    /// What the snapshot depends on: the transaction, the class's membership and the values the sorts read.
    private struct SnapshotStamp: Equatable {
        let membershipEpoch: UInt64
        let classMembership: UInt64
        let sortKeyWrites: UInt64
    }

    private func currentStamp() -> SnapshotStamp {
        SnapshotStamp(membershipEpoch: instance.state.membershipEpoch, classMembership: table.changes.membership,
                      sortKeyWrites: orderingReads.isEmpty ? 0 : KeyPathOrdering.stamp(orderingReads, root: table))
    }

    /// keys after every sort and distinct, in order, run by the core.
    private func order(_ keys: [lar_objkey], _ txn: OpaquePointer) -> [lar_objkey] {
        if steps.isEmpty { return keys }
        let results = CoreResults.of(keys, table, txn: txn)
        results.apply(steps, txn: txn)
        return results.keys
    }
}

// MARK: Sorting, distinct and key-value coding

extension Results: RealmCollection {
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Objects sort on their properties, values on "self" (as `sorted(ascending:)`),
    /// and the objects of a map (`Results<Dog?>`) on theirs.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        let added = Array(descriptors)
        if let valueSource {
            if let type = Element._larderTargetClass { return sortedObjects(by: added, of: type) }
            for descriptor in added where descriptor.keyPath != "self" {
                fatalError("Cannot sort on key path '\(descriptor.keyPath)': results of \(Element.self) sort only on 'self'.")
            }
            return Results(values: valueSource, steps: added.isEmpty ? steps : adding(.sort(added)), filters: filters)
        }
        checkKeyPaths(added.map(\.keyPath))
        if added.isEmpty { return Results(self, steps: steps, filters: filters) }
        return Results(self, steps: adding(.sort(added)), filters: filters)
    }

    /// Traps, with realm-core's message, when a key path names no property of the class.
    fileprivate func checkKeyPaths(_ keyPaths: [String]) {
        _ = KeyPathOrdering.reads(keyPaths, from: table, instance: instance)
    }

    // MARK: Key-value coding

    /// The value of property key for every object, in order, as an array; "self" gives the elements.
    /// Results of values give nil for other keys, except the objects of a map.
    public func value(forKey key: String) -> Any? {
        if key == "self" { return Array(self) }
        if valueSource != nil { return map { ($0 as? Object)?.value(forKey: key) as Any } }
        return map { _unsafeReferenceCast($0, to: Object.self).value(forKey: key) }
    }

    /// The same for a key path through links ("favoriteToy.name").
    public func value(forKeyPath keyPath: String) -> Any? {
        if !keyPath.contains(".") { return value(forKey: keyPath) }
        if valueSource != nil { return map { ($0 as? Object)?.value(forKeyPath: keyPath) as Any } }
        return map { _unsafeReferenceCast($0, to: Object.self).value(forKeyPath: keyPath) }
    }

    /// Sets property key on every object; only inside a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        if !instance.isInWriteTransaction { fatalError("Cannot modify Results outside of a write transaction.") }
        if valueSource != nil {
            for element in self { (element as? Object)?.setValue(value, forKey: key) }
            return
        }
        for objectKey in keys() { instance.accessor(table, key: objectKey).setValue(value, forKey: key) }
    }
}

// MARK: Results of objects

extension Results where Element: Object {
    /// Sorted on the persisted property keyPath reads, as `sorted(by: \.age)`.
    public func sorted<Value: _Persistable>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: table.schema.propertyName(of: keyPath), ascending: ascending)
    }

    /// The first object, in the current order, of each combination of the values
    /// of the properties keyPaths name; later sorts apply to what is left.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        let keyPaths = Array(keyPaths)
        checkKeyPaths(keyPaths)
        if keyPaths.isEmpty { return Results(self, steps: steps, filters: filters) }
        return Results(self, steps: steps + [.distinct(keyPaths)], filters: filters)
    }

    // MARK: Filtering

    /// The objects that match the query isIncluded builds, as Realm's `where`:
    /// `realm.objects(Dog.self).where { $0.name == "Wolfie" }`. Lazy and live as
    /// every Results; the query runs in the C core when first read, and again
    /// only after a write or a refresh. An invalid query traps with the core's message.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        filtered(by: Query<Element>.build(isIncluded, instance: instance, table: table))
    }

    /// The objects that match a predicate in Realm's query language, its `%@`,
    /// `%K` and `$n` arguments bound to args (values, arrays for `IN`, strings
    /// for `%K`): `filter("age < %@ AND name BEGINSWITH[c] %@", 2, "r")`.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        filter(predicateFormat, arguments: args.map { $0 as Any? })
    }

    func filter(_ predicateFormat: String, arguments: [Any?]) -> Results<Element> {
        filtered(by: QueryArgument.parse(predicateFormat, arguments, environment: instance.environment, cls: table.id,
                                         schema: table.schema))
    }

    /// The position of the first object, in this order, that matches the query; nil when none does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        firstIndex(in: self.where(isIncluded))
    }

    /// The same with a predicate in Realm's query language.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        index(matching: predicateFormat, arguments: args.map { $0 as Any? })
    }

    func index(matching predicateFormat: String, arguments: [Any?]) -> Int? {
        firstIndex(in: filter(predicateFormat, arguments: arguments))
    }

    private func firstIndex(in matching: Results<Element>) -> Int? {
        let matched = Set(matching.keys())
        return keys().firstIndex(where: matched.contains)
    }

    private func filtered(by query: QueryHandle) -> Results<Element> {
        Results(self, steps: steps, filters: filters(adding: query))
    }
}

extension Results: ObjectAggregating where Element: Object {
    /// The objects, for the C core to fold: the whole class, or one filter's matches, while
    /// the core scans them (no keys collected); the keys in result order otherwise.
    var aggregateSource: AggregateSource {
        if isWholeTable { return .query(instance, table, QueryHandle.all(table, in: instance)) }
        if filters.count == 1 && steps.isEmpty && source == nil { return .query(instance, table, filters[0]) }
        return .keys(instance, table, keys())
    }
}

// MARK: Aggregates of values

extension Results where Element: MinMaxType {
    /// The smallest value, nil values skipped; nil when there is none.
    public func min() -> Element? { ValueAggregate.run(.min, values(), as: Element.self) }
    /// The largest value, nil values skipped; nil when there is none.
    public func max() -> Element? { ValueAggregate.run(.max, values(), as: Element.self) }
}

extension Results where Element: AddableType {
    /// The sum of the values, nil values skipped; zero for none.
    public func sum() -> Element { ValueAggregate.run(.sum, values(), as: Element.self)! }
    /// The mean of the values, nil values skipped; nil when there is none.
    public func average<T: AddableType>() -> T? { ValueAggregate.run(.average, values(), as: T.self) }
}

/// Walks results over the objects there were when the walk began, as Realm's
/// for-in walks a snapshot. Unsorted results stream from the table: when the loop
/// body writes or refreshes, the walk resumes after the last object in the new
/// version, and stops before the first object this Realm created since it began.
public struct ResultsIterator<Element: RealmCollectionValue>: IteratorProtocol {
    /// The walk over objects; for results of values, one over no objects, so that
    /// the object path pays no check (an optional walker cost a third of a scan).
    @usableFromInline let walker: ResultsWalker
    /// The values of results of values, read when the walk began; empty for objects.
    @usableFromInline var values: IndexingIterator<[Element]>

    init(streaming instance: RealmInstance, table: ManagedClass) {
        walker = ResultsWalker(instance: instance, table: table, keys: nil)
        values = [].makeIterator()
    }

    /// results, when not nil, holds exactly keys: the walk starts from it.
    init(keys: [lar_objkey], results: CoreResults? = nil, instance: RealmInstance, table: ManagedClass) {
        walker = ResultsWalker(instance: instance, table: table, keys: keys, results: results)
        values = [].makeIterator()
    }

    init(values: [Element], instance: RealmInstance, ownerTable: ManagedClass) {
        walker = ResultsWalker(instance: instance, table: ownerTable, keys: [])
        self.values = values.makeIterator()
    }

    /// The walker steps only for results of objects, whose Element is the walked class.
    @inlinable
    public mutating func next() -> Element? {
        if let object = walker.step() { return _unsafeReferenceCast(object, to: Element.self) }
        return values.next()
    }

    mutating func nextKey() -> lar_objkey? {
        walker.nextKey()
    }
}

/// The non-generic work of `ResultsIterator`, so it compiles once, in this module.
///
/// A walker is confined to its thread (a frozen instance's walks run under its lock), so
/// its fields skip Swift's dynamic exclusivity checks: one per step cost ~75 instructions.
@usableFromInline
final class ResultsWalker {
    private let instance: RealmInstance
    private let table: ManagedClass
    private let keys: [lar_objkey]?
    /// The C result holding exactly keys, for the first opening of the walk; nil after.
    @exclusivity(unchecked) private var results: CoreResults?
    @exclusivity(unchecked) private var position = 0
    /// The object handed out last; reused when the caller kept no reference to it.
    @exclusivity(unchecked) private var current: Object?
    @exclusivity(unchecked) private var handle: OpaquePointer?
    @exclusivity(unchecked) private var version: UInt64 = .max
    @exclusivity(unchecked) private var lastKey: lar_objkey = 0
    @exclusivity(unchecked) private var done = false
    /// The stamp of the row a streamed step read, bound to the C iterator
    /// (`lar_iter_bind_stamp`) for a class keyed by its int primary key.
    private let stepStamp: UnsafeMutablePointer<UInt64>
    /// A streamed walk over the owners of to-one embedded objects (a person's address): when
    /// the loop read the first owner's embedded object, each later step reads the next one's
    /// with its owner (`lar_iter_follow`), into the embedded class's read cache, where the
    /// loop's reads then find it. Undecided until an owner with one was walked past.
    @exclusivity(unchecked) private var follow: FollowedLink?
    /// The key of the embedded object a followed step read, 0 for none.
    private let followedKey: UnsafeMutablePointer<lar_objkey>
    /// Whether steps decode only the slots the loop reads (`ManagedClass.isProjectable`):
    /// those bound to the C iterator, which start as the class's `wantedSlots` (what
    /// earlier walks' loops read) and grow by each slot read that a step did not decode.
    /// A loop that reads one property of seven decodes one. One that reads more than a
    /// third of them decodes whole rows from then on: a bound value decodes on its own,
    /// which costs about twice its share of a whole row's one pass (callgrind: a loop
    /// reading all 5 strings of a row took 2,300 instructions a step bound, 1,706 whole).
    @exclusivity(unchecked) private var projecting: Bool
    /// The slots bound to the current C iterator (projecting walks).
    @exclusivity(unchecked) private var boundSlots = SlotMask()

    init(instance: RealmInstance, table: ManagedClass, keys: [lar_objkey]?, results: CoreResults? = nil) {
        self.instance = instance
        self.table = table
        self.keys = keys
        self.results = results
        stepStamp = .allocate(capacity: 1)
        stepStamp.initialize(to: 0)
        followedKey = .allocate(capacity: 1)
        followedKey.initialize(to: 0)
        projecting = table.isProjectable && !instance.isFrozen && Self.fewEnough(table.wantedSlots, of: table)
    }

    /// Whether the step under way found the instance on its own thread (`verifyThread`'s fast path).
    @exclusivity(unchecked) private var onOwnThread = false

    /// The instance's `decodeStamp`, without asking for the thread again (two calls a
    /// step) when the step found it the instance's own.
    private var decodeStamp: UInt64 {
        onOwnThread ? instance.version ^ UInt64(UInt(bitPattern: instance.threadToken)) : instance.decodeStamp
    }

    /// Where a streamed walk ends; nil until it starts.
    @exclusivity(unchecked) private var end: WalkEnd?

    deinit {
        instance.serialized { // a frozen instance's transaction and class are shared by threads
            if let handle { lar_iter_close(handle) }
            if let end { table.changes.endWalk(end) }
        }
        stepStamp.deallocate()
        followedKey.deallocate()
    }

    /// The next object: the previous accessor rebound when nobody else holds it.
    @usableFromInline
    func step() -> Object? {
        // verifyThread, keeping what it found for the stamps of the rows the step decodes.
        onOwnThread = instance.threadToken == larder_swift_thread_token()
        if !onOwnThread { instance.verifyConfinement() }
        // A frozen instance's walk decodes into buffers other threads decode into too.
        if _slowPath(instance.isFrozen) { return instance.serialized { nextObject() } }
        return nextObject()
    }

    private func nextObject() -> Object? {
        let next: lar_objkey?
        if let keys { next = nextListed(keys) } else { next = nextStreamed() }
        guard let key = next else {
            current = nil
            return nil
        }
        if current != nil && isKnownUniquelyReferenced(&current!) && !instance.isInvalidated(current!.core) {
            if keys == nil && table.reusesKeys {
                current!.core.rebind(to: key, stamp: stepStamp.pointee)
            } else {
                current!.core.rebind(to: key)
            }
        } else {
            current = instance.accessor(table, key: key)
        }
        return current
    }

    func nextKey() -> lar_objkey? {
        onOwnThread = false // not checked: the rows' stamps ask
        guard let keys else { return nextStreamed() }
        return nextListed(keys)
    }

    /// Steps a C iterator over the listed keys (lar_iter_open_results), decoding each
    /// row straight into the class's read cache as the streamed walk does.
    private func nextListed(_ keys: [lar_objkey]) -> lar_objkey? {
        guard position < keys.count else { return nil }
        let expected = keys[position]
        if handle == nil || version != instance.version { openListed(keys) }
        position += 1
        var obj = lar_obj()
        let rc = stepRow(&obj)
        if rc == LAR_OK && obj.key == expected {
            didDecode(obj.key, version: decodeStamp)
            return expected
        }
        if rc != LAR_OK && rc != LAR_ENOTFOUND { fatalCoreError(rc, "Cannot iterate objects") }
        // The iterator skipped expected, deleted since: hand it out as before, undecoded,
        // and restart after it.
        table.forgetRow()
        lar_iter_close(handle)
        handle = nil
        return expected
    }

    /// Opens the C iterator over the keys from position on, in this version.
    private func openListed(_ keys: [lar_objkey]) {
        if let handle { lar_iter_close(handle) }
        let txn = instance.currentTxn()
        let rest = position == 0 ? results ?? CoreResults.of(keys, table, txn: txn)
                                 : CoreResults.of(Array(keys[position...]), table, txn: txn)
        results = nil
        let rc = lar_iter_open_results(txn, rest.pointer, &handle)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
        boundSlots = SlotMask()
        version = instance.version
    }

    /// Steps the C iterator, decoding the row straight into the class's read cache.
    private func nextStreamed() -> lar_objkey? {
        if done { return nil }
        // Every end of a transaction bumps the version, so an iterator of this
        // version still has its transaction.
        if handle == nil || version != instance.version {
            if let handle { lar_iter_close(handle) }
            handle = instance.openIterator(table, from: lastKey + 1) // begins a read transaction if none
            boundSlots = SlotMask()
            if table.reusesKeys { lar_iter_bind_stamp(handle, stepStamp) }
            if follow?.isOn == true { follow!.bind(handle, followedKey) }
            version = instance.version
            if end == nil { // the walk's first step
                end = table.changes.beginWalk()
                if !instance.isFrozen { follow = FollowedLink(of: table, in: instance) }
            }
        }
        if follow?.isUndecided == true { decideFollowing() }
        var obj = lar_obj()
        let rc = stepRow(&obj)
        if rc == LAR_ENOTFOUND {
            finish()
            return nil
        }
        if rc == LAR_OK, let endKey = end?.key, obj.key >= endKey {
            table.forgetRow() // the step decoded a row the cache does not name
            if follow?.isOn == true { follow!.table.cachedVersion = .max } // nor the embedded one
            finish()
            return nil
        }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
        lastKey = obj.key
        let stamp = decodeStamp
        didDecode(obj.key, version: stamp)
        if let follow {
            if follow.isOn {
                if followedKey.pointee != 0 { follow.table.didDecode(key: followedKey.pointee, version: stamp) }
            } else if follow.isUndecided {
                self.follow!.lastLink = follow.link(in: table)
            }
        }
        return obj.key
    }

    /// Steps the C iterator: decoding the whole row into the class's read cache, or when
    /// projecting, the slots bound to it (binding those the loop has read since).
    private func stepRow(_ obj: inout lar_obj) -> Int32 {
        if projecting {
            let unbound = table.wantedSlots.subtracting(boundSlots)
            if unbound.isEmpty { return lar_iter_next(handle, &obj) }
            if Self.fewEnough(boundSlots.union(unbound), of: table) {
                bind(unbound)
                return lar_iter_next(handle, &obj)
            }
            stopProjecting()
        }
        return lar_iter_next_all(handle, &obj, table.values, table.storedCount)
    }

    /// Whether decoding only slots beats decoding whole rows of table (see `projecting`).
    private static func fewEnough(_ slots: SlotMask, of table: ManagedClass) -> Bool {
        slots.count * 3 <= table.storedCount
    }

    /// Unbinds the slots the C iterator decodes: from now on steps decode whole rows.
    private func stopProjecting() {
        for slot in boundSlots {
            let rc = lar_iter_bind_value(handle, UInt32(slot), nil)
            if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
        }
        boundSlots = SlotMask()
        projecting = false
    }

    /// Binds slots (of a projectable class: stored index = slot) to the read cache: a
    /// required int or double as its number (copied, not decoded), others as values.
    private func bind(_ slots: SlotMask) {
        for slot in slots {
            let value = table.values + slot, prop = UInt32(slot)
            let number = UnsafeMutableRawPointer(value) + MemoryLayout<lar_value>.offset(of: \lar_value.as)!
            let property = table.schema.properties[slot]
            var rc: Int32 = LAR_ETYPE
            if !property.isOptional && !property.isCollection {
                if property.type == LAR_TYPE_INT {
                    value.pointee.type = LAR_TYPE_INT
                    rc = lar_iter_bind_int(handle, prop, number.assumingMemoryBound(to: Int64.self))
                } else if property.type == LAR_TYPE_DOUBLE {
                    value.pointee.type = LAR_TYPE_DOUBLE
                    rc = lar_iter_bind_double(handle, prop, number.assumingMemoryBound(to: Double.self))
                }
            }
            if rc != LAR_OK { rc = lar_iter_bind_value(handle, prop, value) }
            if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
        }
        boundSlots = boundSlots.union(slots)
    }

    /// Names the row a step decoded in the class's read cache.
    private func didDecode(_ key: lar_objkey, version: UInt64) {
        if projecting {
            table.didDecodeProjected(key: key, version: version, slots: boundSlots)
        } else {
            table.didDecode(key: key, version: version)
        }
    }

    /// Turns following on when the loop read the embedded object of the owner walked last
    /// (it is in its class's read cache), off when it did not; stays undecided past owners
    /// without one.
    private func decideFollowing() {
        let link = follow!.lastLink
        guard link != 0 else { return }
        let read = follow!.table.cachedKey == link && follow!.table.cachedVersion == instance.cacheStamp
        follow!.state = read ? .on : .off
        if read { follow!.bind(handle, followedKey) }
    }

    private func finish() {
        done = true
        if let end { table.changes.endWalk(end) }
        end = nil
    }
}

/// The to-one embedded link a `ResultsWalker` follows (`lar_iter_follow`): the first of the
/// walked class, and the embedded class's table, whose read cache the steps fill.
struct FollowedLink {
    enum State { case undecided, on, off }
    let table: ManagedClass
    let slot: Int
    let storedIndex: UInt32
    var state = State.undecided
    /// The link key of the owner walked last, while undecided; 0 for none.
    var lastLink: lar_objkey = 0

    var isOn: Bool { state == .on }
    var isUndecided: Bool { state == .undecided }

    /// The first to-one embedded link of owners' class (in instance), if it has one.
    init?(of owners: ManagedClass, in instance: RealmInstance) {
        let schema = owners.schema
        guard !schema.isDynamic, let slot = schema.linkSlots.first(where: {
            schema.embeddedLink[$0] && !schema.properties[$0].isCollection
        }), let type = schema.properties[slot].targetClass else { return nil }
        table = instance.table(for: type)
        self.slot = slot
        storedIndex = UInt32(owners.propertyIndex[slot])
    }

    /// The key the link holds in owners' read cache, 0 when it is null.
    func link(in owners: ManagedClass) -> lar_objkey {
        let value = owners.slotValues[slot]
        return value.type == LAR_TYPE_LINK ? value.as.link.key : 0
    }

    /// Makes handle's steps read the followed objects into the embedded class's read cache.
    func bind(_ handle: OpaquePointer?, _ key: UnsafeMutablePointer<lar_objkey>) {
        let rc = lar_iter_follow(handle, storedIndex, table.values, table.storedCount, key)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
    }
}
