import CLarder
import Foundation

/// An ordered collection property, as in Realm: `@Persisted var dogs: List<Dog>`.
///
/// Unmanaged, a list keeps its elements in memory; when its owner is added they
/// are copied in, and the list itself then reads and writes the owner's row.
/// A managed list is live and stays bound to the object it was taken from.
public final class List<Element: RealmCollectionValue>: _LarderCollection, MutableCollection, RandomAccessCollection {
    public typealias Index = Int
    /// The elements while unmanaged.
    @usableFromInline var items: [Element] = []

    public required init() {}

    override class var elementType: any _Persistable.Type { Element.self }

    // MARK: State

    public var realm: Realm? { ref.map { Realm(instance: $0.instance) } }

    /// True once the owner was deleted or its Realm invalidated.
    public var isInvalidated: Bool { ref?.isInvalidated ?? false }

    // MARK: Reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// Unchecked, as Realm's: a position past the end traps where it is used, with Realm's message.
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    public var count: Int {
        guard let ref else { return items.count }
        return ref.instance.serialized {
            var count = 0
            ref.check(ref.listCount(ref.readTxn(), &count), "Cannot count a list")
            return count
        }
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        get {
            checkIndex(position, below: count)
            guard let ref else { return items[position] }
            return ref.instance.serialized {
                var value = lar_value()
                ref.check(ref.listGet(ref.readTxn(), position, &value), "Cannot read a list")
                return ref.element(value, as: Element.self)
            }
        }
        set {
            guard let ref else { return checkIndex(position, below: items.count, { self.items[position] = newValue }) }
            let txn = ref.writeTxn("List")
            checkIndex(position, below: count)
            _ = ref.withElement(newValue._larderStored, place: .index(position), embed: {
                lar_list_set_embedded(txn, ref.owner, ref.prop, position, $0, $1, $2)
            }) { ref.listSet(txn, position, $0) }
                .map { ref.check($0, "Cannot set a list element") }
        }
    }

    public var first: Element? { isEmpty ? nil : self[0] }
    public var last: Element? {
        let count = count
        return count == 0 ? nil : self[count - 1]
    }

    /// Reads the managed list in batches: one C call per `ListIterator.batchSize` elements.
    @inlinable
    public func makeIterator() -> ListIterator<Element> {
        ListIterator(list: self)
    }

    /// Copies through the batched iterator: Collection's default reads one
    /// element (and the count) per C call. `Array(list)` and `map` come here.
    @inlinable
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

    /// The position of the first element equal to element (an object: the same object), or nil.
    public func index(of element: Element) -> Int? {
        for (position, candidate) in enumerated() where Self.same(candidate, element) { return position }
        return nil
    }

    static func same(_ a: Element, _ b: Element) -> Bool {
        if let a = a as? Object { return a.isSameObject(as: b as? Object) }
        return a._larderStored == b._larderStored
    }

