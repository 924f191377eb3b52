import CLarder
import Foundation

/// Turns the `value:` argument of `Object(value:)` and `Realm.create` into property values.
enum ValueReader {
    /// Where `Realm.create` puts the objects nested in its value: they are
    /// created (or updated) in that Realm with the same policy, where
    /// `Object(value:)` makes them unmanaged objects.
    struct Creating {
        let instance: RealmInstance
        let update: Realm.UpdatePolicy

        func createNested(_ type: Object.Type, value: Any) -> Object {
            instance.createObject(type, value: value, update: instance.nestedPolicy(update, for: type))
        }
    }

    /// The properties value names, by slot. A dictionary names some, an array the
    /// first few in property order, an object all of its own that the class shares.
    static func read(_ value: Any, schema: ClassSchema, creating: Creating? = nil) -> [(Int, _StoredValue)] {
        let checked = { (item: Any?, property: PropertySchema) -> _StoredValue in Self.checked(item, property, creating) }
        // A [String: Any] as it is: casting it to [String: Any?] converts every entry (a third of the
        // time of `Object(value:)` before). Only that exact type: a [String: Any?] would cast to it too,
        // each nil then wrapped in an Any instead of read as nil.
        if type(of: value) == [String: Any].self, let dictionary = value as? [String: Any] {
            return dictionary.compactMap { name, item in
                schema.slotByName[name].map { ($0, checked(item, schema.properties[$0])) }
            }
        }
        if let dictionary = value as? [String: Any?] {
            return dictionary.compactMap { name, item in
                schema.slotByName[name].map { ($0, checked(item, schema.properties[$0])) }
            }
        }
        if let array = value as? [Any?] {
            if array.count > schema.properties.count {
                fatalError("Invalid array input: more values (\(array.count)) than properties (\(schema.properties.count)).")
            }
            // In the order Realm lists the properties: a superclass's first.
            return array.enumerated().map { position, item in
                let slot = schema.storedOrder[position]
                return (slot, checked(item, schema.properties[slot]))
            }
        }
        if let object = value as? Object {
            let source = object.objectClassSchema
            return source.properties.enumerated().compactMap { sourceSlot, property in
                schema.slotByName[property.name].map { ($0, checked(object.stored(slot: sourceSlot), schema.properties[$0])) }
            }
        }
        fatalError("Invalid value '\(value)' to initialize object of type '\(schema.name)': " +
                   "expected a dictionary, an array or an object")
    }

    private static func checked(_ item: Any?, _ property: PropertySchema, _ creating: Creating?) -> _StoredValue {
        if let stored = item as? _StoredValue, let value = convert(stored.anyValue, to: property, creating) { return value }
        guard let value = convert(item, to: property, creating) else {
            fatalError("Invalid value '\(item.map { "\($0)" } ?? "nil")' of type " +
                       "'\(item.map { "\(type(of: $0))" } ?? "nil")' for '\(property.name)' property")
        }
        return value
    }

    /// The stored form of item for property, or nil when it has the wrong type
    /// or is not one of the property's values (out of an integer's range, not
    /// one of an enum's raw values).
    static func convert(_ item: Any?, to property: PropertySchema, _ creating: Creating? = nil) -> _StoredValue? {
        if property.isCollection { return collection(item, to: property, creating) }
        if property.type == LAR_TYPE_MIXED { return mixed(item, creating) }
        guard let item, !isNull(item) else { return property.isOptional ? .null : nil }
        if let name = property.dynamicTarget { return dynamicLink(item, to: name, creating) }
        if let target = property.targetClass {
            // A custom type stored as an embedded object gives that object.
            if !(item is Object), let custom = item as? any _CustomPersistable,
               case .object(let object) = custom._larderStored {
                return link(object, to: target, property, creating)
            }
            return link(item, to: target, property, creating)
        }
        // Swift values first: on Linux an Int in an Any also casts to NSNumber.
        if let persistable = (item as? any _Persistable) ?? unwrap(item) {
            return coerce(persistable._larderStored, to: property)
        }
        guard let number = item as? NSNumber, let stored = NumberReader.stored(number, for: property.type) else { return nil }
        return coerce(stored, to: property)
    }

    /// Whether item is NSNull. `is NSNull` would bridge a Swift value (an Int, a String) to a
    /// Foundation object first: a tenth of the time of `Object(value:)`.
    private static func isNull(_ item: Any) -> Bool {
        guard type(of: item) is AnyClass else { return false }
        return item is NSNull
    }

