import CLarder
import Foundation

/// The plumbing of `AnyRealmValue` properties and elements (the C core's mixed
/// values): links to objects of any class, read back as typed accessors.
extension RealmInstance {
    /// An accessor of the object a mixed value links to: of the model class that
    /// bears the stored class's name (the configuration's objectTypes first, else
    /// the model classes this process has used), else a `DynamicObject`, as Realm
    /// gives for a class its schema lacks (one another program added to the file).
    /// The class's table is resolved once per instance (until a write is cancelled:
    /// it may have undeclared it), then found by the stored class id.
    func mixedLinkTarget(_ link: lar_obj) -> Object {
        verifyThread()
        if let table = resolvedMixedTarget(link.cls) { return accessor(table, key: link.key) }
        guard let type = modelType(ofStoredClass: link.cls) else {
            rememberMixedTarget(dynamicTable(id: link.cls))
            return dynamicAccessor(link)
        }
        let table = table(for: type)
        if table.id != link.cls {
            fatalError("AnyRealmValue links to class \(link.cls), but '\(type.className())' is class \(table.id)")
        }
        rememberMixedTarget(table)
        return accessor(table, key: link.key)
    }

    private func modelType(ofStoredClass cls: lar_class) -> Object.Type? {
        var info = lar_class_info()
        let rc = lar_class_info_get(environment.handle, cls, &info)
        guard rc == LAR_OK, let cName = info.name else { fatalCoreError(rc, "Cannot read a mixed value's link") }
        let name = String(cString: cName)
        if let types = configuration.objectTypes {
            if let type = types.first(where: { $0.className() == name }) { return type }
        } else {
            let known = ClassSchema.all.filter { $0.name == name }
            if known.count == 1 { return known[0].type }
        }
        return nil
    }

    /// A stored link read from a property or collection of type property: to its
    /// target class, or for a mixed one to the class the value names.
    func linkedObject(_ value: lar_value, property: PropertySchema) -> Object {
        if let target = property.targetClass { return linkTarget(target, link: value.as.link) }
        return mixedLinkTarget(value.as.link)
    }
}

extension PropertySchema {
    /// An `AnyRealmValue` property, or a collection of them.
    var isMixed: Bool { type == LAR_TYPE_MIXED }
}

extension ClassSchema {
    /// Realm's refusal of an optional `AnyRealmValue` (or a collection of them),
    /// which its schema discovery throws; nil when the class has none.
    var optionalMixedMessage: String? {
        guard let property = properties.first(where: { $0.isMixed && $0.isOptional }) else { return nil }
        let kind = [LAR_COLLECTION_LIST: "List<AnyRealmValue>", LAR_COLLECTION_SET: "MutableSet<AnyRealmValue>",
                    LAR_COLLECTION_MAP: "Map<String, AnyRealmValue>"][property.collection] ?? "AnyRealmValue"
        return "\(kind) property '\(property.name)' must not be marked as optional: " +
            "nil values are represented as AnyRealmValue.none"
    }
}

extension ValueReader {
    /// The stored form of item for a mixed property or element: nil and NSNull are
    /// `.none`; an `AnyRealmValue`, any value a property can hold, an object, or
    /// an `NSNumber` (as `JSONSerialization` makes them) with its own type.
    /// When creating, an object not of that Realm is created in it (as a link's
    /// target is). A nested list or dictionary is copied (recursively, unmanaged).
    /// Nil for what a mixed value cannot hold (another collection).
    static func mixed(_ item: Any?, _ creating: Creating?) -> _StoredValue? {
        guard let item, !(item is NSNull) else { return .null }
        let stored: _StoredValue
        if let value = item as? AnyRealmValue {
            stored = value._larderStored
        } else if let object = item as? Object {
            stored = .object(object)
        } else if let persistable = item as? any _Persistable {
            stored = persistable._larderStored
        } else if let number = item as? NSNumber, let read = number.mixedValue {
            stored = read
        } else {
            return nil
        }
        switch stored {
        case .collection:
            guard let nested = AnyRealmValue._larderFrom(stored) else { return nil }
            return nested.detachedCopy._larderStored
        case .object(let object):
            guard let creating, object.core.realm !== creating.instance else { return stored }
            return .object(creating.createNested(type(of: object), value: object))
        default: return stored
        }
    }
}

extension _StoredValue {
    /// The order of values of two different types, which only mixed values
    /// mix: ints, floats, doubles and decimals by numeric value, else by kind in
    /// the order the C core keeps a set of mixed values (null, bool, numbers,
    /// string, binary, timestamp, ObjectId, UUID, then objects, which have no
    /// order among themselves).
    static func mixedAscending(_ a: _StoredValue, _ b: _StoredValue) -> Bool {
        if case .decimal128(let x) = a, let y = b.numberAsDecimal { return x < y }
        if case .decimal128(let y) = b, let x = a.numberAsDecimal { return x < y }
        if let x = a.numericValue, let y = b.numericValue { return x < y }
        return a.mixedRank < b.mixedRank
    }

    /// A number as a decimal (a double as Realm converts one: to 15 significant
    /// digits); nil for other values.
    var numberAsDecimal: Decimal128? {
        switch self {
        case .int(let v): return Decimal128(v)
        case .float(let v): return Decimal128(Double(v))
        case .double(let v): return Decimal128(v)
        case .decimal128(let v): return v
        default: return nil
        }
    }

    private var numericValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    private var mixedRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .float, .double, .decimal128: return 2
        case .string: return 4
        case .data: return 5
        case .date: return 6
        case .objectId: return 7
        case .uuid: return 8
        case .object: return 9
        case .collection: return 10
        }
    }
}

extension NSNumber {
    /// The number as the mixed value of its own type: a boolean, an integer, a
    /// float, else a double.
    fileprivate var mixedValue: _StoredValue? {
        let types = String(cString: objCType) == "f" ? [LAR_TYPE_FLOAT] : [LAR_TYPE_BOOL, LAR_TYPE_INT, LAR_TYPE_DOUBLE]
        return types.lazy.compactMap { NumberReader.stored(self, for: $0) }.first
    }
}
