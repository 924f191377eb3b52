import CLarder
import Foundation

/// An unordered collection of distinct values, as in Realm:
/// `@Persisted var citiesVisited: MutableSet<String>`.
///
/// Unmanaged, the elements live in memory and are copied in when the owner is
/// added; managed, the set reads and writes the owner's row. Set algebra between
/// two managed sets of one file runs in the C core.
public final class MutableSet<Element: RealmCollectionValue>: _LarderCollection, RandomAccessCollection {
    public typealias Index = Int
    /// The elements while unmanaged, distinct.
    private var items: [Element] = []

    public required init() {}

    override class var elementType: any _Persistable.Type { Element.self }

    public var realm: Realm? { ref.map { Realm(instance: $0.instance) } }
    public var isInvalidated: Bool { ref?.isInvalidated ?? false }

    // MARK: Reading

    public var count: Int {
        guard let ref else { return items.count }
        return ref.instance.serialized {
            var count = 0
            ref.check(lar_set_count(ref.readTxn(), ref.owner, ref.prop, &count), "Cannot count a set")
            return count
        }
    }

    public var isEmpty: Bool { count == 0 }

    public func contains(_ element: Element) -> Bool {
        guard let ref else { return items.contains { List<Element>.same($0, element) } }
        if case .object(let object) = element._larderStored, object.realm == nil || object.isInvalidated { return false }
        return ref.instance.serialized {
            var found: Int32 = 0
            let txn = ref.readTxn()
            element._larderStored.withCValue { ref.check(lar_set_contains(txn, ref.owner, ref.prop, $0, &found), "Cannot read a set") }
            return found != 0
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Copies through the batched iterator, as `Array(set)` and `map` should:
    /// positions in a set cost a walk from its start.
    public func _copyToContiguousArray() -> ContiguousArray<Element> {
        var copy = ContiguousArray<Element>()
        var iterator = makeIterator()
        while let element = iterator.next() { copy.append(element) }
        return copy
    }

    public func map<T>(_ transform: (Element) throws -> T) rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try transform(element)) }
        return mapped
    }

    /// The element at a position of the set's order (unordered, as in Realm).
    public subscript(position: Int) -> Element {
        let elements = Array(self)
        if position < 0 { fatalError("Cannot pass a negative value for 'index'.") }
        if position >= elements.count { fatalError("Index \(position) is out of bounds (must be less than \(elements.count)).") }
        return elements[position]
    }

    public var first: Element? { var iterator = makeIterator(); return iterator.next() }
    public var last: Element? { Array(self).last }

    public func index(of element: Element) -> Int? {
        Array(self).firstIndex { List<Element>.same($0, element) }
    }

    /// The elements at indexes of the set's order, in ascending order of index; an index past the end traps.
    public func objects(at indexes: IndexSet) -> [Element] {
        let elements = Array(self)
        checkObjectIndexes(indexes, count: elements.count)
        return indexes.map { elements[$0] }
    }

    public func makeIterator() -> SetIterator<Element> { SetIterator(set: self) }

    /// The elements sorted by their own value (the key path "self"), as Realm's
    /// `sorted(ascending:)`: live results that read the set on each use (a managed set only, as in Realm).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        Results(values: self, kind: "RLMSet", read: { Array($0) }).sorted(ascending: ascending)
    }

    /// The elements, as Realm's `distinct()`: live results (a managed set only; its elements are distinct already).
    public func distinct() -> Results<Element> {
        Results(values: self, kind: "RLMSet", read: { Array($0) }).distinct()
    }

    // MARK: Changing

    public func insert(_ element: Element) {
        guard let ref else {
            if !contains(element) { items.append(element) }
            return
        }
        let txn = ref.writeTxn("Set")
        _ = ref.withElement(element._larderStored) { lar_set_insert(txn, ref.owner, ref.prop, $0, nil) }
            .map { ref.check($0, "Cannot insert into a set") }
    }

    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    public func remove(_ element: Element) {
        guard let ref else { return items.removeAll { List<Element>.same($0, element) } }
        let txn = ref.writeTxn("Set")
        if case .object(let object) = element._larderStored, object.realm == nil || object.isInvalidated { return }
        element._larderStored.withCValue { ref.check(lar_set_remove(txn, ref.owner, ref.prop, $0, nil), "Cannot remove from a set") }
    }

    public func removeAll() {
        guard let ref else { return items.removeAll() }
        ref.check(lar_set_clear(ref.writeTxn("Set"), ref.owner, ref.prop), "Cannot clear a set")
    }

    // MARK: Set algebra

    /// Inserts every element of other.
    public func formUnion(_ other: MutableSet<Element>) {
        if let (txn, ref, otherRef) = bothManaged(other, writing: true) {
            return ref.check(lar_set_union(txn, ref.owner, ref.prop, otherRef.owner, otherRef.prop), "Cannot form a union")
        }
        insert(objectsIn: Array(other))
    }

    /// Keeps only the elements other holds too.
    public func formIntersection(_ other: MutableSet<Element>) {
        if let (txn, ref, otherRef) = bothManaged(other, writing: true) {
            return ref.check(lar_set_intersect(txn, ref.owner, ref.prop, otherRef.owner, otherRef.prop),
                             "Cannot form an intersection")
        }
        for element in Array(self) where !other.contains(element) { remove(element) }
    }

    /// Removes every element of other.
    public func subtract(_ other: MutableSet<Element>) {
        if let (txn, ref, otherRef) = bothManaged(other, writing: true) {
            return ref.check(lar_set_subtract(txn, ref.owner, ref.prop, otherRef.owner, otherRef.prop), "Cannot subtract")
        }
        for element in Array(other) { remove(element) }
    }

    /// Whether every element is in other.
    public func isSubset(of other: MutableSet<Element>) -> Bool {
        if let (txn, ref, otherRef) = bothManaged(other, writing: false) {
            var result: Int32 = 0
            ref.check(lar_set_is_subset(txn, ref.owner, ref.prop, otherRef.owner, otherRef.prop, &result), "Cannot compare sets")
            return result != 0
        }
        return allSatisfy { other.contains($0) }
    }

    /// Whether the sets have an element in common.
    public func intersects(_ other: MutableSet<Element>) -> Bool {
        if let (txn, ref, otherRef) = bothManaged(other, writing: false) {
            var result: Int32 = 0
            ref.check(lar_set_intersects(txn, ref.owner, ref.prop, otherRef.owner, otherRef.prop, &result), "Cannot compare sets")
            return result != 0
        }
        return contains { other.contains($0) }
    }

    /// The transaction and both places when both sets are managed in one file's
    /// instance, so the C core can walk them; nil otherwise.
    private func bothManaged(_ other: MutableSet<Element>, writing: Bool)
        -> (OpaquePointer, CollectionRef, CollectionRef)? {
        if writing, let ref, !ref.instance.isInWriteTransaction { _ = ref.writeTxn("Set") }
        guard let ref, let otherRef = other.ref, ref.instance === otherRef.instance else { return nil }
        return (writing ? ref.writeTxn("Set") : ref.readTxn(), ref, otherRef)
    }

    // MARK: Key-value coding and description

    public func value(forKey key: String) -> Any? {
        if key == "self" { return Array(self) }
        return map { ($0 as? Object)?.value(forKey: key) as Any }
    }

    /// The same for a key path through links ("toy.name").
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath == "self" { return value(forKey: keyPath) }
        return map { ($0 as? Object)?.value(forKeyPath: keyPath) as Any }
    }

    public func setValue(_ value: Any?, forKey key: String) {
        if let ref, !ref.instance.isInWriteTransaction { fatalError("Cannot modify Set outside of a write transaction.") }
        for element in self { (element as? Object)?.setValue(value, forKey: key) }
    }

    override func describe(depth: Int) -> String {
        let lines = IteratorSequence(makeIterator()).prefix(100).enumerated().map { index, element in
            "\t[\(index)] \(element._larderStored.displayText(depth: depth))"
        }
        let name = Element._larderTargetClass?.className() ?? "\(Element.self)"
        return "MutableSet<\(name)> <\(count)> (\n" + lines.joined(separator: ",\n") + "\n)"
    }

    // MARK: Plumbing

    override func storedElements() -> [_StoredValue] { map { $0._larderStored } }

    override func setUnmanaged(_ elements: [_StoredValue], keys: [String]?) {
        items = []
        for element in elements { insert(Element._larderFrom(element) ?? Element._larderDefault()) }
    }

    fileprivate var unmanagedItems: [Element] { items }

    /// Keys of the objects of a managed set, in its order, read 256 per C call
    /// without accessors: for Results over it and for aggregates.
    func objectKeys() -> [lar_objkey] {
        guard let ref else { return [] }
        var keys: [lar_objkey] = []
        let capacity = 256
        ref.instance.serialized {
            withUnsafeTemporaryAllocation(of: lar_value.self, capacity: capacity) { values in
                var after: lar_value? // a link holds no borrowed memory, so it outlives its batch
                while true {
                    var count = 0
                    let txn = ref.readTxn()
                    let rc: Int32
                    if var last = after {
                        rc = lar_set_list(txn, ref.owner, ref.prop, &last, values.baseAddress!, capacity, &count)
                    } else {
                        rc = lar_set_list(txn, ref.owner, ref.prop, nil, values.baseAddress!, capacity, &count)
                    }
                    if rc == LAR_ENOTFOUND { return }
                    ref.check(rc, "Cannot read a set")
                    for index in 0..<count { keys.append(values[index].as.link.key) }
                    after = values[count - 1]
                }
            }
        }
        return keys
    }
}

