import CLarder
import Foundation

/// Frozen instances: one version of the file, held by a read transaction for as
/// long as the instance lives, readable from any thread one at a time (`serialized`).
extension RealmInstance {
    /// This instance at the version it reads, frozen; itself when frozen already.
    ///
    /// LMDB begins every read at the newest version, so a live instance that is
    /// behind it hands its own read transaction to the frozen instance and begins
    /// another on its next read (at the newest version, as after `refresh()`).
    /// In a write transaction, the version the write began on.
    func frozen() -> RealmInstance {
        if isFrozen { return self }
        verifyThread()
        let liveVersion = isInWriteTransaction ? nil : txn.map(Self.version(of:))
        if let copy = frozenCopy, let liveVersion, copy.frozenVersion == liveVersion { return copy }
        var fresh: OpaquePointer?
        let rc = lar_txn_begin(environment.handle, LAR_TXN_READ, &fresh)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot freeze the Realm at '\(environment.path)'") }
        var txn = fresh!
        var version = Self.version(of: txn)
        if let liveVersion, liveVersion != version, let own = state.handOverRead() {
            lar_txn_free(txn)
            txn = own
            version = liveVersion
        }
        if let copy = frozenCopy, copy.frozenVersion == version {
            lar_txn_free(txn)
            return copy
        }
        let copy = RealmInstance(frozen: txn, version: version, of: self)
        frozenCopy = copy
        if let error = copy.activeVersionsError() { fatalError(error.message) }
        return copy
    }

    /// The accessor in this instance of the object of type with key (and stamp, for
    /// a class keyed by its int primary key) in another one; nil when it is not here.
    func counterpart(of other: ManagedClass, key: lar_objkey, stamp: UInt64) -> Object? {
        let table = table(like: other)
        return serialized {
            var exists: Int32 = 0
            let rc = lar_obj_exists(currentTxn(), lar_obj(cls: table.id, key: key), &exists)
            if rc != LAR_OK || exists == 0 { return nil }
            if table.reusesKeys && self.stamp(of: key, in: table) != stamp { return nil }
            return accessor(table, key: key)
        }
    }

    /// This thread's live instance for the file (the one `Realm()` gives).
    func thawed() -> RealmInstance {
        if !isFrozen { return self }
        do {
            return try RealmInstance.forCurrentThread(configuration)
        } catch let error as Realm.Error {
            fatalError(error.message)
        } catch {
            fatalError("\(error)")
        }
    }

    static func version(of txn: OpaquePointer) -> UInt64 {
        var version: UInt64 = 0
        let rc = lar_txn_version(txn, &version)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read the version of a transaction") }
        return version
    }

    /// Runs body holding a frozen instance's lock; on a live instance, just runs it
    /// (its thread is checked instead).
    @inlinable @inline(__always)
    func serialized<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let frozenLock else { return try body() }
        frozenLock.lock()
        defer { frozenLock.unlock() }
        return try body()
    }

    /// A property read on a frozen instance, whose classes cache no row
    /// (`ManagedClass.isShared`): every read of every thread comes here and decodes
    /// the row under the lock.
    @usableFromInline @inline(never)
    func frozenRead<Value: _Persistable>(_ core: ObjectCore, _ table: ManagedClass, slot: Int) -> Value {
        serialized {
            load(core, table)
            return Value._larderRead(table.slotValues[slot], owner: self)
        }
    }

    /// For observers (notifications): frozen instances never change, as Realm says.
    func verifyCanObserve() {
        if isFrozen { fatalError("Frozen Realms do not change and do not have change notifications.") }
    }

    // MARK: Versions

    /// How many versions of the file LMDB keeps: the newest, and every older one a
    /// read transaction of any process (live or frozen Realm) still sees.
    var activeVersionCount: UInt64 {
        var count: UInt64 = 0
        let rc = lar_env_version_count(environment.handle, &count)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot count the versions of the Realm") }
        return count
    }

    /// Realm's error when more versions are kept than the configuration's
    /// `maximumNumberOfActiveVersions`.
    func activeVersionsError() -> Realm.Error? {
        guard let limit = configuration.maximumNumberOfActiveVersions else { return nil }
        let count = activeVersionCount
        if count <= UInt64(limit) { return nil }
        return Realm.Error(.fail, "Number of active versions (\(count)) in the Realm exceeded the limit of \(limit)")
    }
}
