import CLarder

/// Index changes as Realm reports them: deletions and modifications in the old
/// collection, insertions in the new one, each ascending.
struct IndexChanges {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// Reads a C change set and frees it.
    init(taking changeset: OpaquePointer) {
        defer { lar_changeset_free(changeset) }
        deletions = Self.part(changeset, LAR_CHANGESET_DELETIONS)
        insertions = Self.part(changeset, LAR_CHANGESET_INSERTIONS)
        modifications = Self.part(changeset, LAR_CHANGESET_MODIFICATIONS)
    }

    init(deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
    }

    private static func part(_ changeset: OpaquePointer, _ part: lar_changeset_part) -> [Int] {
        var indices: UnsafePointer<Int>?
        var count = 0
        guard lar_changeset_get(changeset, part, &indices, &count) == LAR_OK, let indices else { return [] }
        return Array(UnsafeBufferPointer(start: indices, count: count))
    }

    /// Adds modifications (old indices), keeping them sorted and unique.
    mutating func addModifications(_ indices: [Int]) {
        if indices.isEmpty { return }
        modifications = Array(Set(modifications).union(indices)).sorted()
    }
}

/// Which changes to an element object count as modifying it in a collection:
/// nil paths, any of its own properties and of the objects it links to (see
/// `DeepChangeChecker`); otherwise those of the key paths, which may cross links
/// ("owner.name": the owner's name, or which owner it is).
struct ElementKeyPaths {
    let paths: [[String]]?
    /// Without key paths: the search through links, which remembers what it found
    /// in one change log for the next element.
    private let deep = DeepChangeChecker()

    init(_ names: [String]?, elementType: Object.Type?) {
        self.init(names, schema: elementType?.schema)
    }

    /// The same for elements of class schema (a `DynamicObject`'s, which its type does not tell).
    init(_ names: [String]?, schema: ClassSchema?) {
        guard let names, let schema else {
            paths = nil
            return
        }
        paths = ObservedKeyPaths(names, of: schema).paths
    }

    /// Whether the object with key in table changed as the paths say, in log.
    func isModified(_ key: lar_objkey, _ table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Bool {
        guard let paths else { return deep.isModified(key, table, log: log, instance: instance) }
        return paths.contains { isModified(key, table, path: $0[...], log: log, instance: instance) }
    }

    private func isModified(_ key: lar_objkey, _ table: ManagedClass, path: ArraySlice<String>, log: OpaquePointer,
                            instance: RealmInstance) -> Bool {
        guard let name = path.first, let slot = table.schema.slotByName[name] else { return false }
        let changed = Self.changedProperties(key, table, log) ?? []
        if changed.contains(UInt32(table.propertyIndex[slot])) { return true }
        if path.count == 1 { return false }
        // The path goes on through what the property links to now.
        guard instance.objectExists(key, in: table) else { return false }
        let targets: [Object]
        switch instance.accessor(table, key: key).stored(slot: slot) {
        case .object(let object): targets = [object]
        case .collection(let collection):
            targets = collection.storedElements().compactMap { if case .object(let o) = $0 { return o } else { return nil } }
        default: targets = []
        }
        return targets.contains { target in
            guard let targetTable = target.core.table, !target.isInvalidated else { return false }
            return isModified(target.core.key, targetTable, path: path.dropFirst(), log: log, instance: instance)
        }
    }

    /// The slots of the properties log says changed on the object.
    static func changedSlots(_ key: lar_objkey, _ table: ManagedClass, _ log: OpaquePointer) -> [Int] {
        guard let props = changedProperties(key, table, log) else { return [] }
        let count = table.schema.properties.count
        return (0..<count).filter { props.contains(UInt32(table.propertyIndex[$0])) }
    }

    /// Whether elements of table may be modified beyond what the core finds in their
    /// own properties: key paths choose, or an object they link to was modified.
    func mayFindMore(in table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Bool {
        paths != nil || deep.linkedObjectsChanged(from: table, log: log, instance: instance)
    }

    /// Without key paths: the objects of table modified through the objects they link
    /// to (their own properties may have changed too); nil when only a search from
    /// each element can tell (a mixed value on the way, its classes unknown).
    func modifiedThroughLinks(_ table: ManagedClass, log: OpaquePointer, instance: RealmInstance) -> Set<lar_objkey>? {
        deep.modifiedThroughLinks(table, log: log, instance: instance)
    }

    /// The stored indexes of the properties log says changed on the object; nil when it was not modified.
    static func changedProperties(_ key: lar_objkey, _ table: ManagedClass, _ log: OpaquePointer) -> [UInt32]? {
        var state: Int32 = 0
        var count = 0
        let obj = lar_obj(cls: table.id, key: key)
        guard lar_changes_object(log, obj, &state, nil, 0, &count) == LAR_OK, state == LAR_OBJECT_MODIFIED else {
            return nil
        }
        var props = [UInt32](repeating: 0, count: count)
        lar_changes_object(log, obj, &state, &props, count, &count)
        return props
    }

    /// The old indices of objects (keys, in old order) modified as the paths say,
    /// leaving out those the change set deletes (moved objects are deleted and inserted).
    func modifiedIndices(of keys: [lar_objkey], _ table: ManagedClass, deletions: [Int], log: OpaquePointer,
                         instance: RealmInstance) -> [Int] {
        let deleted = Set(deletions)
        if paths == nil, let modified = deep.modifiedKeys(of: table, log: log, instance: instance) {
            return keys.indices.filter { !deleted.contains($0) && modified.contains(keys[$0]) }
        }
        return keys.indices.filter {
            !deleted.contains($0) && isModified(keys[$0], table, log: log, instance: instance)
        }
    }
}
