import CLarder

/// A Realm instance's classes: one `ManagedClass` per model type, found (or
/// declared) on first use. Objects hold their table unowned, so a table lives as
/// long as the instance, even when a cancelled write took its class away.
struct ClassRegistry {
    private var tables: [ObjectIdentifier: ManagedClass] = [:]
    /// Bulk work touches one class again and again: it skips the dictionary.
    private var lastTable: ManagedClass?
    /// The table the last link read resolved, unretained (`tables` or `retired` keeps
    /// it): a loop reading `person.address` finds it with one comparison and no retain.
    private(set) var lastLinkTable: Unmanaged<ManagedClass>?
    /// Classes first used during the current write: cancelling it may undeclare them.
    private var madeInWrite: [ObjectIdentifier] = []
    private var retired: [ManagedClass] = []
    /// The table a mixed value's link to each stored class resolved to (`mixedLinkTarget`),
    /// so that reading one costs a dictionary lookup, not a search of the model types by name.
    private var mixedTargets: [lar_class: ManagedClass] = [:]
    /// The tables `DynamicObject`s read, by stored class id (Impl/RealmInstance+Dynamic.swift).
    private var dynamicTables: [lar_class: ManagedClass] = [:]

    /// The table of type, made with make when this instance has not used type yet.
    mutating func table(for type: Object.Type, isWriting: Bool, make: () throws -> ManagedClass) rethrows -> ManagedClass {
        if let last = lastTable, last.schema.type == type { return last }
        if let table = tables[ObjectIdentifier(type)] {
            lastTable = table
            return table
        }
        let table = try make()
        tables[ObjectIdentifier(type)] = table
        if isWriting { madeInWrite.append(ObjectIdentifier(type)) }
        return table
    }

    /// The table of a link's target type when the last link read resolved that type.
    func linkTable(for type: Object.Type) -> Unmanaged<ManagedClass>? {
        guard let last = lastLinkTable, last._withUnsafeGuaranteedRef({ $0.schema.type == type }) else { return nil }
        return last
    }

    mutating func rememberLinkTable(_ table: ManagedClass) { lastLinkTable = Unmanaged.passUnretained(table) }

    /// The table a link in a mixed value to stored class id resolved to before, if any.
    func mixedTarget(_ id: lar_class) -> ManagedClass? { mixedTargets[id] }

    /// Keeps table as the one links in mixed values to its stored class resolve to.
    mutating func rememberMixedTarget(_ table: ManagedClass) { mixedTargets[table.id] = table }

    /// The dynamic table of stored class id, made with make on first use.
    mutating func dynamicTable(_ id: lar_class, make: () -> ManagedClass) -> ManagedClass {
        if let table = dynamicTables[id] { return table }
        let table = make()
        dynamicTables[id] = table
        return table
    }

    mutating func didCommitWrite() {
        madeInWrite = []
    }

    /// Classes declared in a cancelled write are gone from the file: look them up again.
    mutating func didCancelWrite() {
        lastTable = nil
        lastLinkTable = nil
        mixedTargets = [:]
        retired += dynamicTables.values
        dynamicTables = [:]
        for type in madeInWrite {
            if let table = tables.removeValue(forKey: type) { retired.append(table) }
        }
        madeInWrite = []
    }
}
