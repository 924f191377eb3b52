import CLarder

/// How a Swift model class differs from its class as stored in a file, in the
/// words of Realm's migration errors.
struct SchemaDifferences {
    private(set) var messages: [String] = []

    var isEmpty: Bool { messages.isEmpty }

    /// Compares schema with the stored class id of the environment handle.
    init(_ schema: ClassSchema, stored id: lar_class, in handle: OpaquePointer) {
        var info = lar_class_info()
        guard lar_class_info_get(handle, id, &info) == LAR_OK else { return }
        let stored = (0..<info.property_count).compactMap { index -> lar_property_def? in
            var def = lar_property_def()
            return lar_property_info_get(handle, id, index, &def) == LAR_OK ? def : nil
        }
        let storedByName = Dictionary(stored.map { (String(cString: $0.name), $0) }, uniquingKeysWith: { first, _ in first })
        let name = schema.name
        for property in schema.properties {
            if let old = storedByName[property.name] {
                compare(old, property, in: name)
            } else {
                messages.append("Property '\(name).\(property.name)' has been added.")
            }
        }
        for old in stored where schema.slotByName[String(cString: old.name)] == nil {
            messages.append("Property '\(name).\(String(cString: old.name))' has been removed.")
        }
        comparePrimaryKeys(stored: info.primary_key >= 0 ? String(cString: stored[Int(info.primary_key)].name) : nil,
                           declared: schema.primaryKeySlot.map { schema.properties[$0].name }, in: name)
    }

    private mutating func compare(_ old: lar_property_def, _ new: PropertySchema, in className: String) {
        let property = "Property '\(className).\(new.name)'"
        let oldTarget = old.target_class.map { String(cString: $0) }
        let newTarget = new.targetClass?.className()
        if old.type != new.type || old.collection != new.collection || oldTarget != newTarget {
            let was = Self.typeName(old.type, old.collection, oldTarget)
            let now = Self.typeName(new.type, new.collection, newTarget)
            messages.append("\(property) has been changed from '\(was)' to '\(now)'.")
            return
        }
        let wasOptional = old.flags & LAR_PROP_OPTIONAL != 0
        if wasOptional != new.isOptional {
            messages.append("\(property) has been made \(new.isOptional ? "optional" : "required").")
        }
        let wasIndexed = old.flags & LAR_PROP_INDEXED != 0
        let isIndexed = new.isIndexed && !new.isPrimaryKey
        if wasIndexed != isIndexed {
            messages.append("\(property) has been made \(isIndexed ? "indexed" : "unindexed").")
        }
        let wasCascading = old.flags & LAR_PROP_CASCADE != 0
        if wasCascading != new.isCascading {
            messages.append("\(property) has been made \(new.isCascading ? "cascading" : "non-cascading").")
        }
    }

    /// A property's type as Realm's messages name it: 'int', '<Dog>', 'array<int>'.
    private static func typeName(_ type: lar_type, _ collection: lar_collection, _ target: String?) -> String {
        let element = target.map { "<\($0)>" } ?? type.realmName
        switch collection {
        case LAR_COLLECTION_LIST: return "array\(target == nil ? "<\(element)>" : element)"
        case LAR_COLLECTION_SET: return "set\(target == nil ? "<\(element)>" : element)"
        case LAR_COLLECTION_MAP: return "dictionary<string, \(target ?? element)>"
        default: return element
        }
    }

    private mutating func comparePrimaryKeys(stored: String?, declared: String?, in className: String) {
        switch (stored, declared) {
        case let (nil, new?):
            messages.append("Property '\(className).\(new)' has been made a primary key.")
        case (_?, nil):
            messages.append("Primary Key for class '\(className)' has been removed.")
        case let (old?, new?) where old != new:
            messages.append("Primary Key for class '\(className)' has changed from '\(old)' to '\(new)'.")
        default:
            break
        }
    }

    /// Realm's error for differences found in one or more classes.
    static func migrationRequired(_ messages: [String]) -> Realm.Error {
        Realm.Error(.schemaMismatch, "Migration is required due to the following errors:" +
                    messages.map { "\n- \($0)" }.joined())
    }
}

extension lar_type {
    /// The type's name in Realm's messages.
    var realmName: String {
        switch self {
        case LAR_TYPE_INT: return "int"
        case LAR_TYPE_BOOL: return "bool"
        case LAR_TYPE_FLOAT: return "float"
        case LAR_TYPE_DOUBLE: return "double"
        case LAR_TYPE_STRING: return "string"
        case LAR_TYPE_BINARY: return "data"
        case LAR_TYPE_TIMESTAMP: return "date"
        case LAR_TYPE_OBJECT_ID: return "object id"
        case LAR_TYPE_UUID: return "uuid"
        case LAR_TYPE_DECIMAL128: return "decimal128"
        case LAR_TYPE_LINK: return "object"
        case LAR_TYPE_MIXED: return "mixed"
        case LAR_TYPE_LINKING_OBJECTS: return "linking objects"
        default: return "unknown"
        }
    }
}
