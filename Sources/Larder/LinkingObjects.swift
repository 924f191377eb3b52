import CLarder
import Foundation

/// The objects whose link or list property points to an object, as in Realm:
///
///     class Dog: Object {
///         @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///     }
///
/// Read-only and live: computed from the C core's backlink index on each use.
/// Empty while the object is unmanaged.
public struct LinkingObjects<Element: Object>: RealmCollection {
    /// The property of Element that links here.
    public let propertyName: String
    private let target: BacklinkTarget?

    /// The older form, for a `let` property.
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        target = nil
    }

    init(propertyName: String, owner core: ObjectCore) {
        self.propertyName = propertyName
        target = core.realm.map { BacklinkTarget(instance: $0, table: core.table, key: core.key, stamp: core.stamp) }
    }

    /// The same linking objects in another instance of the file; nil when the object linked to is gone there.
    func rebound(to instance: RealmInstance) -> LinkingObjects? {
        guard let target else { return self }
        if target.instance === instance { return self }
        guard let owner = instance.counterpart(of: target.ownerTable, key: target.obj.key, stamp: target.stamp) else {
            return nil
        }
        return LinkingObjects(propertyName: propertyName, owner: owner.core)
    }

    public var realm: Realm? { target.map { Realm(instance: $0.instance) } }

    /// The object linked to, for observers; nil while unmanaged.
    var observedTarget: (instance: RealmInstance, type: Object.Type, obj: lar_obj)? {
        target.map { ($0.instance, $0.ownerType, $0.obj) }
    }

    /// True once the object linked to was deleted or its Realm invalidated.
    public var isInvalidated: Bool {
        guard let target else { return false }
        return target.instance.serialized {
            var exists: Int32 = 0
            lar_obj_exists(target.instance.currentTxn(), target.obj, &exists)
            return exists == 0 || target.generation != target.instance.generation
        }
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public var count: Int {
        guard let target else { return 0 }
        return target.instance.serialized {
            let (cls, prop) = origin(target)
            var count: UInt64 = 0
            let rc = lar_backlinks_count(target.readTxn(), target.obj, cls, prop, &count)
            if rc != LAR_OK { target.fail(rc) }
            return Int(count)
        }
    }

    public subscript(position: Int) -> Element {
        let keys = objectKeys()
        if position < 0 { fatalError("Cannot pass a negative value for 'index'.") }
        if position >= keys.count { fatalError("Index \(position) is out of bounds (must be less than \(keys.count)).") }
        return accessor(keys[position])
    }

    public var first: Element? { objectKeys().first.map(accessor) }
    public var last: Element? { objectKeys().last.map(accessor) }

    public func makeIterator() -> IndexingIterator<[Element]> {
        objectKeys().map(accessor).makeIterator()
    }

    public func index(of object: Element) -> Int? {
        guard let target, object.core.realm === target.instance else { return nil }
        return objectKeys().firstIndex(of: object.core.key)
    }

    /// The objects at indexes, in ascending order of index; an index past the end traps.
    public func objects(at indexes: IndexSet) -> [Element] {
        let keys = objectKeys()
        checkObjectIndexes(indexes, count: keys.count)
        return indexes.map { accessor(keys[$0]) }
    }

    // MARK: Sorting and key-value coding

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        guard let target else { fatalError("Linking objects of an unmanaged object cannot be sorted") }
        let table = target.instance.table(for: Element.self)
        return Results(instance: target.instance, table: table, source: { isInvalidated ? [] : objectKeys() },
                       sourceIn: { rebound(to: $0).map { linking in { linking.objectKeys() } } }).sorted(by: descriptors)
    }

    public func value(forKey key: String) -> Any? {
        if key == "self" { return Array(self) }
        return map { $0.value(forKey: key) }
    }

    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath == "self" { return value(forKey: keyPath) }
        return map { $0.value(forKeyPath: keyPath) }
    }

    public func setValue(_ value: Any?, forKey key: String) {
        if let target, !target.instance.isInWriteTransaction {
            fatalError("Cannot modify LinkingObjects outside of a write transaction.")
        }
        for object in self { object.setValue(value, forKey: key) }
    }

    public var description: String {
        let items = prefix(100).map { "\t[\($0.core.key)] \($0.description.replacingOccurrences(of: "\n", with: "\n\t"))" }
        return "LinkingObjects<\(Element.className())> <\(count)> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Plumbing

    /// The origin class and the stored index of its property that links here.
    private func origin(_ target: BacklinkTarget) -> (lar_class, UInt32) {
        let table = target.instance.table(for: Element.self)
        guard let slot = table.schema.slotByName[propertyName] else {
            fatalError("Property '\(table.schema.name).\(propertyName)' declared as origin of linking objects property " +
                       "does not exist")
        }
        return (table.id, UInt32(table.propertyIndex[slot]))
    }

    /// The linking objects' keys, in key order, each once.
    func objectKeys() -> [lar_objkey] {
        guard let target else { return [] }
        return target.instance.serialized { keys(of: target) }
    }

    private func keys(of target: BacklinkTarget) -> [lar_objkey] {
        let (cls, prop) = origin(target)
        let txn = target.readTxn()
        var keys: [lar_objkey] = []
        var start: lar_objkey = 0
        withUnsafeTemporaryAllocation(of: lar_obj.self, capacity: 64) { buffer in
            while true {
                var count = 0
                let rc = lar_backlinks_list(txn, target.obj, cls, prop, start, buffer.baseAddress!, 64, &count)
                if rc == LAR_ENOTFOUND { return }
                if rc != LAR_OK { target.fail(rc) }
                for index in 0..<count { keys.append(buffer[index].key) }
                start = buffer[count - 1].key + 1
            }
        }
        return keys
    }

    private func accessor(_ key: lar_objkey) -> Element {
        let instance = target!.instance
        return unsafeDowncast(instance.accessor(instance.table(for: Element.self), key: key), to: Element.self)
    }
}

