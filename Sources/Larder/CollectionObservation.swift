import CLarder
import Foundation

// Collection notifications, as in Realm: `observe(keyPaths:on:_:)` on Results,
// List, MutableSet, LinkingObjects, AnyRealmCollection and Map. The callback gets
// `.initial` first, then `.update` after each commit that changed the collection
// (see RealmCollectionChange). keyPaths choose which property changes of element
// objects count as modifications: nil, any of their own properties and of the
// objects they link to, four levels deep as in Realm (DeepChangeChecker); `[]`,
// none; names, those properties and paths through links ("owner.name").
//
// Delivery: without a queue, on this thread when its Realm refreshes (`.initial`
// included, at the first refresh or write after `observe`); on a queue, there,
// with the collection read in a Realm confined to that queue, soon after any
// commit of any thread or process. README, "Notifications", says more.

extension Results {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        instance.checkCanObserve(inWriteMessage: "Cannot create asynchronous query while in a write transaction")
        if valueSource != nil || source != nil { return observeDerived(keyPaths: keyPaths, at: place, block) }
        let queryText = observedQueryText()!
        let paths = ElementKeyPaths(keyPaths, schema: table.schema)
        let steps = self.steps, observed = table
        return startObserving(instance, at: place, block) { instance in
            let table = instance.table(like: observed)
            let results = Results(instance: instance, table: table, steps: steps, source: nil, sourceIn: nil,
                                  filters: [QueryHandle.parse(queryText, env: instance.environment.handle, cls: table.id)])
            return (results, ResultsTracker(instance: instance, table: table, queryText: queryText, paths: paths))
        } local: {
            (self, ResultsTracker(instance: instance, table: table, queryText: queryText, paths: paths))
        }
    }

    /// The whole result as query text (filters, then sorts and distincts as suffixes in
    /// order), for the core to recompute; nil for results over a collection or of values.
    func observedQueryText() -> String? {
        guard source == nil, valueSource == nil, objectTable != nil else { return nil }
        var text = filters.isEmpty ? "TRUEPREDICATE"
            : filters.map { "(\($0.description(values: true)))" }.joined(separator: " AND ")
        for step in steps {
            switch step {
            case .sort(let descriptors):
                text += " SORT(" + descriptors.map { "\($0.keyPath) \($0.ascending ? "ASC" : "DESC")" }
                    .joined(separator: ", ") + ")"
            case .distinct(let keyPaths):
                text += " DISTINCT(" + keyPaths.joined(separator: ", ") + ")"
            }
        }
        return text
    }
}

extension List {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<List>) -> Void) -> NotificationToken {
        observeElements(self, keyPaths: keyPaths, at: place, block)
    }
}

extension MutableSet {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        observeElements(self, keyPaths: keyPaths, at: place, block)
    }
}

/// Observes a list or set (collection, which is self of the caller).
private func observeElements<C: _LarderCollection & TrackedCollection>(
    _ collection: C, keyPaths: [String]?, at place: ObservationPlace?,
    _ block: @escaping (RealmCollectionChange<C>) -> Void
) -> NotificationToken {
    let ref = collection.observableRef()
    let paths = ElementKeyPaths(keyPaths, elementType: type(of: collection).elementType._larderTargetClass)
    func tracking(_ collection: C) -> (C, ChangeTracker) { (collection, collection.changeTracker(paths: paths)) }
    return startObserving(ref.instance, at: place, block) { instance in
        rebuilt(ref, in: instance).map(tracking)
    } local: {
        tracking(collection)
    }
}

extension LinkingObjects {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<LinkingObjects>) -> Void) -> NotificationToken {
        guard let target = observedTarget else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        target.instance.checkCanObserve(inWriteMessage: "Cannot create asynchronous query while in a write transaction")
        let paths = ElementKeyPaths(keyPaths, elementType: Element.self)
        let name = propertyName, ownerType = target.type, ownerKey = target.obj.key
        func tracking(_ objects: LinkingObjects, _ instance: RealmInstance) -> (LinkingObjects, ChangeTracker) {
            (objects, DerivedObjectsTracker(instance: instance, table: instance.table(for: Element.self),
                                            paths: paths) { objects.isInvalidated ? [] : objects.objectKeys() })
        }
        return startObserving(target.instance, at: place, block) { instance in
            guard let owner = instance.object(ownerType, key: ownerKey) else { return nil }
            return tracking(LinkingObjects(propertyName: name, owner: owner.core), instance)
        } local: {
            tracking(self, target.instance)
        }
    }
}