/// Iterates a set in its stored order, 64 elements per C call when managed.
public struct SetIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let set: MutableSet<Element>
    private var buffer: [Element] = []
    private var bufferIndex = 0
    /// The last element read, where the next batch starts after.
    private var after: _StoredValue?
    private var done = false

    init(set: MutableSet<Element>) {
        self.set = set
        if set.ref == nil { buffer = set.unmanagedItems; done = true }
    }

    public mutating func next() -> Element? {
        if bufferIndex == buffer.count {
            guard !done, let ref = set.ref else { return nil }
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
        var batch: [Element] = []
        var last: _StoredValue?
        ref.instance.serialized {
            withUnsafeTemporaryAllocation(of: lar_value.self, capacity: capacity) { values in
                var count = 0
                let txn = ref.readTxn()
                let rc: Int32
                if let after {
                    rc = after.withCValue { lar_set_list(txn, ref.owner, ref.prop, $0, values.baseAddress!, capacity, &count) }
                } else {
                    rc = lar_set_list(txn, ref.owner, ref.prop, nil, values.baseAddress!, capacity, &count)
                }
                if rc != LAR_ENOTFOUND { ref.check(rc, "Cannot read a set") }
                for index in 0..<count { batch.append(ref.element(values[index], as: Element.self)) }
                if count > 0 { last = ref.instance.storedElement(values[count - 1], property: ref.property) }
            }
        }
        buffer = batch
        after = last
    }
}