    /// An unmanaged collection from a collection, an array (a list or set), or
    /// a dictionary (a map); nil or NSNull gives an empty one, as in Realm.
    private static func collection(_ item: Any?, to property: PropertySchema, _ creating: Creating?) -> _StoredValue? {
        guard let type = property.valueType as? _LarderCollection.Type else { return nil }
        let made = type.init()
        let element = PropertySchema(name: property.name, valueType: type.elementType, isPrimaryKey: false, isIndexed: false,
                                     dynamicTarget: property.dynamicTarget)
        let convert = { (item: Any?) in Self.convert(item, to: element, creating) }
        switch item {
        case nil, is NSNull:
            break
        case let source as _LarderCollection:
            guard let elements = Optional(source.storedElements().map { convert($0.anyValue) }),
                  !elements.contains(where: { $0 == nil }) else { return nil }
            made.setUnmanaged(elements.map { $0! }, keys: source.storedKeys())
        case let dictionary as [String: Any?] where property.collection == LAR_COLLECTION_MAP:
            let entries = dictionary.sorted { $0.key < $1.key }
            let values = entries.map { convert($0.value) }
            if values.contains(where: { $0 == nil }) { return nil }
            made.setUnmanaged(values.map { $0! }, keys: entries.map(\.key))
        case let set as Set<AnyHashable> where property.collection == LAR_COLLECTION_SET:
            let values = set.map { convert($0.base) }
            if values.contains(where: { $0 == nil }) { return nil }
            made.setUnmanaged(values.map { $0! }, keys: nil)
        case let array as [Any?] where property.collection != LAR_COLLECTION_MAP:
            let values = array.map(convert)
            if values.contains(where: { $0 == nil }) { return nil }
            made.setUnmanaged(values.map { $0! }, keys: nil)
        default:
            return nil
        }
        return .collection(made)
    }

    /// A link's target given as an object, a dictionary or an array: when
    /// creating, copied into the Realm unless it is already one of its objects.
    private static func link(_ item: Any, to target: Object.Type, _ property: PropertySchema,
                             _ creating: Creating?) -> _StoredValue? {
        if let object = item as? Object {
            guard property.valueType._larderFrom(.object(object)) != nil else { return nil }
            if creating != nil, target is EmbeddedObject.Type { // copied in place, as Realm's create copies them
                let copy = target.init()
                for (slot, stored) in read(object, schema: target.schema) { copy.setUnmanagedValue(stored, slot: slot) }
                return .object(copy)
            }
            guard let creating, object.core.realm !== creating.instance else { return .object(object) }
            return .object(creating.createNested(target, value: object))
        }
        guard item is [String: Any?] || item is [Any?] else { return nil }
        if let creating, !(target is EmbeddedObject.Type) { return .object(creating.createNested(target, value: item)) }
        let object = target.init()
        for (slot, stored) in read(item, schema: target.schema) { object.setUnmanagedValue(stored, slot: slot) }
        return .object(object)
    }

    /// stored, converted to the property's type where Realm converts (int to
    /// double...), or nil when it is not one of the property's values.
    static func coerce(_ stored: _StoredValue, to property: PropertySchema) -> _StoredValue? {
        guard let converted = convertType(stored, to: property),
              converted == .null || property.valueType._larderFrom(converted) != nil else { return nil }
        return converted
    }

    private static func convertType(_ stored: _StoredValue, to property: PropertySchema) -> _StoredValue? {
        switch (stored, property.type) {
        case (.null, _): return property.isOptional ? .null : nil
        case (.int, LAR_TYPE_INT), (.bool, LAR_TYPE_BOOL), (.float, LAR_TYPE_FLOAT), (.double, LAR_TYPE_DOUBLE),
             (.string, LAR_TYPE_STRING), (.data, LAR_TYPE_BINARY), (.date, LAR_TYPE_TIMESTAMP),
             (.objectId, LAR_TYPE_OBJECT_ID), (.uuid, LAR_TYPE_UUID), (.decimal128, LAR_TYPE_DECIMAL128),
             (.object, LAR_TYPE_LINK):
            return stored
        case (.int(let v), LAR_TYPE_DOUBLE): return .double(Double(v))
        case (.int(let v), LAR_TYPE_FLOAT): return .float(Float(v))
        case (.double(let v), LAR_TYPE_FLOAT): return .float(Float(v))
        case (.float(let v), LAR_TYPE_DOUBLE): return .double(Double(v))
        default: return nil
        }
    }

    /// Looks through an optional of a non-persistable type wrapped in an `Any` (rare: slow).
    private static func unwrap(_ item: Any) -> (any _Persistable)? {
        let mirror = Mirror(reflecting: item)
        guard mirror.displayStyle == .optional else { return nil }
        guard let wrapped = mirror.children.first?.value else { return Optional<Int>.none }
        return (wrapped as? any _Persistable) ?? unwrap(wrapped)
    }
}

extension ValueReader {
    /// A link of a `DynamicObject`'s class to the class named name: an object of
    /// that class (dynamic or of a model class), or when creating a dictionary or
    /// an array its new object is made from. Nil for anything else.
    fileprivate static func dynamicLink(_ item: Any, to name: String, _ creating: Creating?) -> _StoredValue? {
        if let object = item as? Object {
            guard object.objectClassSchema.name == name else { return nil }
            guard let creating, object.core.realm !== creating.instance, !(object is DynamicObject) else {
                return .object(object)
            }
            return .object(creating.createNested(type(of: object), value: object))
        }
        guard let creating, item is [String: Any?] || item is [Any?] else { return nil }
        let table = creating.instance.dynamicTable(named: name)
        if table.schema.isEmbedded { // created in place once its owner is written, as a model class's
            let named = read(item, schema: table.schema, creating: creating)
            var values = table.schema.dynamicDefaults(named)
            for (slot, value) in named { values[slot] = value }
            return .object(DynamicObject.unmanaged(table.schema, values: values))
        }
        let update = table.schema.primaryKeySlot == nil ? .error : creating.update
        return .object(creating.instance.createObject(in: table, value: item, update: update))
    }
}
