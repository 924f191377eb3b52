import CLarder

/// Realm's rule for collection notifications without key paths (realm-core's
/// DeepChangeChecker): an element object is modified when one of its own
/// properties changed, or one of an object it links to, following links (to-one
/// links, lists, sets and maps of objects, and the links in mixed values and in
/// lists, sets and maps of them; never LinkingObjects, nor into collections
/// nested in mixed values) up to three links away: four levels, the element's
/// included. A link already on the way (the same object and property) is not
/// followed again, so cycles end.
///
/// When the classes on the way are known (no mixed value is, or the configuration
/// names its classes in `objectTypes`), the search runs backwards, once per change
/// log: from the objects modified, through the backlink index, to the objects up to
/// three links before them, so its cost follows what changed, not the collection's
/// size. Otherwise (a mixed value links to classes unknown) it runs forwards from each
/// element, as realm-core's does, remembering the objects searched to the end
/// without finding a change for the next element. One checker serves one observer.
final class DeepChangeChecker {
    private static let maxDepth = 4

    private struct Row: Hashable {
        let cls: lar_class
        let key: lar_objkey
    }

    /// The change log (and the version it was read at) the memory below is of.
    private var log: OpaquePointer?
    private var logVersion: UInt64 = 0
    private var notModified: Set<Row> = []
    /// Per class of elements: whether an object of a class its links reach was modified.
    private var linkedChanges: [lar_class: Bool] = [:]
    /// Per class of elements: the objects (by class) that reach a modified one through
    /// one to three links, found backwards; nil when the classes on the way are unknown.
    private var linkedToModified: [lar_class: [lar_class: Set<lar_objkey>]?] = [:]
    /// The rows and properties on the way to the row being searched.
    private var path: [(row: Row, slot: Int)] = []
    /// How many searches stopped at the depth limit or a cycle: a row whose search
    /// stopped so is not known to be unmodified.
    private var cutShort = 0
    /// Per class of elements: reachableClasses(from:), which its table's schema alone decides.
    private var reachable: [lar_class: (table: ManagedClass, classes: [lar_class: ManagedClass], anyClass: Bool)] = [:]

