import CLarder
import Foundation

extension ClassSchema {
    /// The persisted property a key path of the model reads. Swift on Linux cannot
    /// name a key path, so this finds the property of its type, and when several
    /// share the type, the one whose value the key path reads back from a probe object.
    /// method names the caller in the message when the key path reads no property.
    func propertyName<Root: Object, Value: _Persistable>(of keyPath: KeyPath<Root, Value>,
                                                         for method: String = "sorted(by:)") -> String {
        propertyName(ofAny: keyPath, root: Root.self, for: method)
    }

    /// The same for a key path whose value type is known only at run time (a `PartialKeyPath`).
    func propertyName(ofAny keyPath: AnyKeyPath, root: Object.Type, for method: String) -> String {
        if let slot = slot(ofAny: keyPath, root: root) { return properties[slot].name }
        let named = method.hasPrefix("sorted") ? "sorted(byKeyPath:)"
            : method.hasPrefix("distinct") ? "distinct(by:) with names"
            : method.replacingOccurrences(of: "(of:)", with: "(ofProperty:)")
        fatalError("Cannot use key path \(keyPath) in \(method): it is not a persisted property of '\(name)'; " +
                   "use \(named) with the property's name")
    }

    /// The slot of the persisted property keyPath reads, or nil: the property of
    /// its value type, or among several, the one whose distinct value a probe
    /// object reads back through the key path.
    func slot(ofAny keyPath: AnyKeyPath, root: Object.Type) -> Int? {
        let valueType = ObjectIdentifier(Swift.type(of: keyPath).valueType)
        let candidates = properties.indices.filter { ObjectIdentifier(properties[$0].valueType) == valueType }
        if candidates.count <= 1 { return candidates.first }
        let probe = root.init()
        for slot in candidates {
            var values = ContiguousArray<_StoredValue>(repeating: .null, count: properties.count)
            let marker = Self.probeValue(for: properties[slot])
            values[slot] = marker
            probe.setUnmanagedValues(values, self)
            if (probe[keyPath: keyPath] as? _Persistable)?._larderStored == marker { return slot }
        }
        return nil
    }

    /// A value no property of this type reads as its default: for links and
    /// collections a new instance, which reads back as itself.
    private static func probeValue(for property: PropertySchema) -> _StoredValue {
        if property.isCollection { return property.valueType._larderDefault()._larderStored }
        if let target = property.targetClass { return .object(target.init()) }
        switch property.type {
        case LAR_TYPE_INT: return .int(1)
        case LAR_TYPE_BOOL: return .bool(true)
        case LAR_TYPE_FLOAT: return .float(1)
        case LAR_TYPE_DOUBLE: return .double(1)
        case LAR_TYPE_STRING: return .string("probe")
        case LAR_TYPE_BINARY: return .data(Data([1]))
        case LAR_TYPE_TIMESTAMP: return .date(Date(timeIntervalSince1970: 1))
        case LAR_TYPE_OBJECT_ID: return .objectId(ObjectId.generate())
        case LAR_TYPE_UUID: return .uuid(UUID())
        case LAR_TYPE_DECIMAL128: return .decimal128(Decimal128(value: 1))
        default: return .int(1) // a mixed value
        }
    }
}
