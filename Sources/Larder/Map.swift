import CLarder

/// The key types a Map can have: only String, as in Realm.
public protocol _MapKey: Hashable {
    var _larderKey: String { get }
    init(_larderKey: String)
}

extension String: _MapKey {
    public var _larderKey: String { self }
    public init(_larderKey: String) { self = _larderKey }
}

/// A dictionary property with string keys, as in Realm:
/// `@Persisted var favoriteParksByCity: Map<String, String>`.
///
/// Unmanaged, the entries live in memory (any key) and are copied in when the
/// owner is added; managed, the map reads and writes the owner's row, where a
/// key may not start with '$' or contain '.'. Entries iterate in key order.
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: _LarderCollection, Sequence {
    public typealias Element = (key: Key, value: Value)
    /// The entries while unmanaged.
    @usableFromInline var entries: [String: Value] = [:]

    public required init() {}

    override class var elementType: any _Persistable.Type { Value.self }

    public var realm: Realm? { ref.map { Realm(instance: $0.instance) } }
    public var isInvalidated: Bool { ref?.isInvalidated ?? false }

    // MARK: Reading

    public var count: Int {
        guard let ref else { return entries.count }
        return ref.instance.serialized {
            var count = 0
            ref.check(ref.mapCount(ref.readTxn(), &count), "Cannot count a map")
            return count
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The value of key, or nil when the map has no such key; assigning nil removes the key.
    @inlinable
    public subscript(key: Key) -> Value? {
        get { value(of: key._larderKey) }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    @usableFromInline
    func value(of key: String) -> Value? {
        guard let ref else { return entries[key] }
        return ref.instance.serialized { value(of: key, in: ref) }
    }

    private func value(of key: String, in ref: CollectionRef) -> Value? {
        var value = lar_value()
        let txn = ref.readTxn()
        let rc = MapKey.with(key) { ref.mapGet(txn, $0, &value) }
        if rc == LAR_ENOTFOUND { return nil }
        ref.check(rc, "Cannot read a map")
        return ref.element(value, as: Value.self)
    }

    /// The keys, in key order.
    public var keys: [Key] { map(\.key) }
    /// The values, in key order.
    public var values: [Value] { map(\.value) }

    public func makeIterator() -> MapIterator<Key, Value> { MapIterator(map: self) }

    /// The value of key, as Realm's `object(forKey:)`.
    public func object(forKey key: Key) -> Value? { self[key] }

    /// The values sorted by their own value (the key path "self"), as Realm's
    /// `sorted(ascending:)`: live results that read the map on each use (a managed map only, as in Realm).
    public func sorted(ascending: Bool = true) -> Results<Value> {
        valueResults().sorted(ascending: ascending)
    }

    /// The values (objects, or nil) sorted by the property keyPath names, as
    /// Realm's: `Results<Dog?>` for a `Map<String, Dog?>`. A nil value sorts as
    /// a nil property. A managed map of objects only, as in Realm.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The values sorted by several properties of their objects, the first deciding first.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Value> where S.Iterator.Element == SortDescriptor {
        guard let type = Value._larderTargetClass else {
            fatalError("sorted(byKeyPath:) needs a map of objects; use sorted(ascending:) on a Map<\(Key.self), \(Value.self)>")
        }
        return valueResults().sortedObjects(by: Array(descriptors), of: type, schema: ref?.targetTable(as: type).schema)
    }

    /// The objects among the values that match the query isIncluded builds, in key
    /// order, as Realm's `where` on a map (values, not pairs).
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value>
        where Value: _QueryOptional, Value.Wrapped: Object {
        let results = valueResults()
        let table = objectTable(in: results.instance)
        let node = isIncluded(Query<Value>.root()).node
        return results.filteredValues(by: QueryHandle.build(node, environment: results.instance.environment, cls: table.id))
    }

    /// The same with a predicate in Realm's query language and its arguments.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value>
        where Value: _QueryOptional, Value.Wrapped: Object {
        let results = valueResults()
        let table = objectTable(in: results.instance)
        return results.filteredValues(by: QueryArgument.parse(predicateFormat, args.map { $0 as Any? },
                                                              environment: results.instance.environment, cls: table.id,
                                                              schema: table.schema))
    }

    /// Live results of the values, in key order.
    /// The table of the objects a map of objects holds (a `DynamicObject`'s are named by its property).
    private func objectTable(in instance: RealmInstance) -> ManagedClass {
        if let ref { return ref.targetTable(as: Value._larderTargetClass) }
        guard let type = Value._larderTargetClass else { fatalError("Map<\(Key.self), \(Value.self)> holds no objects") }
        return instance.table(for: type)
    }

    func valueResults() -> Results<Value> {
        Results(values: self, kind: "RLMDictionary", read: { $0.values })
    }

    // MARK: Changing

    /// Sets the value of key, adding the key when it is new.
    ///
    /// Inlinable, so a client specializes it for its key and value types; the
    /// put itself (the checks, the key's bytes, the C call) is not generic.
    @inlinable
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let ref else { return entries[key._larderKey] = value }
        ref.putMapEntry(key._larderKey, value._larderStored)
    }

    public func removeObject(for key: Key) {
        let key = key._larderKey
        guard let ref else { return entries[key] = nil }
        let txn = ref.writeTxn("Dictionary")
        ref.check(MapKey.with(key) { ref.mapRemove(txn, $0) }, "Cannot remove from a map")
    }

    public func removeAll() {
        guard let ref else { return entries.removeAll() }
        ref.check(ref.mapClear(ref.writeTxn("Dictionary")), "Cannot clear a map")
    }

    /// Adds the entries of sequence; for a key already present, combine picks the value.
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
        where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence {
            let old = self[key]
            updateValue(try old.map { try combine($0, value) } ?? value, forKey: key)
        }
    }

    // MARK: Key-value coding and description

    /// The value of key (a String), as Realm's KVC on a map.
    public func value(forKey key: String) -> Any? {
        value(of: key).map { $0._larderStored.anyValue as Any }
    }

    /// The value of the first component of keyPath (a key), then of the rest of
    /// the path on that value when it is an object ("rex.name"); nil past a
    /// missing key or a nil object.
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        guard let object = value(forKey: String(keyPath[..<dot])) as? Object else { return nil }
        return object.value(forKeyPath: String(keyPath[keyPath.index(after: dot)...]))
    }

    /// Inserts or updates key, as Realm's KVC on a map.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let typed = value as? Value ?? (value == nil ? Value._larderFrom(.null) : nil) else {
            fatalError("Invalid value '\(value.map { "\($0)" } ?? "nil")' for a Map<\(Key.self), \(Value.self)>")
        }
        updateValue(typed, forKey: Key(_larderKey: key))
    }

    override func describe(depth: Int) -> String {
        let lines = prefix(100).map { key, value in
            "\t[\(key._larderKey)]: \(value._larderStored.displayText(depth: depth))"
        }
        return "Map<\(Key.self), \(Value._larderTargetClass?.className() ?? "\(Value.self)")> <\(count)> (\n" +
            lines.joined(separator: ",\n") + "\n)"
    }

    // MARK: Plumbing

    /// Unmanaged entries in the managed map's order: bytewise by key.
    fileprivate var sortedEntries: [(key: String, value: Value)] {
        entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) }
    }

    override func storedElements() -> [_StoredValue] { map { $0.value._larderStored } }
    override func storedKeys() -> [String]? { map { $0.key._larderKey } }

    override func setUnmanaged(_ elements: [_StoredValue], keys: [String]?) {
        entries = [:]
        for (key, element) in zip(keys ?? [], elements) { entries[key] = Value._larderFrom(element) ?? Value._larderDefault() }
    }
}

