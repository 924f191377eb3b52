import CLarder
import Foundation

/// The objects of a class, as in Realm: lazy and live. Nothing is read until it
/// is used, and every use sees the Realm's current version. Iteration streams
/// from the database, so memory stays flat however many objects there are.
public final class Results<Element: Object>: RealmCollection {
    let instance: RealmInstance
    let table: ManagedClass
    /// Sorts and distincts, applied in the order they were asked for (Realm's descriptor ordering).
    let steps: [OrderingStep]
    /// Object keys in result order, for positional access; rebuilt when objects
    /// of the class may have come or gone, or a sort key was written.
    private var snapshot: [lar_objkey] = []
    private var snapshotStamp: SnapshotStamp?
    /// How many times the snapshot was built: tests check writes do not rebuild it.
    private(set) var snapshotBuilds = 0

    /// The object keys of the collection these results view (a list), read
    /// afresh on each use; nil for all the objects of the class.
    let source: (() -> [lar_objkey])?

    convenience init(instance: RealmInstance, table: ManagedClass, sort: [SortDescriptor], source: (() -> [lar_objkey])? = nil) {
        self.init(instance: instance, table: table, steps: sort.isEmpty ? [] : [.sort(sort)], source: source)
    }

    private init(instance: RealmInstance, table: ManagedClass, steps: [OrderingStep], source: (() -> [lar_objkey])?) {
        self.instance = instance
        self.table = table
        self.steps = steps
        self.source = source
    }

    /// A sort on some properties, or the first object of each combination of their values.
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

    /// Whether the results stream over the whole table in key order.
    var isWholeTable: Bool { steps.isEmpty && source == nil }

    public var realm: Realm? { Realm(instance: instance) }
    public var isInvalidated: Bool { false }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// O(1) when unsorted: the count comes from the table.
    public var count: Int {
        isWholeTable ? instance.count(table) : keys().count
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        let keys = keys()
        if position < 0 || position >= keys.count {
            fatalError("Index \(position) is out of bounds (must be less than \(keys.count)).")
        }
        return unsafeDowncast(instance.accessor(table, key: keys[position]), to: Element.self)
    }

    public var first: Element? {
        if isWholeTable {
            var iterator = makeIterator()
            return iterator.next()
        }
        return keys().first.map { unsafeDowncast(instance.accessor(table, key: $0), to: Element.self) }
    }

    public var last: Element? {
        keys().last.map { unsafeDowncast(instance.accessor(table, key: $0), to: Element.self) }
    }

    public func makeIterator() -> ResultsIterator<Element> {
        if isWholeTable { return ResultsIterator(streaming: instance, table: table) }
        return ResultsIterator(keys: keys(), instance: instance, table: table)
    }

    /// The position of object in these results, or nil.
    public func index(of object: Element) -> Int? {
        guard object.core.realm === instance, object.core.table.id == table.id else { return nil }
        return keys().firstIndex(of: object.core.key)
    }

    /// The objects at indexes, in ascending order of index; an index past the end traps.
    public func objects(at indexes: IndexSet) -> [Element] {
        let keys = keys()
        checkObjectIndexes(indexes, count: keys.count)
        return indexes.map { unsafeDowncast(instance.accessor(table, key: keys[$0]), to: Element.self) }
    }