    /// The elements sorted by their own value (the key path "self"), as Realm's
    /// `sorted(ascending:)`: live results that read the list on each use (a managed list only, as in Realm).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        Results(values: self, kind: "RLMArray", read: { Array($0) }).sorted(ascending: ascending)
    }

    /// Each distinct element once, at its first position, as Realm's `distinct()`: live results (a managed list only).
    public func distinct() -> Results<Element> {
        Results(values: self, kind: "RLMArray", read: { Array($0) }).distinct()
    }

    // MARK: Changing

    /// Inlinable, so a client specializes it (and the loops of the two below) for
    /// its element type; the append itself is not generic.
    @inlinable
    public func append(_ element: Element) {
        guard let ref else { return items.append(element) }
        ref.appendListElement(element._larderStored)
    }

    @inlinable
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Realm's older name for `append(contentsOf:)`.
    @inlinable
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        append(contentsOf: elements)
    }

    public func insert(_ element: Element, at index: Int) {
        guard let ref else { return checkIndex(index, below: items.count + 1, { self.items.insert(element, at: index) }) }
        let txn = ref.writeTxn("List")
        checkIndex(index, below: count + 1)
        _ = ref.withElement(element._larderStored, place: .index(index), embed: {
            lar_list_insert_embedded(txn, ref.owner, ref.prop, index, $0, $1, $2)
        }) { ref.listInsert(txn, index, $0) }
            .map { ref.check($0, "Cannot insert into a list") }
    }

    public func remove(at index: Int) {
        guard let ref else { return checkIndex(index, below: items.count, { _ = self.items.remove(at: index) }) }
        let txn = ref.writeTxn("List")
        checkIndex(index, below: count)
        ref.check(ref.listRemove(txn, index), "Cannot remove from a list")
    }

    public func removeAll() {
        guard let ref else { return items.removeAll() }
        ref.check(ref.listClear(ref.writeTxn("List")), "Cannot clear a list")
    }

    /// Removes the first number elements (objects stay in the Realm).
    public func removeFirst(_ number: Int = 1) {
        checkRemovable(number)
        for _ in 0..<number { remove(at: 0) }
    }

    /// Removes the last number elements (objects stay in the Realm).
    public func removeLast(_ number: Int = 1) {
        checkRemovable(number)
        for _ in 0..<number { remove(at: count - 1) }
    }

    /// Traps, with Realm's messages, unless number elements can be removed.
    private func checkRemovable(_ number: Int) {
        if number < 0 { fatalError("Cannot pass a negative value for 'index'.") }
        let count = count
        if number > count {
            fatalError("It is not possible to remove more objects (\(number)) from a list than it already contains (\(count)).")
        }
    }

    /// Moves the element at from so that it ends at position to.
    public func move(from: Int, to: Int) {
        guard let ref else {
            checkIndex(from, below: items.count)
            checkIndex(to, below: items.count)
            return items.insert(items.remove(at: from), at: to)
        }
        let txn = ref.writeTxn("List")
        let count = count
        checkIndex(from, below: count)
        checkIndex(to, below: count)
        ref.check(ref.listMove(txn, from, to), "Cannot move a list element")
    }

    public func swapAt(_ index1: Int, _ index2: Int) {
        guard let ref else {
            checkIndex(index1, below: items.count)
            checkIndex(index2, below: items.count)
            return items.swapAt(index1, index2)
        }
        let txn = ref.writeTxn("List")
        let count = count
        checkIndex(index1, below: count)
        checkIndex(index2, below: count)
        ref.check(ref.listSwap(txn, index1, index2), "Cannot swap list elements")
    }

    /// Inserts elements, in order, before position index (the count appends).
    public func insert<C: Collection>(contentsOf elements: C, at index: Int) where C.Element == Element {
        checkIndex(index, below: count + 1)
        for (offset, element) in elements.enumerated() { insert(element, at: index + offset) }
    }

    /// Removes the elements in bounds (`0..<2`, `1...`, `...3`).
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        let bounds = bounds.relative(to: self)
        if bounds.isEmpty { return }
        checkIndex(bounds.lowerBound, below: count)
        checkIndex(bounds.upperBound - 1, below: count)
        for _ in bounds { remove(at: bounds.lowerBound) }
    }

    /// Replaces the elements in subrange with elements (of any number).
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with elements: C)
        where C.Element == Element, R.Bound == Int {
        let subrange = subrange.relative(to: self)
        removeSubrange(subrange)
        insert(contentsOf: elements, at: subrange.lowerBound)
    }

    /// Removes the elements at offsets (SwiftUI's `onDelete`).
    public func remove(atOffsets offsets: IndexSet) {
        for index in offsets.reversed() { remove(at: index) }
    }

    /// Moves the elements at offsets, in their order, to just before the element
    /// at destination (the count: to the end), as SwiftUI's `onMove` expects.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        guard let ref else {
            let order = Self.order(count: items.count, moving: offsets, to: destination)
            return items = order.map { items[$0] }
        }
        let txn = ref.writeTxn("List")
        let count = count
        _ = Self.order(count: count, moving: offsets, to: destination) // checks the offsets
        // One move per element: each goes just before the first element at or after
        // destination that stays (the end when none does), after those moved before it.
        let anchor = (destination..<count).first { !offsets.contains($0) }
        var current = Array(0..<count) // old positions, in the list's order as it changes
        for element in offsets {
            let from = current.firstIndex(of: element)!
            var to = anchor.flatMap { current.firstIndex(of: $0) } ?? count
            if from < to { to -= 1 }
            if from == to { continue }
            current.insert(current.remove(at: from), at: to)
            ref.check(ref.listMove(txn, from, to), "Cannot move a list element")
        }
    }

    /// The old positions in their order after moving offsets before destination.
    private static func order(count: Int, moving offsets: IndexSet, to destination: Int) -> [Int] {
        for offset in offsets {
            if offset < 0 { fatalError("Cannot pass a negative value for 'index'.") }
            if offset >= count { fatalError("Index \(offset) is out of bounds (must be less than \(count)).") }
        }
        if destination < 0 { fatalError("Cannot pass a negative value for 'index'.") }
        if destination > count { fatalError("Index \(destination) is out of bounds (must be less than \(count + 1)).") }
        var order = (0..<count).filter { !offsets.contains($0) }
        order.insert(contentsOf: offsets, at: destination - offsets.count(in: 0..<destination))
        return order
    }

    /// The elements at indexes, in ascending order of index; an index past the end traps.
    public func objects(at indexes: IndexSet) -> [Element] {
        checkObjectIndexes(indexes, count: count)
        return indexes.map { self[$0] }
    }

    public func replace(index: Int, object: Element) {
        self[index] = object
    }

    // MARK: Key-value coding

    /// An array of the value of key for every element; "self" gives the elements.
    public func value(forKey key: String) -> Any? {
        if key == "self" { return Array(self) }
        return map { ($0 as? Object)?.value(forKey: key) as Any }
    }

    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath == "self" { return value(forKey: keyPath) }
        return map { ($0 as? Object)?.value(forKeyPath: keyPath) as Any }
    }

    /// Sets key on every element (objects); a managed list only inside a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        if let ref, !ref.instance.isInWriteTransaction { fatalError("Cannot modify List outside of a write transaction.") }
        for element in self { (element as? Object)?.setValue(value, forKey: key) }
    }

    override func describe(depth: Int) -> String {
        let lines = IteratorSequence(makeIterator()).prefix(100).enumerated().map { index, element in
            "\t[\(index)] \(element._larderStored.displayText(depth: depth))"
        }
        return "List<\(Self.elementTypeName)> <\(count)> (\n" + lines.joined(separator: ",\n") + "\n)"
    }

    private static var elementTypeName: String {
        Element._larderTargetClass?.className() ?? "\(Element.self)"
    }

    // MARK: Plumbing

    private func checkIndex(_ index: Int, below limit: Int, _ then: () -> Void = {}) {
        if index < 0 { fatalError("Cannot pass a negative value for 'index'.") }
        if index >= limit { fatalError("Index \(index) is out of bounds (must be less than \(limit)).") }
        then()
    }

    override func storedElements() -> [_StoredValue] { map { $0._larderStored } }

    override func setUnmanaged(_ elements: [_StoredValue], keys: [String]?) {
        items = elements.map { Element._larderFrom($0) ?? Element._larderDefault() }
    }

    /// Keys of the objects of a managed list, in order, for Results over it.
    func objectKeys() -> [lar_objkey] {
        guard let ref else { return [] }
        var keys: [lar_objkey] = []
        ListIterator<Element>.readAll(ref) { keys.append($0.as.link.key) }
        return keys
    }
}