/// Iterates a map in key order, 64 entries per C call when managed.
public struct MapIterator<Key: _MapKey, Value: RealmCollectionValue>: IteratorProtocol {
    private let map: Map<Key, Value>
    private var buffer: [(key: Key, value: Value)] = []
    private var bufferIndex = 0
    private var after: String?
    private var done = false

    init(map: Map<Key, Value>) {
        self.map = map
        if map.ref == nil {
            buffer = map.sortedEntries.map { (Key(_larderKey: $0.key), $0.value) }
            done = true
        }
    }

    public mutating func next() -> (key: Key, value: Value)? {
        if bufferIndex == buffer.count {
            guard !done, let ref = map.ref else { return nil }
            buffer.removeAll(keepingCapacity: true)
            bufferIndex = 0
            readBatch(ref)
            if buffer.isEmpty { done = true; return nil }
        }
        defer { bufferIndex += 1 }
        return buffer[bufferIndex]
    }

    private mutating func readBatch(_ ref: CollectionRef) {
        let capacity = 64
        var batch: [(key: Key, value: Value)] = []
        ref.instance.serialized {
            withUnsafeTemporaryAllocation(of: lar_string.self, capacity: capacity) { keys in
                withUnsafeTemporaryAllocation(of: lar_value.self, capacity: capacity) { values in
                    var count = 0
                    let txn = ref.readTxn()
                    let rc: Int32
                    if let after {
                        rc = MapKey.with(after) { ref.mapList(txn, $0, keys.baseAddress!, values.baseAddress!, capacity, &count) }
                    } else {
                        rc = ref.mapList(txn, nil, keys.baseAddress!, values.baseAddress!, capacity, &count)
                    }
                    if rc != LAR_ENOTFOUND { ref.check(rc, "Cannot read a map") }
                    for index in 0..<count {
                        batch.append((Key(_larderKey: String(larderString: keys[index])), ref.element(values[index], as: Value.self)))
                    }
                }
            }
        }
        buffer = batch
        after = batch.last?.key._larderKey
    }
}

