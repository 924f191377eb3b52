import CLarder
import Foundation

extension Object {
    /// Calls block after each commit that changes the object, as in Realm: no
    /// initial callback; `.change` with the properties that changed, `.deleted`
    /// once it is deleted (then no more). Without keyPaths it watches its own
    /// properties (a link by its target, a collection by its elements); with
    /// keyPaths, those properties, and paths through links and collections
    /// ("owner.name"), reported on their first property; `[]` watches deletion only.
    ///
    /// Delivery: without a queue, on this thread when its Realm refreshes
    /// (`refresh()`, `write`, `beginWrite`, `Realm()` with autorefresh, and
    /// after this thread's own commits); on a queue, there, with the object read
    /// in a Realm confined to that queue, soon after any commit of any thread or process.
    public func observe<T: Object>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, at: queue.map { .queue($0) }, block)
    }

    func observe<T: Object>(keyPaths: [String]?, at place: ObservationPlace?,
                            _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let instance = core.realm else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        if isInvalidated { fatalError("Cannot register notification blocks on an invalidated or deleted object") }
        instance.checkCanObserve(inWriteMessage: "Cannot register notification blocks from within write transactions.")
        let schema = objectClassSchema
        guard self is T else { fatalError("Cannot observe an object of type '\(schema.name)' as '\(T.self)'") }
        let paths = ObservedKeyPaths(keyPaths, of: schema)
        let token = NotificationToken()
        let table = core.table!
        let key = core.key
        let start = { (instance: RealmInstance, reader: Object) in
            instance.notifier.add(ObjectObserver(token: token, object: reader as! T, paths: paths, block: block))
        }
        if let place {
            ConfinedObservation.start(at: place, token: token, configuration: instance.configuration,
                                      environment: instance.environment) { placeInstance in
                guard let object = placeInstance.object(like: table, key: key) else { return block(.deleted) }
                start(placeInstance, object)
            }
        } else {
            start(instance, self)
        }
        return token
    }

    /// The same with key paths of the model: `dog.observe(keyPaths: [\Dog.name]) { ... }`.
    public func observe<T: Object>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        let names = keyPaths.map { T.schema.propertyName(ofAny: $0, root: T.self, for: "observe(keyPaths:)") }
        return observe(keyPaths: names, on: queue, block)
    }
}

/// An object and the values of its observed key paths as last delivered.
final class ObjectObserver<T: Object>: ThreadObserver {
    private let object: T
    private let paths: ObservedKeyPaths
    private let block: (ObjectChange<T>) -> Void
    private var values: [ObservedValue]
    /// The version of `values`: the change log since then names properties written
    /// with the value they had (a self-assignment is a change, as in Realm).
    private var version: UInt64
    private var deleted = false

    init(token: NotificationToken, object: T, paths: ObservedKeyPaths, block: @escaping (ObjectChange<T>) -> Void) {
        self.object = object
        self.paths = paths
        self.block = block
        values = paths.read(object)
        version = object.core.realm!.fileVersion()
        super.init(token: token, needsInitial: false)
    }

    override func capture() {
        if deleted || object.isInvalidated { return }
        values = paths.read(object)
        version = object.core.realm!.fileVersion()
    }

    override func deliverChanges(local: Bool) {
        if deleted { return }
        if object.isInvalidated {
            deleted = true
            return block(.deleted)
        }
        let now = paths.read(object)
        let written = writtenProperties()
        var changes: [PropertyChange] = []
        let schema = object.objectClassSchema
        for (index, path) in paths.paths.enumerated() where now[index] != values[index] || written.contains(path[0]) {
            let name = path[0]
            if changes.contains(where: { $0.name == name }) { continue }
            let isCollection = schema.properties[schema.slotByName[name]!].isCollection
            changes.append(PropertyChange(name: name,
                                          oldValue: local || path.count > 1 ? nil : values[index].oldValue,
                                          newValue: isCollection ? nil : object.value(forKey: name)))
        }
        values = now
        version = object.core.realm!.fileVersion()
        if !changes.isEmpty { block(.change(object, changes)) }
    }

    /// The names of the properties the log says were written since `version`.
    private func writtenProperties() -> Set<String> {
        guard let instance = object.core.realm, let table = object.core.table,
              let log = instance.notifier.changes(since: version) else { return [] }
        let slots = ElementKeyPaths.changedSlots(object.core.key, table, log)
        return Set(slots.map { table.schema.properties[$0].name })
    }
}
