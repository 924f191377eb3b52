import CLarder
import CLarderSwift
import Foundation

/// The state behind one `Object`: its values while unmanaged, its row once managed.
///
/// Every `@Persisted` wrapper of an object points at the same core and knows its
/// slot (its position in declaration order), so a property read needs neither
/// key paths nor reflection.
///
/// Objects are confined to one thread, so the fields skip Swift's dynamic
/// exclusivity checks, which would otherwise cost more than the read itself.
@usableFromInline
final class ObjectCore {
    /// Values in slot order while the object is unmanaged; emptied once it is managed.
    @exclusivity(unchecked) @usableFromInline var values: ContiguousArray<_StoredValue> = []
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

    @usableFromInline init() {}

    @inlinable
    func get<Value: _Persistable>(_ slot: Int, as _: Value.Type) -> Value {
        if let instanceRef { return instanceRef._withUnsafeGuaranteedRef { $0.read(self, slot: slot) } }
        return Value._larderFrom(values[slot]) ?? Value._larderDefault()
    }

    @inlinable
    func set<Value: _Persistable>(_ slot: Int, _ value: Value) {
        if let instanceRef {
            return instanceRef._withUnsafeGuaranteedRef { $0.write(self, slot: slot, value._larderStored) }
        }
        values[slot] = value._larderStored
    }

    /// Points this core at a row: the object becomes managed.
    func bind(to realm: RealmInstance, table: ManagedClass, key: lar_objkey) {
        self.realm = realm
        instanceRef = Unmanaged.passUnretained(realm)
        generation = realm.generation
        tableRef = Unmanaged.passUnretained(table)
        self.key = key
        invalidated = false
        values = []
    }
}

/// Hands the core of the object under construction to its `@Persisted` wrappers.
///
/// Swift initializes a subclass's stored properties before `Object.init` runs, in
/// declaration order; the first wrapper creates the core, the others join it,
/// and `Object.init` takes it. The slot is per thread, since objects are built
/// on many threads at once.
@usableFromInline
enum Construction {
    /// The core that the wrapper being initialized belongs to.
    @usableFromInline
    static func current() -> Unmanaged<ObjectCore> {
        if let pointer = larder_swift_construction_get() { return Unmanaged<ObjectCore>.fromOpaque(pointer) }
        let core = ObjectCore()
        core.values.reserveCapacity(16) // most models: one allocation, not five
        let retained = Unmanaged.passRetained(core)
        larder_swift_construction_set(retained.toOpaque())
        return retained
    }

    /// Takes the finished core for `Object.init`; a class without properties gets a fresh one.
    static func take() -> ObjectCore {
        guard let pointer = larder_swift_construction_get() else { return ObjectCore() }
        larder_swift_construction_set(nil)
        return Unmanaged<ObjectCore>.fromOpaque(pointer).takeRetainedValue()
    }
}
