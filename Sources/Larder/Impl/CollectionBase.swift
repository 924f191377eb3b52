import CLarder

/// What List, MutableSet and Map share without their element type: how adding
/// an object copies an unmanaged collection in, and how the instance itself then
/// becomes managed. Not part of the API.
open class _LarderCollection: Hashable, CustomStringConvertible {
    required public init() {}

    /// As Realm's collections: managed ones are equal when bound to the same
    /// collection in the same Realm (two reads of one property or nested
    /// collection); an unmanaged one only to itself. Contents are not compared.
    public static func == (lhs: _LarderCollection, rhs: _LarderCollection) -> Bool {
        if lhs === rhs { return true }
        guard let a = lhs.ref, let b = rhs.ref, type(of: lhs) == type(of: rhs) else { return false }
        return a.instance === b.instance && a.owner.cls == b.owner.cls && a.owner.key == b.owner.key &&
            a.prop == b.prop && a.nested == b.nested
    }

    public func hash(into hasher: inout Hasher) {
        guard let ref else { return hasher.combine(ObjectIdentifier(self)) }
        hasher.combine(ObjectIdentifier(ref.instance))
        hasher.combine(ref.owner.cls)
        hasher.combine(ref.owner.key)
        hasher.combine(ref.prop)
        hasher.combine(ref.nested)
    }
    open var description: String { describe(depth: 0) }
    /// The description inside another one, depth levels down.
    func describe(depth: Int) -> String { fatalError("abstract") }

    /// The element type, for converting `Object(value:)` input.
    class var elementType: any _Persistable.Type { fatalError("abstract") }

    /// The binding to an owner's row once managed; nil while unmanaged.
    @usableFromInline final var ref: CollectionRef?

    /// The elements, in order (a map: its values, see `unmanagedKeys`).
    func storedElements() -> [_StoredValue] { fatalError("abstract") }
    /// A map's keys, matching `storedElements()`; nil for lists and sets.
    func storedKeys() -> [String]? { nil }
    /// Replaces the unmanaged contents (keys: a map's, ignored by lists and sets).
    func setUnmanaged(_ elements: [_StoredValue], keys: [String]?) { fatalError("abstract") }
    /// Drops the unmanaged contents: the collection now reads its owner's row.
    func bind(_ ref: CollectionRef) {
        self.ref = ref
        setUnmanaged([], keys: [])
    }

    // What each collection's `_Persistable` conformance shares.

    /// The collection a stored value holds, if it is one of this type.
    static func fromStored(_ value: _StoredValue) -> Self? {
        if case .collection(let collection) = value { return collection as? Self }
        return nil
    }

    /// A new instance bound to the collection in owner's row at slot.
    static func managed(realm: AnyObject, owner: AnyObject, slot: Int) -> Self {
        let collection = Self()
        collection.ref = CollectionRef(instance: unsafeDowncast(realm, to: RealmInstance.self),
                                       owner: unsafeDowncast(owner, to: ObjectCore.self), slot: slot)
        return collection
    }

    public var _larderStored: _StoredValue { .collection(self) }

    /// The same managed collection in another instance of the file (frozen, thawed,
    /// resolved on another thread); nil when its owner is gone there.
    func rebound(to instance: RealmInstance) -> Self? {
        guard let ref else { return nil }
        if ref.instance === instance { return self }
        if ref.nested != 0 { return Self.nested(like: ref, in: instance) }
        guard let owner = instance.counterpart(of: ref.ownerTable, key: ref.owner.key,
                                               stamp: ref.ownerStamp) else { return nil }
        return Self.managed(realm: instance, owner: owner.core, slot: ref.slot)
    }
}
