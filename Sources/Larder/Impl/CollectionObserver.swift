import CLarder

/// How a collection observer finds what changed: it records the state it needs
/// (`capture`), and later gives the changes since then and records the new state.
/// The change log comes from the instance's notifier.
class ChangeTracker {
    unowned let instance: RealmInstance
    /// The version captured.
    var version: UInt64 = 0

    init(instance: RealmInstance) {
        self.instance = instance
    }

    func capture() {
        version = instance.fileVersion()
        record()
    }

    /// Records the collection's state at the instance's version.
    func record() { fatalError("abstract") }

    /// The changes since the capture, and a capture of the new state.
    func changes() -> IndexChanges {
        let log = instance.notifier.changes(since: version)
        let result = changes(log: log)
        version = instance.fileVersion()
        return result
    }

    /// log: the change log since `version`; nil when it is gone.
    func changes(log: OpaquePointer?) -> IndexChanges { fatalError("abstract") }
}

/// A collection's observer: the collection as the callback sees it, and its tracker.
final class CollectionObserver<Collection>: ThreadObserver {
    private let collection: Collection
    private let tracker: ChangeTracker
    private let block: (RealmCollectionChange<Collection>) -> Void

    init(token: NotificationToken, collection: Collection, tracker: ChangeTracker,
         block: @escaping (RealmCollectionChange<Collection>) -> Void) {
        self.collection = collection
        self.tracker = tracker
        self.block = block
        super.init(token: token, needsInitial: true)
    }

    override func deliverInitial() {
        tracker.capture()
        block(.initial(collection))
    }

    override func capture() { tracker.capture() }

    override func deliverChanges(local: Bool) {
        let changes = tracker.changes()
        if changes.isEmpty { return }
        block(.update(collection, deletions: changes.deletions, insertions: changes.insertions,
                      modifications: changes.modifications))
    }
}

/// Results of objects: the C core updates its result from the change log
/// (`lar_results_update`), incrementally when the query and sorts read only the
/// class's own properties.
final class ResultsTracker: ChangeTracker {
    private let table: ManagedClass
    private let query: QueryHandle
    private let paths: ElementKeyPaths
    private var results: CoreResults?
    /// The keys at the capture, when key paths choose the modifications.
    private var keys: [lar_objkey] = []

    init(instance: RealmInstance, table: ManagedClass, queryText: String, paths: ElementKeyPaths) {
        self.table = table
        query = QueryHandle.parse(queryText, env: instance.environment.handle, cls: table.id)
        self.paths = paths
        super.init(instance: instance)
    }

    override func record() {
        results = query.runResults(in: instance.currentTxn())
        if paths.paths != nil { keys = results!.keys }
    }

    override func changes(log: OpaquePointer?) -> IndexChanges {
        guard let results, let log else {
            // The log is gone: every element as changed.
            let old = self.results.map { $0.keys.count } ?? 0
            record()
            return IndexChanges(deletions: Array(0..<old), insertions: Array(0..<(self.results?.keys.count ?? 0)))
        }
        let throughLinks = paths.paths == nil ? modifiedThroughLinks(results, log) : []
        var changeset: OpaquePointer?
        let rc = lar_results_update(instance.notifier.transaction(at: version), instance.currentTxn(), query.pointer,
                                    nil, 0, results.pointer, &changeset)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot compute the changes of results") }
        var changes = IndexChanges(taking: changeset!)
        if paths.paths != nil {
            changes.modifications = paths.modifiedIndices(of: keys, table, deletions: changes.deletions, log: log,
                                                          instance: instance)
            keys = results.keys
        } else if !throughLinks.isEmpty {
            let deleted = Set(changes.deletions)
            changes.addModifications(throughLinks.filter { !deleted.contains($0) })
        }
        return changes
    }

    /// Without key paths the core reports the objects whose own properties changed;
    /// this finds the positions (in results, not yet updated) of those modified
    /// through the objects they link to. Nothing to read when no object they may
    /// reach was modified, or none of theirs reaches one.
    private func modifiedThroughLinks(_ results: CoreResults, _ log: OpaquePointer) -> [Int] {
        guard paths.mayFindMore(in: table, log: log, instance: instance) else { return [] }
        let found = paths.modifiedThroughLinks(table, log: log, instance: instance)
        if found?.isEmpty == true { return [] }
        let old = results.keys
        guard let found else { return paths.modifiedIndices(of: old, table, deletions: [], log: log, instance: instance) }
        return old.indices.filter { found.contains(old[$0]) }
    }
}

/// A list or set property: the C core gives its element changes (a list's from
/// the log, `lar_list_changeset`; a set's by comparing the two snapshots,
/// `lar_set_changeset`, positions in set order); one of objects adds the elements modified.
final class PropertyCollectionTracker: ChangeTracker {
    enum Kind: String { case list, set }

    private let kind: Kind
    private let ref: CollectionRef
    private let elementTable: ManagedClass?
    private let paths: ElementKeyPaths
    private let readKeys: () -> [lar_objkey]
    private let readCount: () -> Int
    private var count = 0
    private var keys: [lar_objkey] = []

    init(_ kind: Kind, ref: CollectionRef, elementTable: ManagedClass?, paths: ElementKeyPaths,
         keys: @escaping () -> [lar_objkey], count: @escaping () -> Int) {
        self.kind = kind
        self.ref = ref
        self.elementTable = elementTable
        self.paths = paths
        readKeys = keys
        readCount = count
        super.init(instance: ref.instance)
    }

    override func record() {
        let gone = ref.isInvalidated // the owner was deleted
        count = gone ? 0 : readCount()
        if elementTable != nil { keys = gone ? [] : readKeys() }
    }

    override func changes(log: OpaquePointer?) -> IndexChanges {
        let oldCount = count, oldKeys = keys
        defer { record() }
        var changeset: OpaquePointer?
        let rc: Int32
        switch kind {
        case .list:
            guard let log else { return reloaded(oldCount) }
            rc = lar_list_changeset(log, ref.owner, ref.prop, oldCount, &changeset)
        case .set:
            guard let old = instance.notifier.transaction(at: version) else { return reloaded(oldCount) }
            rc = lar_set_changeset(old, instance.currentTxn(), log, ref.owner, ref.prop, &changeset)
        }
        if rc == LAR_EDELETED { return IndexChanges(deletions: Array(0..<oldCount)) }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot compute the changes of a \(kind.rawValue)") }
        var changes = IndexChanges(taking: changeset!)
        if let elementTable, let log {
            changes.addModifications(paths.modifiedIndices(of: oldKeys, elementTable, deletions: changes.deletions,
                                                           log: log, instance: instance))
        }
        return changes
    }

    /// Without the log or the old snapshot (the Realm was invalidated meanwhile): every element as changed.
    private func reloaded(_ oldCount: Int) -> IndexChanges {
        IndexChanges(deletions: Array(0..<oldCount), insertions: Array(0..<(ref.isInvalidated ? 0 : readCount())))
    }
}

extension QueryHandle {
    /// A query in Larder's query language, without arguments; traps with the core's message when invalid.
    static func parse(_ text: String, env: OpaquePointer, cls: lar_class) -> QueryHandle {
        var query: OpaquePointer?
        if lar_query_parse(env, cls, text, &query) != LAR_OK { invalidQuery() }
        return QueryHandle(query!)
    }
}
