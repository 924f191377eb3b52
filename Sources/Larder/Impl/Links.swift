import CLarder

/// An `Object?` property is a link: `@Persisted var favoriteToy: DogToy?`.
/// The stored value of an object is the object itself; it becomes a C link
/// (class, key) once the object is managed.
extension Object: _Persistable {
    public static var _larderType: lar_type { LAR_TYPE_LINK }
    public static var _larderTargetClass: Object.Type? { self }
    /// Unused: a link property is optional (the file refuses a required one), so it starts at nil.
    public static func _larderDefault() -> Self { self.init() }
    public static func _larderFrom(_ value: _StoredValue) -> Self? {
        if case .object(let object) = value { return object as? Self }
        return nil
    }
    public static func _larderRead(_ value: lar_value) -> Self {
        fatalError("A link is read through its Realm")
    }
    public static func _larderRead(_ value: lar_value, owner: AnyObject) -> Self {
        guard let read = _larderReadIfValid(value, owner: owner) else { fatalError("A required link is null") }
        return read
    }
    public static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> Self? {
        guard value.type == LAR_TYPE_LINK else { return nil }
        let instance = unsafeDowncast(owner, to: RealmInstance.self)
        return unsafeDowncast(instance.linkTarget(self, key: value.as.link.key), to: self)
    }
    public var _larderStored: _StoredValue { .object(self) }
}

extension RealmInstance {
    /// An accessor of the object a link of a property typed `type` points to.
    func linkTarget(_ type: Object.Type, key: lar_objkey) -> Object {
        accessor(table(for: type), key: key)
    }

    /// The policy for an object nested in one added or created with update: as
    /// Realm, one of a class without a primary key is created, never updated.
    func nestedPolicy(_ update: Realm.UpdatePolicy, for type: Object.Type) -> Realm.UpdatePolicy {
        ClassSchema.of(type).primaryKeySlot == nil ? .error : update
    }

    /// Makes object linkable from this Realm: an unmanaged one is added with
    /// policy (recursively), one of this Realm is linked as it is. False when
    /// adding it failed (the write's error is recorded).
    func makeLinkable(_ object: Object, update: Realm.UpdatePolicy, checkingRow: Bool = true) -> Bool {
        let core = object.core
        guard let owner = core.realm else {
            add(object, update: nestedPolicy(update, for: type(of: object)))
            return object.core.realm != nil
        }
        if owner !== self {
            fatalError("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        if checkingRow ? !exists(core) : isInvalidated(core) { deletedTargetTrap() }
        return true
    }

    /// Realm's trap for a link to a deleted or invalidated object.
    func deletedTargetTrap() -> Never {
        fatalError("Adding a deleted or invalidated object to a Realm is not permitted")
    }
}