/// Iterates a list; a managed one is read `batchSize` elements per C call.
///
/// The hot path is inlinable, so a client specializes it for its element type:
/// converting an element of a `List<Int>` is a load, with no witness or metadata
/// call. The checks a read makes (the thread, an invalidated Realm, a deleted
/// owner) run once per batch, when the next one is read, as they always have.
public struct ListIterator<Element: RealmCollectionValue>: IteratorProtocol {
    /// Elements read per C call. 256 measured no faster: once the conversion is
    /// specialized, the C call's share at 64 is small.
    @usableFromInline static var batchSize: Int { 64 }

    @usableFromInline let list: List<Element>
    /// A managed list's current batch, converted; empty while the list is unmanaged.
    @usableFromInline var buffer: ContiguousArray<Element> = []
    @usableFromInline var bufferIndex = 0
    /// The list position of the element the next call returns.
    @usableFromInline var position = 0

    @usableFromInline
    init(list: List<Element>) {
        self.list = list
    }

    @inlinable
    public mutating func next() -> Element? {
        if bufferIndex < buffer.count {
            defer {
                bufferIndex &+= 1
                position &+= 1
            }
            return buffer[bufferIndex]
        }
        return nextBatch()
    }

    /// Reads the next batch of a managed list (an unmanaged one: its next element).
    @inlinable
    mutating func nextBatch() -> Element? {
        guard let ref = list.ref else {
            defer { position += 1 }
            return list.count > position ? list[position] : nil
        }
        buffer.removeAll(keepingCapacity: true)
        bufferIndex = 0
        Self.read(ref, from: position, capacity: Self.batchSize) { values in
            buffer.reserveCapacity(values.count)
            for index in values.indices { buffer.append(Element._larderRead(values[index], owner: ref.instance)) }
        }
        if buffer.isEmpty { return nil }
        bufferIndex = 1
        position &+= 1
        return buffer[0]
    }

