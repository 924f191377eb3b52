import CLarder

/// An object of any class the file stores, read and written by property name, as
/// Realm's `DynamicObject`: `realm.dynamicObjects("Dog")`, a link in an
/// `AnyRealmValue` to a class this program does not declare (one another program
/// added to the file), or `AnyRealmValue.dynamicObject`.
///
///     let dog = realm.dynamicObjects("Dog").first!
///     print(dog.name as! String, dog["age"] as! Int)
///     try realm.write { dog.age = 3 }
///
/// Values read as `Any?`: the property's Swift value (`Int`, `String`, `Date`..., nil
/// for a null), a `DynamicObject` for a link, `List<DynamicObject>`,
/// `MutableSet<DynamicObject>` and `Map<String, DynamicObject?>` for collections of
/// links, and `List<Int>`, `MutableSet<String?>`, `Map<String, AnyRealmValue>`... for
/// collections of values. A dynamic object is always managed.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The value of the property named member, as `self[member]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// An unmanaged dynamic object is one a value described for a property of a
    /// dynamic object (an embedded one, created in place once its owner is written):
    /// its class and values, in slot order, until it is managed.
    var unmanagedSchema: ClassSchema?
    var unmanagedStore = ContiguousArray<_StoredValue>()

    static func unmanaged(_ schema: ClassSchema, values: ContiguousArray<_StoredValue>) -> DynamicObject {
        let object = DynamicObject()
        object.unmanagedSchema = schema
        object.unmanagedStore = values
        return object
    }

    func didBecomeManaged() {
        unmanagedSchema = nil
        unmanagedStore = []
    }
}

extension Object {
    /// The list of objects property propertyName holds, its elements read as
    /// dynamic objects, as Realm's; traps when the property is not a list of objects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        dynamicCollection(propertyName, LAR_COLLECTION_LIST, "List")
    }

    /// The same for a set of objects.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        dynamicCollection(propertyName, LAR_COLLECTION_SET, "MutableSet")
    }

    /// The same for a map of objects.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        dynamicCollection(propertyName, LAR_COLLECTION_MAP, "Map")
    }

    private func dynamicCollection<C: _LarderCollection>(_ name: String, _ kind: lar_collection, _ kindName: String) -> C {
        let schema = objectClassSchema
        guard let slot = schema.slotByName[name] else {
            fatalError("Invalid property name '\(name)' for class '\(schema.name)'.")
        }
        let property = schema.properties[slot]
        guard property.collection == kind, property.targetClassName != nil, !property.isMixed else {
            fatalError("Property '\(schema.name).\(name)' is not a \(kindName) of objects")
        }
        guard let realm = core.realm else {
            fatalError("Only managed objects give their collections as collections of dynamic objects")
        }
        realm.verifyThread()
        if realm.isInvalidated(core) { fatalError("Object has been deleted or invalidated.") }
        return C.managed(realm: realm, owner: core, slot: slot)
    }
}

extension Realm {
    /// Every object of the class named typeName, as live results of dynamic
    /// objects, which filter, sort and aggregate as any results.
    public func dynamicObjects(_ typeName: String) -> Results<DynamicObject> {
        let table = instance.dynamicTable(named: typeName)
        if table.schema.isEmbedded {
            fatalError("Embedded objects cannot be queried directly: '\(typeName)' is embedded; query its owners")
        }
        return Results(instance: instance, table: table, sort: [])
    }

    /// The object of the class named typeName with primary key key, or nil.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        let table = instance.dynamicTable(named: typeName)
        return instance.object(in: table, primaryKey: (key as? any _Persistable)?._larderStored, key: { key })
            .map { unsafeDowncast($0, to: DynamicObject.self) }
    }

    /// Creates an object of the class named typeName from value (a dictionary, an
    /// array in property order, or an object), as `create(_:value:update:)` does.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](),
                              update: UpdatePolicy = .error) -> DynamicObject {
        instance.requireWrite()
        return unsafeDowncast(instance.createObject(in: instance.dynamicTable(named: typeName), value: value,
                                                    update: update), to: DynamicObject.self)
    }
}

extension AnyRealmValue {
    /// The object this value links to, as a dynamic object (whatever its class); nil for other values.
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        if let dynamic = object as? DynamicObject { return dynamic }
        guard let instance = object.core.realm, let table = object.core.table else { return nil }
        return instance.dynamicAccessor(lar_obj(cls: table.id, key: object.core.key))
    }
}
