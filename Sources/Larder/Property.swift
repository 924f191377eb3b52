import CLarder

/// The type of a property's value (of its elements, for a collection), as Realm's
/// `PropertyType`; the raw values are Realm's.
public enum PropertyType: Int, CustomStringConvertible, Sendable {
    case int = 0
    case bool = 1
    case float = 5
    case double = 6
    case string = 2
    case data = 3
    case any = 9
    case date = 4
    case object = 7
    case linkingObjects = 8
    case objectId = 10
    case decimal128 = 11
    case uuid = 12

    /// Realm's name for the type, as its descriptions print it.
    public var description: String {
        switch self {
        case .int: return "int"
        case .bool: return "bool"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "data"
        case .any: return "mixed"
        case .date: return "date"
        case .object: return "object"
        case .linkingObjects: return "linking objects"
        case .objectId: return "object id"
        case .decimal128: return "decimal128"
        case .uuid: return "uuid"
        }
    }

    /// The property type of a stored C type; nil for LAR_TYPE_NULL, which no property has.
    init?(_ type: lar_type) {
        switch type {
        case LAR_TYPE_INT: self = .int
        case LAR_TYPE_BOOL: self = .bool
        case LAR_TYPE_FLOAT: self = .float
        case LAR_TYPE_DOUBLE: self = .double
        case LAR_TYPE_STRING: self = .string
        case LAR_TYPE_BINARY: self = .data
        case LAR_TYPE_TIMESTAMP: self = .date
        case LAR_TYPE_OBJECT_ID: self = .objectId
        case LAR_TYPE_UUID: self = .uuid
        case LAR_TYPE_DECIMAL128: self = .decimal128
        case LAR_TYPE_LINK: self = .object
        case LAR_TYPE_MIXED: self = .any
        case LAR_TYPE_LINKING_OBJECTS: self = .linkingObjects
        default: return nil
        }
    }
}

/// One property of an object schema, as Realm's `Property`: read from a file's
/// stored schema (`Realm.schema`) or from a model class (`Object.objectSchema`).
public struct Property: CustomStringConvertible, Equatable, Sendable {
    /// The property's name.
    public let name: String
    /// The name it is stored under: the same as `name` (Larder has no custom column names).
    public var columnName: String { name }
    /// The type of the value, or of each element of a collection.
    public let type: PropertyType
    /// A single value may be nil; a collection's elements may be nil. A link to one
    /// object is always optional, a list or set of objects never.
    public let isOptional: Bool
    /// The property has an index; a primary key always has one, as in Realm.
    public let isIndexed: Bool
    /// The property is its class's primary key.
    public let isPrimary: Bool
    /// The property owns the objects it links to: deleting its object deletes them,
    /// as declared with `@Persisted(cascadeDelete: true)` (beyond Realm).
    public let isCascading: Bool
    /// A `List`.
    public let isArray: Bool
    /// A `MutableSet`.
    public let isSet: Bool
    /// A `Map` with string keys.
    public let isMap: Bool
    /// For `.object` and `.linkingObjects`: the class linked to; else nil.
    public let objectClassName: String?
    /// For `.linkingObjects`: the link property of `objectClassName` it follows back; else nil.
    public let linkOriginPropertyName: String?

    /// A property described by the C core (strings are copied).
    init(_ def: lar_property_def) {
        name = def.name.map { String(cString: $0) } ?? ""
        type = PropertyType(def.type) ?? .any
        isOptional = def.flags & LAR_PROP_OPTIONAL != 0
        isPrimary = def.flags & LAR_PROP_PRIMARY_KEY != 0
        isIndexed = isPrimary || def.flags & LAR_PROP_INDEXED != 0
        isCascading = def.flags & LAR_PROP_CASCADE != 0
        isArray = def.collection == LAR_COLLECTION_LIST
        isSet = def.collection == LAR_COLLECTION_SET
        isMap = def.collection == LAR_COLLECTION_MAP
        objectClassName = def.target_class.map { String(cString: $0) }
        linkOriginPropertyName = def.origin_property.map { String(cString: $0) }
    }

    /// Realm's layout: the name, then one `key = value;` line per attribute.
    public var description: String {
        func yesNo(_ flag: Bool) -> String { flag ? "YES" : "NO" }
        var lines = [
            "\(name) {",
            "\ttype = \(type);",
        ]
        if let objectClassName { lines.append("\tobjectClassName = \(objectClassName);") }
        if let linkOriginPropertyName { lines.append("\tlinkOriginPropertyName = \(linkOriginPropertyName);") }
        lines += [
            "\tcolumnName = \(columnName);",
            "\tindexed = \(yesNo(isIndexed));",
            "\tisPrimary = \(yesNo(isPrimary));",
            "\tarray = \(yesNo(isArray));",
            "\tset = \(yesNo(isSet));",
            "\tdictionary = \(yesNo(isMap));",
            "\toptional = \(yesNo(isOptional));",
        ]
        if isCascading { lines.append("\tcascadeDelete = YES;") } // Larder's own: Realm has no cascades
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
