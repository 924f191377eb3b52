import CLarder
import Foundation

/// A type that a `@Persisted` property can hold. Conformances come with Larder;
/// do not conform your own types (use `PersistableEnum` for enums).
public protocol _Persistable {
    /// The C core's type of the stored value.
    static var _larderType: lar_type { get }
    /// Whether the stored value may be null.
    static var _larderIsOptional: Bool { get }
    /// The value of a property declared without an initial value (Realm's defaults).
    static func _larderDefault() -> Self
    /// Converts from the stored form; nil when the value has another type.
    static func _larderFrom(_ value: _StoredValue) -> Self?
    /// Reads straight from the C core's value: the hot path of managed reads.
    static func _larderRead(_ value: lar_value) -> Self
    /// The same, or nil when the stored value is not one of the type's values
    /// (an enum's unknown raw value): an optional property then reads nil.
    static func _larderReadIfValid(_ value: lar_value) -> Self?
    /// The same with the reading Realm instance, which a link needs to build the
    /// target's accessor; other types ignore it.
    static func _larderRead(_ value: lar_value, owner: AnyObject) -> Self
    static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> Self?
    /// The class a link property points to; nil for other values.
    static var _larderTargetClass: Object.Type? { get }
    /// LAR_COLLECTION_NONE, or the kind of collection (List, MutableSet, Map).
    static var _larderCollection: lar_collection { get }
    /// A collection property of a managed object: the collection bound to the
    /// owner's row as it is now (realm is its RealmInstance, owner its object's core).
    static func _larderManaged(realm: AnyObject, owner: AnyObject, slot: Int) -> Self
    /// Whether the property is computed, not stored (LinkingObjects): its wrapper
    /// keeps `stored` (the origin property) and reads through `_larderComputed`.
    static var _larderIsComputed: Bool { get }
    static func _larderComputed(_ stored: _StoredValue, owner: AnyObject) -> Self
    var _larderStored: _StoredValue { get }
}

/// The element types a List, MutableSet or Map can hold, as in Realm.
public typealias RealmCollectionValue = _Persistable

extension _Persistable {
    @inlinable public static var _larderIsOptional: Bool { false }
    @inlinable public static func _larderRead(_ value: lar_value) -> Self {
        _larderFrom(_StoredValue(value)) ?? _larderDefault()
    }
    @inlinable public static func _larderReadIfValid(_ value: lar_value) -> Self? { _larderRead(value) }
    @inlinable public static func _larderRead(_ value: lar_value, owner: AnyObject) -> Self { _larderRead(value) }
    @inlinable public static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> Self? {
        _larderReadIfValid(value)
    }
    @inlinable public static var _larderTargetClass: Object.Type? { nil }
    @inlinable public static var _larderCollection: lar_collection { LAR_COLLECTION_NONE }
    public static func _larderManaged(realm: AnyObject, owner: AnyObject, slot: Int) -> Self {
        fatalError("\(Self.self) is not a collection")
    }
    @inlinable public static var _larderIsComputed: Bool { false }
    public static func _larderComputed(_ stored: _StoredValue, owner: AnyObject) -> Self {
        fatalError("\(Self.self) is not computed")
    }
}

extension Int: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_INT }
    @inlinable public static func _larderDefault() -> Int { 0 }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Int? {
        if case .int(let v) = value { return Int(truncatingIfNeeded: v) }
        return nil
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Int { Int(value.as.integer) }
    @inlinable public var _larderStored: _StoredValue { .int(Int64(self)) }
}

/// The narrower integers are stored as 64-bit integers, as Realm stores them.
public protocol _PersistableInteger: _Persistable, FixedWidthInteger {}
extension _PersistableInteger {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_INT }
    @inlinable public static func _larderDefault() -> Self { 0 }
    /// Nil for a value out of the type's range: a value given to an `Int8`
    /// property is never silently wrapped.
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Self? {
        if case .int(let v) = value { return Self(exactly: v) }
        return nil
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Self { Self(truncatingIfNeeded: value.as.integer) }
    @inlinable public var _larderStored: _StoredValue { .int(Int64(self)) }
}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Bool: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_BOOL }
    @inlinable public static func _larderDefault() -> Bool { false }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Bool? {
        if case .bool(let v) = value { return v }
        return nil
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Bool { value.as.boolean != 0 }
    @inlinable public var _larderStored: _StoredValue { .bool(self) }
}

