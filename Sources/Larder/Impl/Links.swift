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
    /// owner: the Realm instance, or the core of the object whose property this is
    /// (`RealmInstance.read`), which keeps the accessor for the next read.
    public static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> Self? {
        guard value.type == LAR_TYPE_LINK else { return nil }
        if type(of: owner) == ObjectCore.self {
            let parent = unsafeDowncast(owner, to: ObjectCore.self)
            return parent.instanceRef.unsafelyUnwrapped._withUnsafeGuaranteedRef {
                if let reused = $0.rebindParkedLink(of: parent, to: value.as.link.key, type: self,
                                                    table: $0.classes.lastLinkTable) {
                    return unsafeDowncast(reused, to: self)
                }
                return unsafeDowncast($0.linkTarget(self, link: value.as.link, parent: parent), to: self)
            }
        }
        let instance = unsafeDowncast(owner, to: RealmInstance.self)
        return unsafeDowncast(instance.linkTarget(self, link: value.as.link), to: self)
    }
    public var _larderStored: _StoredValue { .object(self) }
}

extension RealmInstance {
    /// An accessor of the object a link of a property typed `type` points to; a
    /// `DynamicObject` reads the class the link names.
    func linkTarget(_ type: Object.Type, link: lar_obj) -> Object {
        if _slowPath(type == DynamicObject.self) { return dynamicAccessor(link) }
        if _slowPath(isFrozen) { return accessor(table(for: type), key: link.key) }
        return linkTable(for: type)._withUnsafeGuaranteedRef { accessor($0, key: link.key) }
    }

    /// The same, for a link read from parent's row. The accessor parent's last link read
    /// returned (`parkedLink`) is rebound when nothing else holds it (as a results
    /// iterator rebinds its previous object): `person.address` in a loop then allocates
    /// no accessor per person. Collections and linking objects read from an accessor copy
    /// its key, so rebinding it moves nothing they hold; like the iterator's, the check
    /// counts strong references only. A frozen instance's objects are shared by threads,
    /// so none of them may rebind an accessor another just let go of.
    func linkTarget(_ type: Object.Type, link: lar_obj, parent: ObjectCore) -> Object {
        if _slowPath(type == DynamicObject.self || isFrozen) { return linkTarget(type, link: link) }
        let table = linkTable(for: type)
        if let reused = rebindParkedLink(of: parent, to: link.key, type: type, table: table) { return reused }
        let object = table._withUnsafeGuaranteedRef { accessor($0, key: link.key) }
        parent.parkedLink = object
        return object
    }

    /// The accessor parent's last link read returned, rebound to key when it is of type,
    /// nothing else holds it and its table is table (type's); nil otherwise. A property
    /// read tries it first with the table the last link read resolved, inlined (`Object.
    /// _larderReadIfValid`), before `linkTarget` resolves type's table: the read that found
    /// the link checked the thread, which `linkTable(for:)` asks again. Callgrind, a scan
    /// reading each person's address: 2,302 to 2,258 instructions a person. A frozen
    /// instance's objects park none.
    @inline(__always)
    func rebindParkedLink(of parent: ObjectCore, to key: lar_objkey, type: Object.Type,
                          table: Unmanaged<ManagedClass>?) -> Object? {
        guard isKnownUniquelyReferenced(&parent.parkedLink) else { return nil }
        let reused = parent.parkedLink.unsafelyUnwrapped
        guard Swift.type(of: reused) == type, let table,
              reused.core.tableRef.unsafelyUnwrapped.toOpaque() == table.toOpaque(),
              !isInvalidated(reused.core) else { return nil }
        reused.core.rebind(to: key)
        return reused
    }

    /// The policy for an object nested in one added or created with update: as
    /// Realm, one of a class without a primary key is created, never updated.
    func nestedPolicy(_ update: Realm.UpdatePolicy, for type: Object.Type) -> Realm.UpdatePolicy {
        ClassSchema.of(type).primaryKeySlot == nil ? .error : update
    }

    /// Makes object linkable from this Realm: an unmanaged one is added with
    /// policy (recursively), one of this Realm is linked as it is. False when
    /// adding it failed (the write's error is recorded).
    ///
    /// checkingExistence false skips asking the file whether a managed object of
    /// this Realm still exists (one random lookup per link): the C call that then
    /// links it refuses a target that is gone (LAR_EINVAL), and the caller passes
    /// that result to `trapIfUnlinkable`, which traps as this would have.
    func makeLinkable(_ object: Object, update: Realm.UpdatePolicy, checkingExistence: Bool = true) -> Bool {
        let core = object.core
        guard let owner = core.realm else {
            add(object, update: nestedPolicy(update, for: type(of: object)))
            return object.core.realm != nil
        }
        if owner !== self {
            fatalError("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        if checkingExistence ? !exists(core) : isInvalidated(core) { trapLinkingDeleted() }
        return true
    }

    /// After a C call that links object (made linkable with checkingExistence
    /// false) failed with rc: traps as makeLinkable would have, had object been
    /// deleted (before any other trap the failure leads to, as before the call).
    func trapIfUnlinkable(_ object: Object, _ rc: Int32) {
        if rc != LAR_OK, object.core.realm === self, !exists(object.core) { trapLinkingDeleted() }
    }

    private func trapLinkingDeleted() -> Never {
        fatalError("Adding a deleted or invalidated object to a Realm is not permitted")
    }
}