extension LinkingObjects: ObjectAggregating {
    /// The linking objects by key, without accessors.
    var aggregateSource: AggregateSource {
        guard let target else { return .objects([]) }
        return .keys(target.instance, target.instance.table(for: Element.self), objectKeys())
    }
}

/// The object that linking objects point to, as it was when they were taken.
private struct BacklinkTarget {
    let instance: RealmInstance
    let obj: lar_obj
    let generation: UInt64
    let ownerTable: ManagedClass
    var ownerType: Object.Type { ownerTable.schema.type }
    let stamp: UInt64

    init(instance: RealmInstance, table: ManagedClass, key: lar_objkey, stamp: UInt64) {
        self.instance = instance
        obj = lar_obj(cls: table.id, key: key)
        generation = instance.generation
        ownerTable = table
        self.stamp = stamp
    }

    func readTxn() -> OpaquePointer {
        instance.verifyThread()
        if generation != instance.generation { fatalError("Object has been deleted or invalidated.") }
        return instance.currentTxn()
    }

    func fail(_ rc: Int32) -> Never {
        if rc == LAR_EDELETED { fatalError("Object has been deleted or invalidated.") }
        fatalCoreError(rc, "Cannot read linking objects")
    }
}

extension LinkingObjects: _Persistable {
    public static var _larderType: lar_type { LAR_TYPE_LINKING_OBJECTS }
    public static var _larderIsComputed: Bool { true }
    public static var _larderTargetClass: Object.Type? { Element.self }
    public static func _larderComputed(_ stored: _StoredValue, owner: AnyObject) -> LinkingObjects {
        guard case .string(let name) = stored else { fatalError("A LinkingObjects property needs its originProperty") }
        return LinkingObjects(propertyName: name, owner: unsafeDowncast(owner, to: ObjectCore.self))
    }
    public static func _larderDefault() -> LinkingObjects { LinkingObjects(fromType: Element.self, property: "") }
    public static func _larderFrom(_ value: _StoredValue) -> LinkingObjects? { nil }
    public static func _larderRead(_ value: lar_value) -> LinkingObjects { fatalError("LinkingObjects are computed") }
    public var _larderStored: _StoredValue { .string(propertyName) }
}
