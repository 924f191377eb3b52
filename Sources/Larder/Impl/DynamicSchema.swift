import CLarder
import Foundation

/// The schema `DynamicObject` reads a class of the file with: built from the
/// file's catalog, not from a model class, so any class the file stores can be
/// read, also one that no class of this program declares.
extension ClassSchema {
    /// Class cls of the file at env; nil when env has no such class.
    static func dynamic(stored cls: lar_class, in env: OpaquePointer) -> ClassSchema? {
        var info = lar_class_info()
        guard lar_class_info_get(env, cls, &info) == LAR_OK, let cName = info.name else { return nil }
        var properties: [PropertySchema] = []
        var embeddedLink: [Bool] = []
        for index in 0..<info.property_count {
            var def = lar_property_def()
            guard lar_property_info_get(env, cls, index, &def) == LAR_OK, let name = def.name else { return nil }
            // Linking objects are computed: a dynamic object does not read them.
            if def.type == LAR_TYPE_LINKING_OBJECTS { continue }
            let target = def.type == LAR_TYPE_LINK ? def.target_class.map { String(cString: $0) } : nil
            guard let valueType = dynamicValueType(def) else { return nil }
            properties.append(PropertySchema(name: String(cString: name), valueType: valueType,
                                             isPrimaryKey: def.flags & LAR_PROP_PRIMARY_KEY != 0,
                                             isIndexed: def.flags & LAR_PROP_INDEXED != 0,
                                             isCascading: def.flags & LAR_PROP_CASCADE != 0, dynamicTarget: target))
            embeddedLink.append(target.map { isEmbedded(class: $0, in: env) } ?? false)
        }
        return ClassSchema(dynamic: properties, name: String(cString: cName),
                           isEmbedded: info.flags & LAR_CLASS_EMBEDDED != 0, embeddedLink: embeddedLink)
    }

    private static func isEmbedded(class name: String, in env: OpaquePointer) -> Bool {
        var id = lar_class()
        var info = lar_class_info()
        return lar_class_find(env, name, &id) == LAR_OK && lar_class_info_get(env, id, &info) == LAR_OK &&
            info.flags & LAR_CLASS_EMBEDDED != 0
    }

    /// The Swift type a model class would declare for a stored property: `Int`,
    /// `String?`, `List<Int>`..., and for links `DynamicObject?`, `List<DynamicObject>`,
    /// `MutableSet<DynamicObject>` and `Map<String, DynamicObject?>`, as Realm's dynamic API.
    private static func dynamicValueType(_ def: lar_property_def) -> (any _Persistable.Type)? {
        let optional = def.flags & LAR_PROP_OPTIONAL != 0
        func shaped<T: _Persistable>(_ type: T.Type) -> any _Persistable.Type {
            switch def.collection {
            case LAR_COLLECTION_LIST: return optional ? List<T?>.self : List<T>.self
            case LAR_COLLECTION_SET: return optional ? MutableSet<T?>.self : MutableSet<T>.self
            case LAR_COLLECTION_MAP: return optional ? Map<String, T?>.self : Map<String, T>.self
            default: return optional ? T?.self : T.self
            }
        }
        switch def.type {
        case LAR_TYPE_INT: return shaped(Int.self)
        case LAR_TYPE_BOOL: return shaped(Bool.self)
        case LAR_TYPE_FLOAT: return shaped(Float.self)
        case LAR_TYPE_DOUBLE: return shaped(Double.self)
        case LAR_TYPE_STRING: return shaped(String.self)
        case LAR_TYPE_BINARY: return shaped(Data.self)
        case LAR_TYPE_TIMESTAMP: return shaped(Date.self)
        case LAR_TYPE_OBJECT_ID: return shaped(ObjectId.self)
        case LAR_TYPE_UUID: return shaped(UUID.self)
        case LAR_TYPE_DECIMAL128: return shaped(Decimal128.self)
        case LAR_TYPE_MIXED:
            switch def.collection {
            case LAR_COLLECTION_LIST: return List<AnyRealmValue>.self
            case LAR_COLLECTION_SET: return MutableSet<AnyRealmValue>.self
            case LAR_COLLECTION_MAP: return Map<String, AnyRealmValue>.self
            default: return AnyRealmValue.self
            }
        case LAR_TYPE_LINK:
            switch def.collection {
            case LAR_COLLECTION_LIST: return List<DynamicObject>.self
            case LAR_COLLECTION_SET: return MutableSet<DynamicObject>.self
            case LAR_COLLECTION_MAP: return Map<String, DynamicObject?>.self
            default: return DynamicObject?.self
            }
        default: return nil
        }
    }
}

extension ClassSchema {
    /// The values of a new dynamic object before named ones (slot, value) apply:
    /// Realm's defaults for each type (0, "", false, nil, empty collections). A
    /// primary key must be named: Realm's trap when it is not.
    func dynamicDefaults(_ named: [(Int, _StoredValue)]) -> ContiguousArray<_StoredValue> {
        if let pk = primaryKeySlot, !named.contains(where: { $0.0 == pk }), !properties[pk].isOptional {
            fatalError("Missing value for property '\(name).\(properties[pk].name)'")
        }
        return ContiguousArray(properties.map { $0.valueType._larderDefault()._larderStored })
    }
}
