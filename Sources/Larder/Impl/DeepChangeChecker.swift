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
/// One checker serves one observer; what it learns in one change log (the
/// objects searched to the end without finding a change) serves the next element.
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
    /// The rows and properties on the way to the row being searched.
    private var path: [(row: Row, slot: Int)] = []
    /// How many searches stopped at the depth limit or a cycle: a row whose search
    /// stopped so is not known to be unmodified.
    private var cutShort = 0

    func isModified(_ key: lar_objkey, _ table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Bool {
        if ElementKeyPaths.changedProperties(key, table, log) != nil { return true }
        guard linkedObjectsChanged(from: table, log: log, instance: instance) else { return false }
        path = []
        return search(Row(cls: table.id, key: key), table, depth: 0, log: log, instance: instance)
    }

    /// Whether log modified an object of a class that table's links reach (directly
    /// or through other classes): when none was, no element can be modified through links.
    func linkedObjectsChanged(from table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Bool {
        remember(log, instance)
        if let known = linkedChanges[table.id] { return known }
        let (reached, anyClass) = Self.reachableClasses(from: table, instance: instance)
        var count = 0
        lar_changes_classes(log, nil, 0, &count)
        var classes = [lar_class](repeating: 0, count: count)
        lar_changes_classes(log, &classes, count, &count)
        let changed = classes.contains { cls in
            guard anyClass || reached.contains(cls) else { return false }
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
        notModified = []
        linkedChanges = [:]
    }

    /// The classes one link or more from table reach; anyClass when a mixed value
    /// (which may link to any class) is on the way.
    private static func reachableClasses(from table: ManagedClass, instance: RealmInstance)
        -> (classes: Set<lar_class>, anyClass: Bool) {
        var reached: Set<lar_class> = [], pending = [table], anyClass = false
        while let next = pending.popLast() {
            for slot in linkSlots(next) {
                let property = next.schema.properties[slot]
                guard let target = property.targetClass else {
                    anyClass = true
                    continue
                }
                let targetTable = instance.table(for: target)
                if reached.insert(targetTable.id).inserted { pending.append(targetTable) }
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