extension AnyRealmCollection {
    /// Observes the wrapped collection; the callback sees it wrapped.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<AnyRealmCollection>) -> Void) -> NotificationToken {
        guard let observable = base as? any _ObservableCollection else {
            fatalError("This collection does not support change notifications")
        }
        return observable._observeAny(keyPaths: keyPaths, at: place) { change in
            block(change.map { AnyRealmCollection(($0 as! any RealmCollection<Element>)) })
        }
    }
}

// MARK: Key paths of the model

extension RealmCollection where Element: Object {
    /// The same with key paths of the model: `dogs.observe(keyPaths: [\Dog.name]) { ... }`.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        let names = keyPaths.map { Element.schema.propertyName(ofAny: $0, root: Element.self, for: "observe(keyPaths:)") }
        guard let observable = self as? any _ObservableCollection else {
            fatalError("This collection does not support change notifications")
        }
        return observable._observeAny(keyPaths: names, at: queue.map { .queue($0) }) { change in
            block(change.map { $0 as! Self })
        }
    }
}

/// The collections that can be observed, behind one type (for AnyRealmCollection
/// and the key path overloads).
protocol _ObservableCollection {
    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
}

extension _ObservableCollection {
    func _observeAny(keyPaths: [String]?, at place: ObservationPlace?,
                     _ block: @escaping (RealmCollectionChange<Any>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: place) { change in block(change.map { $0 as Any }) }
    }
}

extension RealmCollectionChange {
    /// The same change, with the collection transformed.
    func map<Other>(_ transform: (CollectionType) -> Other) -> RealmCollectionChange<Other> {
        switch self {
        case .initial(let collection): return .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            return .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}

extension Results: _ObservableCollection {}
extension List: _ObservableCollection {}
extension MutableSet: _ObservableCollection {}
extension LinkingObjects: _ObservableCollection {}
extension AnyRealmCollection: _ObservableCollection {}

// MARK: Plumbing

extension _LarderCollection {
    /// The ref of a managed collection that may be observed; traps with Realm's messages otherwise.
    func observableRef() -> CollectionRef {
        guard let ref else { fatalError("Only collections which are managed by a Realm support change notifications") }
        ref.instance.checkCanObserve(inWriteMessage: "Cannot create asynchronous query while in a write transaction")
        return ref
    }
}

/// The collection of ref's owner's property, read in instance (another instance
/// on the same file); nil when the owner is gone.
func rebuilt<C: _LarderCollection>(_ ref: CollectionRef, in instance: RealmInstance) -> C? {
    guard let owner = instance.object(like: ref.ownerTable, key: ref.owner.key) else { return nil }
    if ref.nested != 0 { return C.nested(like: ref, in: instance) }
    return C.managed(realm: instance, owner: owner.core, slot: ref.slot)
}

/// Registers a collection observer: on this thread with local(), or at a queue or
/// an actor, where make() rebuilds the collection and its tracker in the
/// observation's instance.
func startObserving<C>(_ instance: RealmInstance, at place: ObservationPlace?,
                       _ block: @escaping (RealmCollectionChange<C>) -> Void,
                       make: @escaping (RealmInstance) -> (C, ChangeTracker)?,
                       local: () -> (C, ChangeTracker)) -> NotificationToken {
    let token = NotificationToken()
    guard let place else {
        let (collection, tracker) = local()
        instance.notifier.add(CollectionObserver(token: token, collection: collection, tracker: tracker, block: block))
        return token
    }
    ConfinedObservation.start(at: place, token: token, configuration: instance.configuration,
                              environment: instance.environment) { placeInstance in
        guard let (collection, tracker) = make(placeInstance) else { return }
        placeInstance.notifier.add(CollectionObserver(token: token, collection: collection, tracker: tracker,
                                                      block: block))
    }
    return token
}

/// What `Map` conforms to for `RealmMapChange`: a Realm collection keyed by strings.
public protocol RealmKeyedCollection<Key, Value> {
    associatedtype Key: _MapKey
    associatedtype Value: RealmCollectionValue
}

extension Map: RealmKeyedCollection {
    /// Calls block with `.initial`, then after each commit that changed the map,
    /// `.update` with the keys removed, added, and whose values changed (a value
    /// object modified as keyPaths say counts, as for other collections).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        let ref = observableRef()
        let paths = ElementKeyPaths(keyPaths, elementType: Value._larderTargetClass)
        let token = NotificationToken()
        func observer(_ map: Map) -> MapObserver<Key, Value> {
            MapObserver(token: token, map: map, reader: MapChangeReader(map, paths: paths), block: block)
        }
        if let place {
            ConfinedObservation.start(at: place, token: token, configuration: ref.instance.configuration,
                                      environment: ref.instance.environment) { instance in
                guard let map: Map = rebuilt(ref, in: instance) else { return }
                instance.notifier.add(observer(map))
            }
        } else {
            ref.instance.notifier.add(observer(self))
        }
        return token
    }
}

/// A map's observer: what its reader finds changed, by key.
final class MapObserver<Key: _MapKey, Value: RealmCollectionValue>: ThreadObserver {
    private let map: Map<Key, Value>
    private let reader: MapChangeReader
    private let block: (RealmMapChange<Map<Key, Value>>) -> Void