    // MARK: Sorting

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted on the persisted property keyPath reads, as `sorted(by: \.age)`.
    public func sorted<Value: _Persistable>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: table.schema.propertyName(of: keyPath), ascending: ascending)
    }

    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        let added = Array(descriptors)
        checkKeyPaths(added.map(\.keyPath))
        if added.isEmpty { return Results(instance: instance, table: table, steps: steps, source: source) }
        var steps = steps
        // A sort after a sort: the new one decides first, the earlier one breaks its ties.
        if case .sort(let earlier) = steps.last {
            steps[steps.count - 1] = .sort(added + earlier)
        } else {
            steps.append(.sort(added))
        }
        return Results(instance: instance, table: table, steps: steps, source: source)
    }

    // MARK: Distinct

    /// The first object, in the current order, of each combination of the values
    /// of the properties keyPaths name; later sorts apply to what is left.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        let keyPaths = Array(keyPaths)
        checkKeyPaths(keyPaths)
        if keyPaths.isEmpty { return Results(instance: instance, table: table, steps: steps, source: source) }
        return Results(instance: instance, table: table, steps: steps + [.distinct(keyPaths)], source: source)
    }

    /// Traps, with realm-core's message, when a key path names no property of the class.
    private func checkKeyPaths(_ keyPaths: [String]) {
        for keyPath in keyPaths where table.schema.slotByName[keyPath] == nil {
            fatalError("Cannot sort on key path '\(keyPath)': property '\(table.schema.name).\(keyPath)' does not exist.")
        }
    }

    // MARK: Key-value coding

    /// The value of property key for every object, in order, as an array; "self" gives the objects.
    public func value(forKey key: String) -> Any? {
        if key == "self" { return Array(self) }
        return map { $0.value(forKey: key) }
    }

    /// The same for a key path through links ("favoriteToy.name").
    public func value(forKeyPath keyPath: String) -> Any? {
        if !keyPath.contains(".") { return value(forKey: keyPath) }
        return map { $0.value(forKeyPath: keyPath) }
    }

    /// Sets property key on every object; only inside a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        if !instance.isInWriteTransaction { fatalError("Cannot modify Results outside of a write transaction.") }
        for objectKey in keys() { instance.accessor(table, key: objectKey).setValue(value, forKey: key) }
    }

    public var description: String {
        let items = self.prefix(100).map { "\t[\($0.core.key)] \($0.description.replacingOccurrences(of: "\n", with: "\n\t"))" }
        return "Results<\(table.schema.name)> <\(count)> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Snapshots

    /// The keys in result order at the current version.
    func keys() -> [lar_objkey] {
        _ = instance.currentTxn() // so that the stamp below is the current transaction's
        if let source { return order(source()) }
        let stamp = currentStamp()
        if snapshotStamp == stamp { return snapshot }
        var keys: [lar_objkey] = []
        let walker = ResultsWalker(instance: instance, table: table, keys: nil)
        while let key = walker.nextKey() { keys.append(key) }
        keys = order(keys)
        snapshot = keys
        snapshotStamp = stamp
        snapshotBuilds += 1
        return keys
    }

    /// What the snapshot depends on: the transaction, the class's membership and the sort keys' values.
    private struct SnapshotStamp: Equatable {
        let membershipEpoch: UInt64
        let classMembership: UInt64
        let sortKeyWrites: UInt64
    }

    private func currentStamp() -> SnapshotStamp {
        SnapshotStamp(membershipEpoch: instance.state.membershipEpoch, classMembership: table.changes.membership,
                      sortKeyWrites: orderingSlots.isEmpty ? 0 : table.changes.writes(to: orderingSlots))
    }

    /// The slots every sort and distinct reads.
    private var orderingSlots: [Int] {
        steps.flatMap(\.keyPaths).map { table.schema.slotByName[$0]! }
    }

    /// keys after every sort and distinct, in order.
    private func order(_ keys: [lar_objkey]) -> [lar_objkey] {
        var keys = keys
        for step in steps {
            switch step {
            case .sort(let descriptors): keys = sort(keys, by: descriptors)
            case .distinct(let keyPaths): keys = distinct(keys, on: keyPaths)
            }
        }
        return keys
    }

    /// The values of the properties keyPaths name, for each key.
    private func values(of keys: [lar_objkey], _ keyPaths: [String]) -> [(key: lar_objkey, values: [_StoredValue])] {
        let slots = keyPaths.map { table.schema.slotByName[$0]! }
        let core = ObjectCore()
        return keys.map { key in
            core.bind(to: instance, table: table, key: key)
            return (key, slots.map { instance.readStored(core, slot: $0) })
        }
    }

    private func sort(_ keys: [lar_objkey], by descriptors: [SortDescriptor]) -> [lar_objkey] {
        values(of: keys, descriptors.map(\.keyPath)).sorted { a, b in
            for (index, descriptor) in descriptors.enumerated() where a.values[index] != b.values[index] {
                let before = _StoredValue.ascending(a.values[index], b.values[index])
                return descriptor.ascending ? before : !before
            }
            return a.key < b.key
        }.map(\.key)
    }

    private func distinct(_ keys: [lar_objkey], on keyPaths: [String]) -> [lar_objkey] {
        var seen = Set<[_StoredValue]>()
        return values(of: keys, keyPaths).filter { seen.insert($0.values).inserted }.map(\.key)
    }
}