    func isModified(_ key: lar_objkey, _ table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Bool {
        if ElementKeyPaths.changedProperties(key, table, log) != nil { return true }
        guard linkedObjectsChanged(from: table, log: log, instance: instance) else { return false }
        if let found = backwardSearch(from: table, log: log, instance: instance) {
            return found[table.id]?.contains(key) ?? false
        }
        path = []
        return search(Row(cls: table.id, key: key), table, depth: 0, log: log, instance: instance)
    }

    /// The objects of table modified in log or through links, when the backward
    /// search applies (the classes on the way known); nil otherwise.
    func modifiedKeys(of table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Set<lar_objkey>? {
        modifiedThroughLinks(table, log: log, instance: instance)?.union(Self.modified(table.id, in: log))
    }

    /// The objects of table that reach an object modified in log through links,
    /// when the backward search applies (the classes on the way known); nil otherwise.
    func modifiedThroughLinks(_ table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Set<lar_objkey>? {
        guard linkedObjectsChanged(from: table, log: log, instance: instance) else { return [] }
        return backwardSearch(from: table, log: log, instance: instance).map { $0[table.id] ?? [] }
    }

    private static func modified(_ cls: lar_class, in log: OpaquePointer) -> UnsafeBufferPointer<lar_objkey> {
        var changes = lar_class_changes()
        guard lar_changes_class(log, cls, &changes) == LAR_OK else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: changes.modified, count: changes.modified_count)
    }

    /// Walks the backlink index from the objects log modified, up to three links
    /// back, through the link properties of table's class and the classes its links
    /// reach (only their objects can be on a path from an element); nil when they
    /// are not known.
    private func backwardSearch(from table: ManagedClass, log: OpaquePointer,
                                instance: RealmInstance) -> [lar_class: Set<lar_objkey>]? {
        if let known = linkedToModified[table.id] { return known }
        let (reached, anyClass) = reachableClasses(from: table, instance: instance)
        if anyClass {
            linkedToModified[table.id] = .some(nil)
            return nil
        }
        // The links into each class, from the classes on the way (a mixed value's into any).
        var incoming: [lar_class: [(origin: ManagedClass, slot: Int)]] = [:]
        var origins = reached
        origins[table.id] = table
        for origin in origins.values {
            for slot in Self.linkSlots(origin) {
                let targets = origin.schema.properties[slot].targetClass.map { [instance.table(for: $0)] }
                    ?? Array(origins.values)
                for target in targets { incoming[target.id, default: []].append((origin, slot)) }
            }
        }
        var frontier = incoming.keys.flatMap { cls in Self.modified(cls, in: log).map { Row(cls: cls, key: $0) } }
        var found: [lar_class: Set<lar_objkey>] = [:]
        let txn = instance.currentTxn()
        for _ in 1..<Self.maxDepth {
            var next: [Row] = []
            for row in frontier {
                for (origin, slot) in incoming[row.cls] ?? [] {
                    let target = lar_obj(cls: row.cls, key: row.key)
                    Self.forEachBacklink(txn, to: target, from: origin.id, UInt32(origin.propertyIndex[slot])) { key in
                        // The index has the links inside collections nested in mixed values, which Realm does not follow.
                        if origin.schema.properties[slot].isMixed
                            && !Self.targets(instance.accessor(origin, key: key).stored(slot: slot)).contains(where: {
                                $0.core.table.id == target.cls && $0.core.key == target.key }) { return }
                        if found[origin.id, default: []].insert(key).inserted { next.append(Row(cls: origin.id, key: key)) }
                    }
                }
            }
            frontier = next
        }
        linkedToModified[table.id] = found
        return found
    }

    /// Calls body with the key of each object of class origin that links to target through prop.
    private static func forEachBacklink(_ txn: OpaquePointer, to target: lar_obj, from origin: lar_class, _ prop: UInt32,
                                        _ body: (lar_objkey) -> Void) {
        withUnsafeTemporaryAllocation(of: lar_obj.self, capacity: 64) { buffer in
            var start: lar_objkey = 0
            while true {
                var count = 0
                let rc = lar_backlinks_list(txn, target, origin, prop, start, buffer.baseAddress!, 64, &count)
                if rc == LAR_ENOTFOUND { return }
                if rc != LAR_OK { fatalCoreError(rc, "Cannot read the objects linking to an object") }
                for index in 0..<count { body(buffer[index].key) }
                start = buffer[count - 1].key + 1
            }
        }
    }

    /// Whether log modified an object of a class that table's links reach (directly
    /// or through other classes): when none was, no element can be modified through links.
    func linkedObjectsChanged(from table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Bool {
        remember(log, instance)
        if let known = linkedChanges[table.id] { return known }
        let (reached, anyClass) = reachableClasses(from: table, instance: instance)
        var count = 0
        lar_changes_classes(log, nil, 0, &count)
        var classes = [lar_class](repeating: 0, count: count)
        lar_changes_classes(log, &classes, count, &count)
        let changed = classes.contains { cls in
            guard anyClass || reached[cls] != nil else { return false }
            var changes = lar_class_changes()
            return lar_changes_class(log, cls, &changes) == LAR_OK && changes.modified_count > 0
        }
        linkedChanges[table.id] = changed
        return changed
    }

    /// Forgets what an older change log taught.
    private func remember(_ log: OpaquePointer, _ instance: RealmInstance) {
        let version = instance.fileVersion()
        if self.log == log && logVersion == version { return }
        self.log = log
        logVersion = version
        // Kept storage: new collections at every delivery cost more than the checks.
        notModified.removeAll(keepingCapacity: true)
        linkedChanges.removeAll(keepingCapacity: true)
        linkedToModified.removeAll(keepingCapacity: true)
    }

    private func reachableClasses(from table: ManagedClass, instance: RealmInstance)
        -> (classes: [lar_class: ManagedClass], anyClass: Bool) {
        if let known = reachable[table.id], known.table === table { return (known.classes, known.anyClass) }
        let found = Self.reachableClasses(from: table, instance: instance)
        reachable[table.id] = (table, found.classes, found.anyClass)
        return found
    }

    /// The classes (their tables, by id) one link or more from table reach; anyClass
    /// when a mixed value (which may link to any class) is on the way and the
    /// configuration does not name the classes.
    private static func reachableClasses(from table: ManagedClass, instance: RealmInstance)
        -> (classes: [lar_class: ManagedClass], anyClass: Bool) {
        var reached: [lar_class: ManagedClass] = [:], pending = [table], anyClass = false
        while let next = pending.popLast() {
            for slot in linkSlots(next) {
                // A mixed value may link to any class: the configuration's, when it names them.
                guard let targets = next.schema.properties[slot].targetClass.map({ [$0] })
                    ?? instance.configuration.objectTypes else {
                    anyClass = true
                    continue
                }
                for target in targets {
                    let targetTable = instance.table(for: target)
                    if reached.updateValue(targetTable, forKey: targetTable.id) == nil { pending.append(targetTable) }
                }
            }
        }
        return (reached, anyClass)
    }

    /// The slots of table's properties that may link: links and collections of objects, mixed values.
    static func linkSlots(_ table: ManagedClass) -> [Int] {
        table.schema.properties.indices.filter {
            table.schema.properties[$0].targetClass != nil || table.schema.properties[$0].isMixed
        }
    }

    /// Whether an object row's links (at depth: the element is at 0) reach a modified object.
    private func search(_ row: Row, _ table: ManagedClass, depth: Int, log: OpaquePointer,
                        instance: RealmInstance) -> Bool {
        if depth >= Self.maxDepth {
            cutShort += 1
            return false
        }
        if depth > 0 && ElementKeyPaths.changedProperties(row.key, table, log) != nil { return true }
        if notModified.contains(row) { return false }
        let before = cutShort
        let found = searchLinks(row, table, depth: depth, log: log, instance: instance)
        if !found && cutShort == before { notModified.insert(row) }
        return found
    }

    private func searchLinks(_ row: Row, _ table: ManagedClass, depth: Int, log: OpaquePointer,
                             instance: RealmInstance) -> Bool {
        guard instance.objectExists(row.key, in: table) else { return false }
        let object = instance.accessor(table, key: row.key)
        for slot in Self.linkSlots(table) {
            if path.prefix(depth).contains(where: { $0.row == row && $0.slot == slot }) {
                cutShort += 1
                continue
            }
            path.removeSubrange(depth...)
            path.append((row, slot))
            for target in Self.targets(object.stored(slot: slot)) {
                guard !target.isInvalidated, let targetTable = target.core.table else { continue }
                if search(Row(cls: targetTable.id, key: target.core.key), targetTable, depth: depth + 1, log: log,
                          instance: instance) { return true }
            }
        }
        return false
    }

    /// The objects a property's value links to: a link's target, the objects of a
    /// collection of objects or of mixed values (not those of collections nested in one).
    private static func targets(_ value: _StoredValue) -> [Object] {
        switch value {
        case .object(let object): return [object]
        case .collection(let collection):
            if collection.ref?.nested ?? 0 != 0 { return [] }
            return collection.storedElements().compactMap { if case .object(let object) = $0 { object } else { nil } }
        default: return []
        }
    }
}