extension MutableSet: _Persistable {
    public static var _larderType: lar_type { Element._larderType }
    public static var _larderIsOptional: Bool { Element._larderIsOptional }
    public static var _larderTargetClass: Object.Type? { Element._larderTargetClass }
    public static var _larderCollection: lar_collection { LAR_COLLECTION_SET }
    public static func _larderDefault() -> MutableSet { MutableSet() }
    public static func _larderFrom(_ value: _StoredValue) -> MutableSet? { fromStored(value) }
    public static func _larderRead(_ value: lar_value) -> MutableSet { fatalError("A set is read through its owner") }
    public static func _larderManaged(realm: AnyObject, owner: AnyObject, slot: Int) -> MutableSet {
        managed(realm: realm, owner: owner, slot: slot)
    }
}

// MARK: Sets of objects

extension MutableSet: RealmCollection where Element: Object {
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        guard let ref else { fatalError("This method may only be called on RLMSet instances retrieved from an RLMRealm") }
        let table = ref.targetTable(as: Element.self)
        return Results(instance: ref.instance, table: table, source: { [self] in isInvalidated ? [] : objectKeys() },
                       sourceIn: { [self] in rebound(to: $0).map { set in { set.objectKeys() } } })
            .sorted(by: descriptors)
    }

}

// MARK: Aggregates

extension MutableSet: ObjectAggregating where Element: Object {
    /// A managed set's objects by key; an unmanaged one's in memory.
    var aggregateSource: AggregateSource {
        guard let ref else { return ObjectAggregate.source(of: items) }
        return .keys(ref.instance, ref.targetTable(as: Element.self), objectKeys())
    }
}

extension MutableSet where Element: MinMaxType {
    /// The smallest element, nil skipped; nil when there is none.
    public func min() -> Element? { ValueAggregate.run(.min, Array(self), as: Element.self) }
    /// The largest element, nil skipped; nil when there is none.
    public func max() -> Element? { ValueAggregate.run(.max, Array(self), as: Element.self) }
}

extension MutableSet where Element: AddableType {
    /// The sum of the elements, nil skipped; zero for none.
    public func sum() -> Element { ValueAggregate.run(.sum, Array(self), as: Element.self)! }
    /// The mean of the elements, nil skipped; nil when there is none.
    public func average<T: AddableType>() -> T? { ValueAggregate.run(.average, Array(self), as: T.self) }
}
