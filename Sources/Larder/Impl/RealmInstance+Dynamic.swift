import CLarder

/// The object store for `DynamicObject`: the tables of classes read by name,
/// whatever model classes this program declares.
extension RealmInstance {
    /// The table that reads stored class name dynamically; Realm's trap when the file has no such class.
    /// Any class of the file, as `realm.schema` lists them all, whatever the configuration's objectTypes.
    func dynamicTable(named name: String) -> ManagedClass {
        verifyThread()
        var id = lar_class()
        if lar_class_find(environment.handle, name, &id) != LAR_OK { Self.trapNotManaged(name) }
        return dynamicTable(id: id)
    }

    /// The table that reads stored class id dynamically.
    func dynamicTable(id: lar_class) -> ManagedClass {
        verifyThread()
        return serialized {
            classes.dynamicTable(id) {
                guard let schema = ClassSchema.dynamic(stored: id, in: environment.handle) else {
                    fatalCoreError(LAR_EINVAL, "Cannot read the schema of class \(id)")
                }
                return makeTable(schema) { id }
            }
        }
    }

    /// The table an unmanaged object is added to: its model class's, or an unmanaged dynamic object's class.
    func table(of object: Object) -> ManagedClass {
        if _slowPath(type(of: object) == DynamicObject.self) {
            guard let schema = unsafeDowncast(object, to: DynamicObject.self).unmanagedSchema else {
                fatalError("A DynamicObject is read from a Realm; create objects with dynamicCreate(_:value:update:)")
            }
            return dynamicTable(named: schema.name)
        }
        return table(for: type(of: object))
    }

    /// This instance's table for the class table reads in another instance of the file.
    func table(like table: ManagedClass) -> ManagedClass {
        table.schema.isDynamic ? dynamicTable(named: table.schema.name) : self.table(for: table.schema.type)
    }

    /// The table of the objects a link property points to.
    func targetTable(of property: PropertySchema) -> ManagedClass {
        if let name = property.dynamicTarget { return dynamicTable(named: name) }
        guard let target = property.targetClass else { fatalError("'\(property.name)' is not a link") }
        return table(for: target)
    }

    /// A `DynamicObject` of the object link points to.
    func dynamicAccessor(_ link: lar_obj) -> DynamicObject {
        unsafeDowncast(accessor(dynamicTable(id: link.cls), key: link.key), to: DynamicObject.self)
    }
}