// MARK: Aggregates

extension Map {
    /// The smallest value of property among the map's objects (its values), nil
    /// values and nil objects skipped; nil when there is none.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { aggregate(.min, property) }
    /// The largest value of property among the map's objects; nil when there is none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { aggregate(.max, property) }
    /// The sum of property over the map's objects; zero when there is none.
    public func sum<T: AddableType>(ofProperty property: String) -> T { aggregate(.sum, property)! }
    /// The mean of property over the map's objects; nil when there is none.
    public func average<T: AddableType>(ofProperty property: String) -> T? { aggregate(.average, property) }

    private func aggregate<T: MinMaxType>(_ operation: AggregateOperation, _ property: String) -> T? {
        guard let type = Value._larderTargetClass else {
            fatalError("\(operation.rawValue)(ofProperty:) needs a map of objects; use \(operation.rawValue)() " +
                       "on a Map<\(Key.self), \(Value.self)>")
        }
        guard let ref else {
            let objects = values.compactMap { value -> Object? in
                if case .object(let object) = value._larderStored { return object }
                return nil
            }
            return ObjectAggregate.run(operation, property, of: type, ObjectAggregate.source(of: objects), as: T.self)
        }
        let table = objectTable(in: ref.instance)
        return ObjectAggregate.run(operation, property, of: type, .keys(ref.instance, table, objectKeys(ref)), as: T.self)
    }

    /// Keys of the objects a managed map holds (nil values skipped), in key
    /// order, read 256 entries per C call without accessors.
    private func objectKeys(_ ref: CollectionRef) -> [lar_objkey] {
        var objectKeys: [lar_objkey] = []
        let capacity = 256
        ref.instance.serialized {
            withUnsafeTemporaryAllocation(of: lar_string.self, capacity: capacity) { keys in
                withUnsafeTemporaryAllocation(of: lar_value.self, capacity: capacity) { values in
                    var after: String? // copied: a key read lives only in its transaction
                    while true {
                        var count = 0
                        let txn = ref.readTxn()
                        let rc: Int32
                        if let after {
                            rc = MapKey.with(after) {
                                lar_map_list(txn, ref.owner, ref.prop, $0, keys.baseAddress!, values.baseAddress!, capacity, &count)
                            }
                        } else {
                            rc = lar_map_list(txn, ref.owner, ref.prop, nil, keys.baseAddress!, values.baseAddress!, capacity, &count)
                        }
                        if rc == LAR_ENOTFOUND { return }
                        ref.check(rc, "Cannot read a map")
                        for index in 0..<count where values[index].type == LAR_TYPE_LINK {
                            objectKeys.append(values[index].as.link.key)
                        }
                        after = String(larderString: keys[count - 1])
                    }
                }
            }
        }
        return objectKeys
    }
}

extension Map where Value: MinMaxType {
    /// The smallest value, nil values skipped; nil when there is none.
    public func min() -> Value? { ValueAggregate.run(.min, values, as: Value.self) }
    /// The largest value, nil values skipped; nil when there is none.
    public func max() -> Value? { ValueAggregate.run(.max, values, as: Value.self) }
}

extension Map where Value: AddableType {
    /// The sum of the values, nil values skipped; zero for none.
    public func sum() -> Value { ValueAggregate.run(.sum, values, as: Value.self)! }
    /// The mean of the values, nil values skipped; nil when there is none.
    public func average<T: AddableType>() -> T? { ValueAggregate.run(.average, values, as: T.self) }
}

extension Map: _Persistable {
    public static var _larderType: lar_type { Value._larderType }
    public static var _larderIsOptional: Bool { Value._larderIsOptional }
    public static var _larderTargetClass: Object.Type? { Value._larderTargetClass }
    public static var _larderCollection: lar_collection { LAR_COLLECTION_MAP }
    public static func _larderDefault() -> Map { Map() }
    public static func _larderFrom(_ value: _StoredValue) -> Map? { fromStored(value) }
    public static func _larderRead(_ value: lar_value) -> Map { fatalError("A map is read through its owner") }
    public static func _larderManaged(realm: AnyObject, owner: AnyObject, slot: Int) -> Map {
        managed(realm: realm, owner: owner, slot: slot)
    }
}
