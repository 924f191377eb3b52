import CLarder
import Foundation

/// The base class of every model class, as in Realm:
///
///     class Dog: Object {
///         @Persisted var name = ""
///         @Persisted var age = 0
///     }
///
/// An object is unmanaged until it is added to a Realm; from then on its
/// properties read and write the database, inside write transactions.
open class Object: CustomStringConvertible, Equatable, Hashable {
    /// Its Realm and row once managed; the object owns it.
    @usableFromInline let core: ObjectCore

    public required init() {
        core = ObjectCore()
        if _slowPath(AccessorConstruction.isActive) { AccessorConstruction.objectDidInitialize(self) }
    }

    /// Creates an unmanaged object from a dictionary of property names to values,
    /// from an array of values in property order (a shorter array leaves the rest
    /// at their defaults), or from another object with the same properties.
    public convenience init(value: Any) {
        self.init()
        for (slot, stored) in ValueReader.read(value, schema: Self.schema) { setUnmanagedValue(stored, slot: slot) }
    }

    // MARK: Class hooks

    /// The name of the class in the database. Override to rename.
    open class func className() -> String {
        String(describing: self)
    }

    /// The primary key property, for models that do not use `@Persisted(primaryKey: true)`.
    open class func primaryKey() -> String? { nil }

    /// Indexed properties, for models that do not use `@Persisted(indexed: true)`.
    open class func indexedProperties() -> [String] { [] }

    static var schema: ClassSchema { ClassSchema.of(self) }

    /// The schema this object reads with: its table's once managed (a `DynamicObject`'s
    /// is the stored class's), else its model class's.
    var objectClassSchema: ClassSchema {
        if let table = core.tableRef { return table.takeUnretainedValue().schema }
        return (self as? DynamicObject)?.unmanagedSchema ?? Self.schema
    }

    // MARK: State

    /// The Realm managing this object, or nil while it is unmanaged.
    public var realm: Realm? { core.realm.map(Realm.init(instance:)) }

    /// True once the object was deleted or its Realm invalidated it.
    public var isInvalidated: Bool {
        guard let realm = core.realm else { return false }
        return core.invalidated || !realm.exists(core)
    }

    /// True when both are the same instance, or accessors of the same live object
    /// in the same Realm instance: a deleted object is the same only as itself.
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        if object === self { return true }
        guard let realm = core.realm, realm === object.core.realm,
              core.table.id == object.core.table.id, core.key == object.core.key else { return false }
        return !isInvalidated && !object.isInvalidated
    }

    // MARK: Key-value coding

    /// The value of the property named key.
    public func value(forKey key: String) -> Any? {
        let schema = objectClassSchema
        if schema.slotByName[key] == nil, let linking = schema.linkingObjects.first(where: { $0.name == key }) {
            return linking.valueType._larderComputed(.string(linking.originProperty), owner: core)
        }
        return stored(slot: slot(forKey: key)).anyValue
    }

    /// Sets the property named key; managed objects must be in a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        let slot = slot(forKey: key)
        let property = objectClassSchema.properties[slot]
        // A dynamic object's links given as dictionaries are created in its Realm: it has no model class.
        var creating: ValueReader.Creating?
        if let realm = core.realm, objectClassSchema.isDynamic {
            realm.verifyThread()
            realm.requirePropertyWrite()
            creating = .init(instance: realm, update: .error)
        }
        guard let stored = ValueReader.convert(value, to: property, creating) else {
            fatalError("Invalid value '\(value.map { "\($0)" } ?? "nil")' of type " +
                       "'\(value.map { "\(type(of: $0))" } ?? "nil")' for '\(property.name)' property")
        }
        if let realm = core.realm { realm.writeAny(core, slot: slot, stored) } else { setUnmanagedValue(stored, slot: slot) }
    }

    /// The value at a dotted path through links ("favoriteToy.name"); nil past a
    /// nil link; through a collection, an array of the values.
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let rest = String(keyPath[keyPath.index(after: dot)...])
        switch value(forKey: String(keyPath[..<dot])) {
        case let object as Object: return object.value(forKeyPath: rest)
        case let collection as _LarderCollection:
            return collection.storedElements().map { element -> Any? in
                guard case .object(let object) = element else { return nil }
                return object.value(forKeyPath: rest)
            }
        default: return nil
        }
    }

    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    private func slot(forKey key: String) -> Int {
        let schema = objectClassSchema
        guard let slot = schema.slotByName[key] else {
            fatalError("Invalid property name '\(key)' for class '\(schema.name)'.")
        }
        return slot
    }

    func stored(slot: Int) -> _StoredValue {
        if let realm = core.realm { return realm.readStored(core, slot: slot) }
        return unmanagedValue(slot: slot)
    }

    /// Every property value in slot order.
    func allStored() -> [_StoredValue] {
        (0..<objectClassSchema.properties.count).map { stored(slot: $0) }
    }

    // MARK: Equality and description

    /// Realm's rule: managed objects of a class with a primary key are equal when
    /// they are the same live object; otherwise only an instance equals itself.
    /// Frozen objects compare the same way, with or without a primary key.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        if lhs === rhs { return true }
        guard lhs.objectClassSchema.primaryKeySlot != nil || lhs.isFrozen else { return false }
        return lhs.isSameObject(as: rhs)
    }

    /// Realm's rule: the primary key when the class has one, so that the hash is
    /// the same before and after the object is added; otherwise the instance.
    /// A frozen object hashes by its row, as in Realm.
    public func hash(into hasher: inout Hasher) {
        if isFrozen {
            hasher.combine(core.key)
        } else if let slot = objectClassSchema.primaryKeySlot, let key = primaryKeyForHashing(slot: slot) {
            hasher.combine(key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    /// The primary key; for a managed object, the one it had when first hashed or
    /// added, so that a deleted object still hashes as it did (the key can't change).
    private func primaryKeyForHashing(slot: Int) -> _StoredValue? {
        guard let realm = core.realm else { return unmanagedValue(slot: slot) }
        if let known = core.knownPrimaryKey, known.key == core.key { return known.value }
        if isInvalidated { return nil }
        let value = realm.readStored(core, slot: slot)
        core.knownPrimaryKey = (core.key, value)
        return value
    }

    open var description: String { describe(depth: 0) }

    /// Linked objects print nested, as in Realm, down to a depth that stops cycles.
    func describe(depth: Int) -> String {
        let schema = objectClassSchema
        if core.realm != nil && isInvalidated { return "[invalid object]" }
        if depth > 5 { return "<Maximum depth exceeded>" }
        let lines = schema.properties.enumerated().map { slot, property in
            "\t\(property.name) = \(stored(slot: slot).displayText(depth: depth));"
        }
        return "\(schema.name) {\n" + lines.joined(separator: "\n") + "\n}"
    }
}

