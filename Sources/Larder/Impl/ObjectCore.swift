import CLarder
import Foundation

/// The state behind one `Object` once it is managed: its Realm and its row.
/// (While unmanaged, the values live in the object's `@Persisted` wrappers.)
///
/// Objects are confined to one thread, so the fields skip Swift's dynamic
/// exclusivity checks, which would otherwise cost more than the read itself.
@usableFromInline
final class ObjectCore {
    /// The Realm instance managing the object (kept alive by it), or nil while unmanaged.
    @exclusivity(unchecked) var realm: RealmInstance?
    /// The same, unretained, for the read path: retaining it on every read would
    /// cost more than the read.
    @exclusivity(unchecked) @usableFromInline var instanceRef: Unmanaged<RealmInstance>?
    /// The object's row: its class table in `realm` (unretained; the instance keeps
    /// its tables) and its key there.
    @exclusivity(unchecked) @usableFromInline var tableRef: Unmanaged<ManagedClass>?
    var table: ManagedClass! { tableRef?.takeUnretainedValue() }
    @exclusivity(unchecked) @usableFromInline var key: lar_objkey = 0
    /// Set when the object was deleted through this accessor, or its Realm invalidated it.
    @exclusivity(unchecked) @usableFromInline var invalidated = false
    /// The instance's invalidation count when the object was bound: `invalidate()` ends it.
    @exclusivity(unchecked) @usableFromInline var generation: UInt64 = 0
    /// The write transaction that added this object, if it was added: cancelling it invalidates the object.
    @exclusivity(unchecked) var addedInWrite: UInt64 = 0
    /// The row's stamp when bound, for a class keyed by its int primary key: a new object
    /// with the primary key of a deleted one takes its key, with another stamp.
    @exclusivity(unchecked) var stamp: UInt64 = 0
    /// The instance's version when `stamp` last matched the row's: only a delete, which
    /// moves the version, lets a new object take the key, so reads need not ask again.
    @exclusivity(unchecked) var stampCheckedAt: UInt64 = .max
    /// The class is keyed by its int primary key (`ManagedClass.reusesKeys`): rows have stamps.
    @exclusivity(unchecked) var keyedByPrimary = false
    /// The primary key of the row `key`, once known: it hashes the object after it is deleted.
    @exclusivity(unchecked) var knownPrimaryKey: (key: lar_objkey, value: _StoredValue)?
    /// The accessor the last link read from this object returned, for `linkTarget` to
    /// rebind when nothing else holds it. Here, not in the class: an accessor holds its
    /// Realm instance, so one parked in the instance's classes kept the instance alive.
    @exclusivity(unchecked) var parkedLink: Object?

    @usableFromInline init() {}

    /// Points this core at a row: the object becomes managed. stamp: the row's, when the
    /// caller read it in the current transaction (a lookup's `lar_obj_find_stamped`).
    func bind(to realm: RealmInstance, table: ManagedClass, key: lar_objkey, stamp: UInt64? = nil) {
        self.realm = realm
        instanceRef = Unmanaged.passUnretained(realm)
        generation = realm.generation
        tableRef = Unmanaged.passUnretained(table)
        self.key = key
        invalidated = false
        keyedByPrimary = table.reusesKeys
        self.stamp = 0
        guard keyedByPrimary else { return }
        if let stamp {
            self.stamp = stamp
            stampCheckedAt = realm.version
        } else {
            takeStamp(realm, table.id)
        }
    }

    /// Points this bound core at another row of its class (iterators and link reads reuse
    /// an accessor nobody else holds), with that row's stamp. Unretained references: a
    /// scan rebinds once per object.
    @inline(__always) func rebind(to key: lar_objkey) {
        self.key = key
        guard keyedByPrimary else { return }
        let id = tableRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.id }
        instanceRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { takeStamp($0, id) }
    }

    /// As `rebind(to:)`, with the row's stamp already read (by the iterator that stepped to it).
    @inline(__always) func rebind(to key: lar_objkey, stamp: UInt64) {
        self.key = key
        self.stamp = stamp
        stampCheckedAt = instanceRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.version }
    }

    private func takeStamp(_ realm: RealmInstance, _ cls: lar_class) {
        let txn = realm.currentTxn() // first: it may begin a read, which moves the version
        var stamp: UInt64 = 0
        self.stamp = lar_obj_stamp(txn, lar_obj(cls: cls, key: key), &stamp) == LAR_OK ? stamp : 0
        stampCheckedAt = realm.version
    }
}