    init(token: NotificationToken, map: Map<Key, Value>, reader: MapChangeReader,
         block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) {
        self.map = map
        self.reader = reader
        self.block = block
        super.init(token: token, needsInitial: true)
    }

    override func capture() { reader.capture() }

    override func deliverInitial() {
        capture()
        block(.initial(map))
    }

    override func deliverChanges(local: Bool) {
        let changes = reader.changes()
        if changes.isEmpty { return }
        block(.update(map, deletions: changes.deletions.map(Key.init(_larderKey:)),
                      insertions: changes.insertions.map(Key.init(_larderKey:)),
                      modifications: changes.modifications.map(Key.init(_larderKey:))))
    }
}

/// A map's changes by key since the capture: the C core compares the map at the
/// two snapshots (`lar_map_changeset`); a nested dictionary's two states are
/// compared here. Value objects modified as the key paths say (without them: as
/// `ElementKeyPaths` follows links) are modifications too.
final class MapChangeReader {
    struct Changes {
        var deletions: [String] = [], insertions: [String] = [], modifications: [String] = []
        /// The keys at the capture and now, in key order.
        var oldKeys: [String] = [], newKeys: [String] = []
        var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }
    }

    private let map: _LarderCollection
    private let elementTable: ManagedClass?
    private let paths: ElementKeyPaths
    private var version: UInt64 = 0
    private var keys: [String] = []
    /// A nested dictionary's contents at the capture.
    private var nested: NestedState?

    init<Key, Value>(_ map: Map<Key, Value>, paths: ElementKeyPaths) {
        self.map = map
        elementTable = Value._larderTargetClass.map(map.ref!.instance.table)
        self.paths = paths
    }

    private var ref: CollectionRef { map.ref! }
    var instance: RealmInstance { ref.instance }

    func capture() {
        version = ref.instance.fileVersion()
        let gone = ref.isInvalidated
        keys = gone ? [] : map.storedKeys() ?? []
        if ref.nested != 0 { nested = gone ? nil : NestedState(map) }
    }

    func changes() -> Changes {
        let instance = ref.instance, oldKeys = keys, oldNested = nested
        let log = instance.notifier.changes(since: version)
        let old = instance.notifier.transaction(at: version)
        capture()
        var changes = Changes(oldKeys: oldKeys, newKeys: keys)
        if ref.nested != 0 {
            if let log, !NestedState.propertyChanged(ref, log) { return changes }
            (changes.deletions, changes.insertions, changes.modifications) =
                NestedState.keyChanges(old: oldNested, oldKeys: oldKeys, new: nested, newKeys: keys)
        } else if let old {
            var result: OpaquePointer?
            let rc = lar_map_changeset(old, instance.currentTxn(), paths.paths == nil ? log : nil, ref.owner, ref.prop,
                                       &result)
            if rc == LAR_EDELETED {
                changes.deletions = oldKeys
            } else if rc != LAR_OK {
                fatalCoreError(rc, "Cannot compute the changes of a map")
            } else {
                defer { lar_map_changes_free(result) }
                changes.deletions = Self.keys(result!, LAR_CHANGESET_DELETIONS)
                changes.insertions = Self.keys(result!, LAR_CHANGESET_INSERTIONS)
                changes.modifications = Self.keys(result!, LAR_CHANGESET_MODIFICATIONS)
            }
        } else {
            // No snapshot of the old version (the Realm was invalidated): every key as changed.
            (changes.deletions, changes.insertions) = (oldKeys, keys)
        }
        if let elementTable, let log, paths.mayFindMore(in: elementTable, log: log, instance: instance) {
            changes.modifications = Array(Set(changes.modifications).union(
                modifiedObjectKeys(elementTable, log, instance, skipping: Set(changes.insertions)))).sorted()
        }
        return changes
    }

