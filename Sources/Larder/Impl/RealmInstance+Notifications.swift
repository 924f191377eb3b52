import CLarder

/// Where an instance meets its observers: it delivers when it refreshes, begins
/// a write and commits one (Impl/InstanceNotifier.swift).
extension RealmInstance {
    /// The version of the file this instance reads. A write transaction reads the
    /// newest version and will commit the next one, which `lar_txn_version` gives.
    func fileVersion() -> UInt64 {
        var version: UInt64 = 0
        let rc = lar_txn_version(currentTxn(), &version)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read the version of the Realm at '\(environment.path)'") }
        return isInWriteTransaction ? version - 1 : version
    }

    /// Where Realm's run loop would refresh this instance (a commit watcher's wake-up,
    /// `Realm()` on its thread): refreshes when autorefresh is on, which delivers;
    /// otherwise the instance stays at its version and its Realm observers get
    /// `.refreshRequired` when a newer one exists.
    func autorefreshOrAnnounce() {
        if autorefresh {
            refresh()
        } else {
            observers?.announceNewerVersion()
        }
    }

    /// Realm's checks before an observer registers. inWriteMessage: Realm's message for
    /// observing inside a write, which differs between objects and collections.
    func checkCanObserve(inWriteMessage: String) {
        verifyThread()
        if configuration.readOnly { fatalError("Read-only Realms do not change and do not have change notifications.") }
        if isInWriteTransaction { fatalError(inWriteMessage) }
    }

    /// The accessor of the object of type with key, or nil when there is none.
    func object(_ type: Object.Type, key: lar_objkey) -> Object? {
        object(like: table(for: type), key: key)
    }

    /// The same for the object of other (this file's class in another instance) with key.
    func object(like other: ManagedClass, key: lar_objkey) -> Object? {
        let table = table(like: other)
        return objectExists(key, in: table) ? accessor(table, key: key) : nil
    }

    func objectExists(_ key: lar_objkey, in table: ManagedClass) -> Bool {
        var exists: Int32 = 0
        return lar_obj_exists(currentTxn(), lar_obj(cls: table.id, key: key), &exists) == LAR_OK && exists != 0
    }
}