    /// Calls body with up to capacity elements from start on; borrowed values live during the call.
    @inlinable
    static func read(_ ref: CollectionRef, from start: Int, capacity: Int,
                     _ body: (UnsafeMutableBufferPointer<lar_value>) -> Void) {
        ref.instance.serialized {
            withUnsafeTemporaryAllocation(of: lar_value.self, capacity: capacity) { values in
                let count = ref.readListBatch(from: start, into: values)
                body(UnsafeMutableBufferPointer(rebasing: values[..<count]))
            }
        }
    }

    static func readAll(_ ref: CollectionRef, _ body: (lar_value) -> Void) {
        var start = 0
        while true {
            var read = 0
            Self.read(ref, from: start, capacity: batchSize) { values in
                for value in values { body(value) }
                read = values.count
            }
            if read == 0 { return }
            start += read
        }
    }
}

extension List: _Persistable {
    public static var _larderType: lar_type { Element._larderType }
    public static var _larderIsOptional: Bool { Element._larderIsOptional }
    public static var _larderTargetClass: Object.Type? { Element._larderTargetClass }
    public static var _larderCollection: lar_collection { LAR_COLLECTION_LIST }
    public static func _larderDefault() -> List { List() }
    public static func _larderFrom(_ value: _StoredValue) -> List? { fromStored(value) }
    public static func _larderRead(_ value: lar_value) -> List { fatalError("A list is read through its owner") }
    public static func _larderManaged(realm: AnyObject, owner: AnyObject, slot: Int) -> List {
        managed(realm: realm, owner: owner, slot: slot)
    }
}

// MARK: Lists of objects

extension List: RealmCollection where Element: Object {
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        guard let ref else { fatalError("This method may only be called on RLMArray instances retrieved from an RLMRealm") }
        let table = ref.targetTable(as: Element.self)
        return Results(instance: ref.instance, table: table, source: { [self] in isInvalidated ? [] : objectKeys() },
                       sourceIn: { [self] in rebound(to: $0).map { list in { list.objectKeys() } } })
            .sorted(by: descriptors)
    }

    public func sorted<Value: _Persistable>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: Element.schema.propertyName(of: keyPath), ascending: ascending)
    }
}

// MARK: Aggregates

extension List: ObjectAggregating where Element: Object {
    /// A managed list's objects by key, without accessors; an unmanaged one's in memory.
    var aggregateSource: AggregateSource {
        guard let ref else { return ObjectAggregate.source(of: items) }
        return .keys(ref.instance, ref.targetTable(as: Element.self), objectKeys())
    }
}

extension List where Element: MinMaxType {
    /// The smallest element, nil elements skipped; nil when there is none.
    public func min() -> Element? { ValueAggregate.run(.min, Array(self), as: Element.self) }
    /// The largest element, nil elements skipped; nil when there is none.
    public func max() -> Element? { ValueAggregate.run(.max, Array(self), as: Element.self) }
}

extension List where Element: AddableType {
    /// The sum of the elements, nil elements skipped; zero for none.
    public func sum() -> Element { ValueAggregate.run(.sum, Array(self), as: Element.self)! }
    /// The mean of the elements, nil elements skipped; nil when there is none.
    public func average<T: AddableType>() -> T? { ValueAggregate.run(.average, Array(self), as: T.self) }
}
