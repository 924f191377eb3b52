import CLarder

/// What an observer compares of one key path of an object: values as stored,
/// objects by row (an accessor's identity says nothing), and along a path that
/// crosses links or collections, the values at its end.
indirect enum ObservedValue: Equatable {
    case value(_StoredValue)
    /// A link: the row, and what the rest of the path reads from it (nothing at the path's end).
    case object(cls: lar_class, key: lar_objkey, rest: ObservedValue?)
    /// A list's or set's elements, in order.
    case elements([ObservedValue])
    /// A map's keys and values.
    case entries([String], [ObservedValue])

    /// The value at path (property names) of object.
    static func read(_ object: Object, path: ArraySlice<String>) -> ObservedValue {
        let schema = object.objectClassSchema
        guard let name = path.first, let slot = schema.slotByName[name] else { return .value(.null) }
        return of(object.stored(slot: slot), rest: path.dropFirst())
    }

    private static func of(_ stored: _StoredValue, rest: ArraySlice<String>) -> ObservedValue {
        switch stored {
        case .object(let object):
            guard let table = object.core.table, !object.isInvalidated else { return .value(.null) }
            return .object(cls: table.id, key: object.core.key, rest: rest.isEmpty ? nil : read(object, path: rest))
        case .collection(let collection):
            let elements = collection.storedElements().map { of($0, rest: rest) }
            if let keys = collection.storedKeys() { return .entries(keys, elements) }
            return .elements(elements)
        default:
            return .value(stored)
        }
    }

    /// The plain value, for `PropertyChange.oldValue`: nil for links and collections.
    var oldValue: Any? {
        if case .value(let stored) = self { return stored.anyValue }
        return nil
    }
}

/// The key paths an object observer watches, checked against the model when the
/// observer registers: each is a property, and may continue through links and
/// collections of objects ("owner.name", "dogs.age").
struct ObservedKeyPaths {
    /// Each path's components; its first is the property a change is reported on.
    let paths: [[String]]

    /// nil names: every property of the object, shallow (Realm's default).
    init(_ names: [String]?, of schema: ClassSchema) {
        guard let names else {
            paths = schema.properties.map { [$0.name] }
            return
        }
        paths = names.map { name in
            let components = name.split(separator: ".").map(String.init)
            Self.check(components[...], from: schema, fullPath: name)
            return components
        }
    }

    private static func check(_ path: ArraySlice<String>, from schema: ClassSchema, fullPath: String) {
        guard let name = path.first else { return }
        guard let slot = schema.slotByName[name] else {
            fatalError("Property '\(name)' not found in object of type '\(schema.name)'")
        }
        if path.count == 1 { return }
        // A dynamic object's link names a class of the file, which its objects' tables check as they are read.
        if schema.properties[slot].dynamicTarget != nil { return }
        guard let target = schema.properties[slot].targetClass else {
            fatalError("Property '\(name)' of object of type '\(schema.name)' is not a link or collection of " +
                       "objects, so '\(fullPath)' cannot continue past it")
        }
        check(path.dropFirst(), from: target.schema, fullPath: fullPath)
    }

    /// Each path's value for object, in order.
    func read(_ object: Object) -> [ObservedValue] {
        paths.map { ObservedValue.read(object, path: $0[...]) }
    }
}
