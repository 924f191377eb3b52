import CLarder
import Foundation

// Collection notifications, as in Realm: `observe(keyPaths:on:_:)` on Results,
// List, MutableSet, LinkingObjects, AnyRealmCollection and Map. The callback gets
// `.initial` first, then `.update` after each commit that changed the collection
// (see RealmCollectionChange). keyPaths choose which property changes of element
// objects count as modifications: nil, any of their own properties; `[]`, none;
// names, those properties and paths through links ("owner.name").
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
        guard Element.self is Object.Type, let queryText = observedQueryText() else {
            fatalError("Only results of objects, from Realm.objects(_:) with filters and sorts, support change " +
                       "notifications; observe the List, MutableSet or Map itself")
        }
        instance.checkCanObserve(inWriteMessage: "Cannot create asynchronous query while in a write transaction")
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
        observeElements(self, .list, elementType: Element.self as? Object.Type, keyPaths: keyPaths, at: place, block,
                        keys: { $0.objectKeys() }, count: { $0.count })
    }
}

extension MutableSet {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe(keyPaths: [String]?, at place: ObservationPlace?,
                 _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        observeElements(self, .set, elementType: Element.self as? Object.Type, keyPaths: keyPaths, at: place, block,
                        keys: { $0.objectKeys() }, count: { $0.count })
    }
}

/// Observes a list or set property (collection, which is self of the caller);
/// keys and count read one.
private func observeElements<C: _LarderCollection>(
    _ collection: C, _ kind: PropertyCollectionTracker.Kind, elementType: Object.Type?, keyPaths: [String]?,
    at place: ObservationPlace?, _ block: @escaping (RealmCollectionChange<C>) -> Void,
    keys: @escaping (C) -> [lar_objkey], count: @escaping (C) -> Int
) -> NotificationToken {
    let ref = collection.observableRef()
    let paths = ElementKeyPaths(keyPaths, elementType: elementType)
    func tracking(_ collection: C) -> (C, ChangeTracker) {
        let elementTable = elementType.map { collection.ref!.instance.table(for: $0) }
        return (collection, PropertyCollectionTracker(kind, ref: collection.ref!, elementTable: elementTable, paths: paths,
                                                      keys: { keys(collection) }, count: { count(collection) }))
    }
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
            (objects, LinkingObjectsTracker(instance: instance, elementTable: instance.table(for: Element.self),
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
        if ref.nested != 0 { fatalError("Nested collections inside AnyRealmValue do not support change notifications yet") }
        ref.instance.checkCanObserve(inWriteMessage: "Cannot create asynchronous query while in a write transaction")
        return ref
    }
}

/// The collection of ref's owner's property, read in instance (another instance
/// on the same file); nil when the owner is gone.
func rebuilt<C: _LarderCollection>(_ ref: CollectionRef, in instance: RealmInstance) -> C? {
    guard let owner = instance.object(like: ref.ownerTable, key: ref.owner.key) else { return nil }
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
        let elementType = Value._larderTargetClass
        let paths = ElementKeyPaths(keyPaths, elementType: elementType)
        let token = NotificationToken()
        func observer(_ map: Map) -> MapObserver<Key, Value> {
            let instance = map.ref!.instance
            return MapObserver(token: token, map: map, elementTable: elementType.map { instance.table(for: $0) },
                               paths: paths, block: block)
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

/// A map's observer: the C core compares the map at the two snapshots
/// (`lar_map_changeset`, by key). With key paths, a value object counts as
/// modified only as they say.
final class MapObserver<Key: _MapKey, Value: RealmCollectionValue>: ThreadObserver {
    private let map: Map<Key, Value>
    private let elementTable: ManagedClass?
    private let paths: ElementKeyPaths
    private let block: (RealmMapChange<Map<Key, Value>>) -> Void
    private var version: UInt64 = 0
    private var keys: [String] = []

    init(token: NotificationToken, map: Map<Key, Value>, elementTable: ManagedClass?, paths: ElementKeyPaths,
         block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) {
        self.map = map
        self.elementTable = elementTable
        self.paths = paths
        self.block = block
        super.init(token: token, needsInitial: true)
    }

    private var ref: CollectionRef { map.ref! }

    override func capture() {
        version = ref.instance.fileVersion()
        keys = ref.isInvalidated ? [] : map.storedKeys() ?? []
    }

    override func deliverInitial() {
        capture()
        block(.initial(map))
    }

    override func deliverChanges(local: Bool) {
        let instance = ref.instance, oldKeys = keys
        let log = instance.notifier.changes(since: version)
        let old = instance.notifier.transaction(at: version)
        capture()
        var deletions: [String] = [], insertions: [String] = [], modifications: [String] = []
        if let old {
            var changes: OpaquePointer?
            let rc = lar_map_changeset(old, instance.currentTxn(), paths.paths == nil ? log : nil, ref.owner, ref.prop,
                                       &changes)
            if rc == LAR_EDELETED {
                deletions = oldKeys
            } else if rc != LAR_OK {
                fatalCoreError(rc, "Cannot compute the changes of a map")
            } else {
                defer { lar_map_changes_free(changes) }
                deletions = Self.keys(changes!, LAR_CHANGESET_DELETIONS)
                insertions = Self.keys(changes!, LAR_CHANGESET_INSERTIONS)
                modifications = Self.keys(changes!, LAR_CHANGESET_MODIFICATIONS)
            }
        } else {
            // No snapshot of the old version (the Realm was invalidated): every key as changed.
            (deletions, insertions) = (oldKeys, keys)
        }
        if let elementTable, let log, paths.paths != nil {
            modifications = Array(Set(modifications).union(modifiedObjectKeys(elementTable, log, instance,
                                                                              skipping: Set(insertions)))).sorted()
        }
        if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty { return }
        block(.update(map, deletions: deletions.map(Key.init(_larderKey:)), insertions: insertions.map(Key.init(_larderKey:)),
                      modifications: modifications.map(Key.init(_larderKey:))))
    }

    /// The keys whose object value was modified as the key paths say.
    private func modifiedObjectKeys(_ table: ManagedClass, _ log: OpaquePointer, _ instance: RealmInstance,
                                    skipping inserted: Set<String>) -> [String] {
        zip(map.storedKeys() ?? [], map.storedElements()).compactMap { key, value in
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
