import CLarder

/// The schema of one class, as Realm's `ObjectSchema`: its name and its properties
/// in the order the file stores them (a superclass's before its subclass's).
public struct ObjectSchema: CustomStringConvertible, Equatable, Sendable {
    /// The class's name.
    public let className: String
    /// Its persisted properties, in stored order.
    public let properties: [Property]
    /// Objects of the class live only inside the object that links to them.
    public let isEmbedded: Bool
    /// Always false: Larder has no asymmetric (sync-only) classes.
    public var isAsymmetric: Bool { false }
    /// The Swift class of the model; `DynamicObject.self` for a class of the file that no
    /// model class of this program names, as in Realm.
    public let objectClass: AnyClass

    init(className: String, properties: [Property], isEmbedded: Bool, objectClass: AnyClass) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.objectClass = objectClass
    }

    /// The primary key property, or nil when the class has none.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property named propertyName, or nil.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName }
    }

    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.properties == rhs.properties && lhs.isEmbedded == rhs.isEmbedded
    }

    /// Realm's layout: the class name, then each property's description indented by a tab.
    public var description: String {
        let body = properties.map { property in
            property.description.split(separator: "\n", omittingEmptySubsequences: false)
                .map { "\t" + $0 }.joined(separator: "\n")
        }
        return "\(className) \(isEmbedded ? "(embedded) " : ""){\n" + body.map { $0 + "\n" }.joined() + "}"
    }

    /// The class cls as the file at env stores it; nil when env has no such class.
    init?(stored cls: lar_class, in env: OpaquePointer, objectClass: AnyClass) {
        var info = lar_class_info()
        guard lar_class_info_get(env, cls, &info) == LAR_OK, let name = info.name else { return nil }
        var properties: [Property] = []
        for index in 0..<info.property_count {
            var def = lar_property_def()
            guard lar_property_info_get(env, cls, index, &def) == LAR_OK else { return nil }
            properties.append(Property(def))
        }
        self.init(className: String(cString: name), properties: properties,
                  isEmbedded: info.flags & LAR_CLASS_EMBEDDED != 0, objectClass: objectClass)
    }

    /// A model class's schema as this program declares it to a file.
    init(_ schema: ClassSchema) {
        let (properties, isEmbedded) = schema.withClassDef { def in
            (UnsafeBufferPointer(start: def.properties, count: def.property_count).map(Property.init),
             def.flags & LAR_CLASS_EMBEDDED != 0)
        }
        self.init(className: schema.name, properties: properties, isEmbedded: isEmbedded, objectClass: schema.type)
    }
}

extension Object {
    /// The schema of this model class, discovered from its `@Persisted` properties.
    public class var objectSchema: ObjectSchema { ObjectSchema(ClassSchema.of(self)) }

    /// The schema of the object's class: as the file stores it when the object is
    /// managed, else as its model class declares it.
    public var objectSchema: ObjectSchema {
        let type = Swift.type(of: self)
        if let realm = realm, let stored = realm.schema[objectClassSchema.name] { return stored }
        return type.objectSchema
    }
}