    /// The keys whose object value was modified as the key paths say.
    private func modifiedObjectKeys(_ table: ManagedClass, _ log: OpaquePointer, _ instance: RealmInstance,
                                    skipping inserted: Set<String>) -> [String] {
        if ref.isInvalidated { return [] }
        return zip(map.storedKeys() ?? [], map.storedElements()).compactMap { key, value in
            guard !inserted.contains(key), case .object(let object) = value, let objectTable = object.core.table,
                  objectTable === table || objectTable.id == table.id else { return nil }
            return paths.isModified(object.core.key, table, log: log, instance: instance) ? key : nil
        }
    }

    private static func keys(_ changes: OpaquePointer, _ part: lar_changeset_part) -> [String] {
        var keys: UnsafePointer<lar_string>?
        var count = 0
        guard lar_map_changes_get(changes, part, &keys, &count) == LAR_OK, let keys else { return [] }
        return (0..<count).map { String(larderString: keys[$0]) }
    }
}

/// A map's changes as positions in key order, for results of its values.
final class MapPositionTracker: ChangeTracker {
    private let reader: MapChangeReader

    init(_ reader: MapChangeReader) {
        self.reader = reader
        super.init(instance: reader.instance)
    }

    override func capture() {
        reader.capture()
        version = instance.fileVersion()
    }

    override func changes() -> IndexChanges {
        let changes = reader.changes()
        version = instance.fileVersion()
        func positions(_ keys: [String], in all: [String]) -> [Int] {
            let chosen = Set(keys)
            return all.indices.filter { chosen.contains(all[$0]) }
        }
        return IndexChanges(deletions: positions(changes.deletions, in: changes.oldKeys),
                            insertions: positions(changes.insertions, in: changes.newKeys),
                            modifications: positions(changes.modifications, in: changes.oldKeys))
    }
}

// MARK: Results derived from a collection

extension Results {
    /// Observes results over a list, set, map or linking objects (see Impl/DerivedResultsTracker.swift).
    fileprivate func observeDerived(keyPaths: [String]?, at place: ObservationPlace?,
                                    _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        let paths = ElementKeyPaths(keyPaths, elementType: Element._larderTargetClass)
        func tracking(_ results: Results) -> (Results, ChangeTracker) { (results, results.derivedTracker(paths)) }
        return startObserving(instance, at: place, block) { self.rebound(to: $0).map(tracking) } local: { tracking(self) }
    }

    private func derivedTracker(_ paths: ElementKeyPaths) -> ChangeTracker {
        guard let valueSource else {
            return DerivedObjectsTracker(instance: instance, table: table, paths: paths) { [self] in keys() }
        }
        let source = (valueSource.collection as! any TrackedCollection).changeTracker(paths: paths)
        return DerivedValuesTracker(instance: instance, source: source) { [self] in sourcePositions() }
    }

    /// For results of values: the position in the collection of each element, in result
    /// order. Sorts are stable and distinct keeps the first, so equal elements keep
    /// the collection's order: the k-th of them here is the k-th there.
    private func sourcePositions() -> [Int] {
        guard let valueSource, !isInvalidated else { return [] }
        var positions: [StoredIdentity: [Int]] = [:]
        for (index, element) in valueSource.elements().enumerated() {
            positions[StoredIdentity(element._larderStored), default: []].append(index)
        }
        var taken: [StoredIdentity: Int] = [:]
        return values().map { value in
            let identity = StoredIdentity(value._larderStored)
            let occurrence = taken[identity, default: 0]
            taken[identity] = occurrence + 1
            return positions[identity]![occurrence]
        }
    }
}

/// The managed collections whose own changes a tracker follows (for themselves,
/// and for results derived from them).
protocol TrackedCollection {
    func changeTracker(paths: ElementKeyPaths) -> ChangeTracker
}

extension List: TrackedCollection {
    func changeTracker(paths: ElementKeyPaths) -> ChangeTracker {
        let ref = ref!
        if ref.nested != 0 { return NestedListTracker(ref: ref, list: self as! List<AnyRealmValue>) }
        return PropertyCollectionTracker(.list, ref: ref, elementTable: Element._larderTargetClass.map(ref.instance.table),
                                         paths: paths, keys: { [self] in objectKeys() }, count: { [self] in count })
    }
}

extension MutableSet: TrackedCollection {
    func changeTracker(paths: ElementKeyPaths) -> ChangeTracker {
        let ref = ref!
        return PropertyCollectionTracker(.set, ref: ref, elementTable: Element._larderTargetClass.map(ref.instance.table),
                                         paths: paths, keys: { [self] in objectKeys() }, count: { [self] in count })
    }
}

extension Map: TrackedCollection {
    func changeTracker(paths: ElementKeyPaths) -> ChangeTracker {
        MapPositionTracker(MapChangeReader(self, paths: paths))
    }
}