extension Float: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_FLOAT }
    @inlinable public static func _larderDefault() -> Float { 0 }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Float? {
        if case .float(let v) = value { return v }
        return nil
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Float { value.as.float32 }
    @inlinable public var _larderStored: _StoredValue { .float(self) }
}

extension Double: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_DOUBLE }
    @inlinable public static func _larderDefault() -> Double { 0 }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Double? {
        if case .double(let v) = value { return v }
        return nil
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Double { value.as.float64 }
    @inlinable public var _larderStored: _StoredValue { .double(self) }
}

extension String: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_STRING }
    @inlinable public static func _larderDefault() -> String { "" }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> String? {
        if case .string(let v) = value { return v }
        return nil
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> String { String(larderString: value.as.string) }
    @inlinable public var _larderStored: _StoredValue { .string(self) }
}

extension Data: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_BINARY }
    @inlinable public static func _larderDefault() -> Data { Data() }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Data? {
        if case .data(let v) = value { return v }
        return nil
    }
    @inlinable public var _larderStored: _StoredValue { .data(self) }
}

extension Date: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_TIMESTAMP }
    /// Realm's default date is the reference date of 1970.
    @inlinable public static func _larderDefault() -> Date { Date(timeIntervalSince1970: 0) }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Date? {
        if case .date(let v) = value { return v }
        return nil
    }
    @inlinable public var _larderStored: _StoredValue { .date(self) }
}

extension ObjectId: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_OBJECT_ID }
    /// Realm generates a new ObjectId for a property declared without a value.
    @inlinable public static func _larderDefault() -> ObjectId { .generate() }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> ObjectId? {
        if case .objectId(let v) = value { return v }
        return nil
    }
    @inlinable public var _larderStored: _StoredValue { .objectId(self) }
}

extension UUID: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_UUID }
    /// Realm generates a new UUID for a property declared without a value.
    @inlinable public static func _larderDefault() -> UUID { UUID() }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> UUID? {
        if case .uuid(let v) = value { return v }
        return nil
    }
    @inlinable public var _larderStored: _StoredValue { .uuid(self) }
}

extension Decimal128: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_DECIMAL128 }
    @inlinable public static func _larderDefault() -> Decimal128 { Decimal128(low: 0, high: 0x3040_0000_0000_0000) }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Decimal128? {
        if case .decimal128(let v) = value { return v }
        return nil
    }
    @inlinable public var _larderStored: _StoredValue { .decimal128(self) }
}

extension Optional: _Persistable where Wrapped: _Persistable {
    @inlinable public static var _larderType: lar_type { Wrapped._larderType }
    @inlinable public static var _larderIsOptional: Bool { true }
    @inlinable public static func _larderDefault() -> Wrapped? { nil }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped._larderFrom(value).map { .some($0) }
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Wrapped? {
        value.type == LAR_TYPE_NULL ? nil : Wrapped._larderReadIfValid(value)
    }
    @inlinable public static func _larderRead(_ value: lar_value, owner: AnyObject) -> Wrapped? {
        value.type == LAR_TYPE_NULL ? nil : Wrapped._larderReadIfValid(value, owner: owner)
    }
    @inlinable public static var _larderTargetClass: Object.Type? { Wrapped._larderTargetClass }
    @inlinable public var _larderStored: _StoredValue { self?._larderStored ?? .null }
}

/// An enum stored through its raw value, as in Realm:
/// `enum Kind: Int, PersistableEnum { case a, b }`.
public protocol PersistableEnum: _Persistable, RawRepresentable, CaseIterable where RawValue: _Persistable {}

extension PersistableEnum {
    @inlinable public static var _larderType: lar_type { RawValue._larderType }
    /// Realm's default for an enum property is its first case.
    @inlinable public static func _larderDefault() -> Self { allCases.first! }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Self? {
        RawValue._larderFrom(value).flatMap { Self(rawValue: $0) }
    }
    /// As Realm: a stored raw value that is none of the cases stops the program
    /// (an optional property reads nil instead).
    @inlinable public static func _larderRead(_ value: lar_value) -> Self {
        if let read = _larderReadIfValid(value) { return read }
        fatalError("Could not convert value '\(RawValue._larderRead(value))' to type '\(Self.self)'.")
    }
    @inlinable public static func _larderReadIfValid(_ value: lar_value) -> Self? {
        Self(rawValue: RawValue._larderRead(value))
    }
    @inlinable public var _larderStored: _StoredValue { rawValue._larderStored }
}