/// Walks results over the objects there were when the walk began, as Realm's
/// for-in walks a snapshot. Unsorted results stream from the table: when the loop
/// body writes or refreshes, the walk resumes after the last object in the new
/// version, and stops before the first object this Realm created since it began.
public struct ResultsIterator<Element: Object>: IteratorProtocol {
    @usableFromInline let walker: ResultsWalker

    init(streaming instance: RealmInstance, table: ManagedClass) {
        walker = ResultsWalker(instance: instance, table: table, keys: nil)
    }

    init(keys: [lar_objkey], instance: RealmInstance, table: ManagedClass) {
        walker = ResultsWalker(instance: instance, table: table, keys: keys)
    }

    @inlinable
    public mutating func next() -> Element? {
        walker.step().map { unsafeDowncast($0, to: Element.self) }
    }

    mutating func nextKey() -> lar_objkey? {
        walker.nextKey()
    }
}

/// The non-generic work of `ResultsIterator`, so it compiles once, in this module.
@usableFromInline
final class ResultsWalker {
    private let instance: RealmInstance
    private let table: ManagedClass
    private let keys: [lar_objkey]?
    private var position = 0
    /// The object handed out last; reused when the caller kept no reference to it.
    private var current: Object?
    private var handle: OpaquePointer?
    private var version: UInt64 = .max
    private var lastKey: lar_objkey = 0
    private var done = false

    init(instance: RealmInstance, table: ManagedClass, keys: [lar_objkey]?) {
        self.instance = instance
        self.table = table
        self.keys = keys
    }

    /// Where a streamed walk ends; nil until it starts.
    private var end: WalkEnd?

    deinit {
        if let handle { lar_iter_close(handle) }
        if let end { table.changes.endWalk(end) }
    }

    /// The next object: the previous accessor rebound when nobody else holds it.
    @usableFromInline
    func step() -> Object? {
        instance.verifyThread()
        guard let key = keys == nil ? nextStreamed() : nextKey() else {
            current = nil
            return nil
        }
        if current != nil && isKnownUniquelyReferenced(&current!) && !instance.isInvalidated(current!.core) {
            current!.core.key = key
        } else {
            current = instance.accessor(table, key: key)
        }
        return current
    }

    func nextKey() -> lar_objkey? {
        guard let keys else { return nextStreamed() }
        defer { position += 1 }
        return position < keys.count ? keys[position] : nil
    }

    /// Steps the C iterator, decoding the row straight into the class's read cache.
    private func nextStreamed() -> lar_objkey? {
        if done { return nil }
        // Every end of a transaction bumps the version, so an iterator of this
        // version still has its transaction.
        if handle == nil || version != instance.version {
            if let handle { lar_iter_close(handle) }
            handle = instance.openIterator(table, from: lastKey + 1) // begins a read transaction if none
            version = instance.version
            if end == nil { end = table.changes.beginWalk() }
        }
        var obj = lar_obj()
        let rc = lar_iter_next_all(handle, &obj, table.values, table.storedCount)
        if rc == LAR_ENOTFOUND {
            finish()
            return nil
        }
        if rc == LAR_OK, let endKey = end?.key, obj.key >= endKey {
            table.cachedVersion = .max // the step decoded a row the cache does not name
            finish()
            return nil
        }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot iterate objects") }
        lastKey = obj.key
        table.didDecode(key: obj.key, version: instance.cacheStamp)
        return obj.key
    }

    private func finish() {
        done = true
        if let end { table.changes.endWalk(end) }
        end = nil
    }
}
