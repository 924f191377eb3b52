import CLarder
import Foundation

/// A type stored as one of the types Larder stores, as in Realm:
///
///     struct Celsius: CustomPersistable {
///         typealias PersistedType = Double
///         var degrees: Double
///         init(persistedValue: Double) { degrees = persistedValue }
///         var persistableValue: Double { degrees }
///     }
///
///     class Reading: Object {
///         @Persisted var temperature: Celsius
///         @Persisted var history: List<Celsius>
///     }
///
/// The file stores the persisted type (schema introspection shows it), so a
/// custom type works wherever its persisted type does: as a property, optional
/// or not, with a default, and in List, MutableSet and Map.
///
/// `PersistedType` is one of the primitive types (Int and the sized integers,
/// Bool, Float, Double, String, Data, Date, ObjectId, UUID, Decimal128), or an
/// `EmbeddedObject` subclass for a type that needs several values:
///
///     class PointObject: EmbeddedObject {
///         @Persisted var x = 0.0
///         @Persisted var y = 0.0
///     }
///     struct Point: CustomPersistable {
///         typealias PersistedType = PointObject
///         var x, y: Double
///         init(persistedValue: PointObject) { x = persistedValue.x; y = persistedValue.y }
///         var persistableValue: PointObject { PointObject(value: [x, y]) }
///     }
///
/// As in Realm, a property of such a type need not be optional (`@Persisted
/// var point: Point`; the file stores an optional link, and a null one reads as
/// the value made from a new `PointObject()`), and works in List and Map too.
/// Writing the value creates a new embedded object in place of the old one
/// (`.modified` updates the old one instead, as for any embedded object).
public protocol CustomPersistable: _CustomPersistable {
    /// Makes a value from its stored form.
    init(persistedValue: PersistedType)
    /// The stored form of the value.
    var persistableValue: PersistedType { get }
}

/// As `CustomPersistable`, for a type that not every stored value converts to:
///
///     extension URL: FailableCustomPersistable {
///         public typealias PersistedType = String
///         public init?(persistedValue: String) { self.init(string: persistedValue) }
///         public var persistableValue: String { absoluteString }
///     }
///
/// As in Realm, a stored value that does not convert reads as nil in an optional
/// context (`URL?`, `List<URL?>`), and stops the program with Realm's message
/// in a non-optional one: "Failed to convert persisted value '...' to type
/// 'URL' in a non-optional context."
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Makes a value from its stored form; nil when it has no value of this type.
    /// It should not fail on the persisted type's default value (0, "", ...),
    /// which a property declared without an initial value starts with.
    init?(persistedValue: PersistedType)
    /// The stored form of the value.
    var persistableValue: PersistedType { get }
}

/// What both kinds of custom type share. Not part of the API: conform to
/// `CustomPersistable` or `FailableCustomPersistable`.
public protocol _CustomPersistable: _Persistable {
    associatedtype PersistedType: _CustomPersistedType
}

/// The types a custom type may be stored as: the primitive ones and embedded
/// objects. Not part of the API.
public protocol _CustomPersistedType: _Persistable {}

extension Int: _CustomPersistedType {}
extension Int8: _CustomPersistedType {}
extension Int16: _CustomPersistedType {}
extension Int32: _CustomPersistedType {}
extension Int64: _CustomPersistedType {}
extension Bool: _CustomPersistedType {}
extension Float: _CustomPersistedType {}
extension Double: _CustomPersistedType {}
extension String: _CustomPersistedType {}
extension Data: _CustomPersistedType {}
extension Date: _CustomPersistedType {}
extension ObjectId: _CustomPersistedType {}
extension UUID: _CustomPersistedType {}
extension Decimal128: _CustomPersistedType {}
extension EmbeddedObject: _CustomPersistedType {}

extension _CustomPersistable {
    @inlinable public static var _larderType: lar_type { PersistedType._larderType }
    /// The embedded class a custom type is stored as; nil for a primitive persisted type.
    @inlinable public static var _larderTargetClass: Object.Type? { PersistedType._larderTargetClass }
}

extension CustomPersistable {
    /// The value made from the persisted type's default (0, "", a new ObjectId...).
    @inlinable public static func _larderDefault() -> Self { Self(persistedValue: PersistedType._larderDefault()) }
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Self? {
        PersistedType._larderFrom(value).map { Self(persistedValue: $0) }
    }
    @inlinable public static func _larderRead(_ value: lar_value) -> Self {
        Self(persistedValue: PersistedType._larderRead(value))
    }
    /// With the Realm instance, which an embedded persisted type's accessor needs;
    /// its null link (never a primitive's) reads as the default, as in Realm.
    @inlinable public static func _larderRead(_ value: lar_value, owner: AnyObject) -> Self {
        if value.type == LAR_TYPE_NULL { return _larderDefault() }
        return Self(persistedValue: PersistedType._larderRead(value, owner: owner))
    }
    @inlinable public static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> Self? {
        PersistedType._larderReadIfValid(value, owner: owner).map { Self(persistedValue: $0) }
    }
    @inlinable public var _larderStored: _StoredValue { persistableValue._larderStored }
}

extension FailableCustomPersistable {
    /// The value made from the persisted type's default; Realm's message when that fails.
    public static func _larderDefault() -> Self {
        if let value = Self(persistedValue: PersistedType._larderDefault()) { return value }
        fatalError("Failed to default construct a \(Self.self) using the default value for persisted type " +
                   "\(PersistedType.self). This conversion must either succeed, the property must be optional, " +
                   "or you must explicitly specify a default value for the property.")
    }
    /// Nil for a stored value the type has no value for: `Object(value:)` and
    /// `setValue(_:forKey:)` then refuse it as a value of another type.
    @inlinable public static func _larderFrom(_ value: _StoredValue) -> Self? {
        PersistedType._larderFrom(value).flatMap { Self(persistedValue: $0) }
    }
    /// As Realm: a stored value that does not convert stops the program.
    @inlinable public static func _larderRead(_ value: lar_value) -> Self {
        _larderConverted(PersistedType._larderRead(value))
    }
    /// Nil for a stored value that does not convert: an optional context reads nil.
    @inlinable public static func _larderReadIfValid(_ value: lar_value) -> Self? {
        PersistedType._larderReadIfValid(value).flatMap { Self(persistedValue: $0) }
    }
    /// With the Realm instance, which an embedded persisted type's accessor needs;
    /// its null link (never a primitive's) reads as the default, as in Realm.
    @inlinable public static func _larderRead(_ value: lar_value, owner: AnyObject) -> Self {
        if value.type == LAR_TYPE_NULL { return _larderDefault() }
        return _larderConverted(PersistedType._larderRead(value, owner: owner))
    }
    @inlinable public static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> Self? {
        PersistedType._larderReadIfValid(value, owner: owner).flatMap { Self(persistedValue: $0) }
    }
    /// The value of persisted in a non-optional context: Realm's message when there is none.
    @inlinable static func _larderConverted(_ persisted: PersistedType) -> Self {
        if let read = Self(persistedValue: persisted) { return read }
        fatalError("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
    }
    @inlinable public var _larderStored: _StoredValue { persistableValue._larderStored }
}

extension Persisted where Value: FailableCustomPersistable {
    /// A property of a failable custom type declared without an initial value:
    /// it starts at the persisted type's default, converted when it is first
    /// read (as Realm's lazy default), so a type that has no value for it (a URL
    /// has none for "") can still be declared and assigned before it is read.
    @inlinable
    public init() {
        self.init(value: AccessorConstruction.isActive ? .null : Value.PersistedType._larderDefault()._larderStored,
                  options: [])
    }

    @inlinable
    public init(primaryKey: Bool) {
        self.init(value: AccessorConstruction.isActive ? .null : Value.PersistedType._larderDefault()._larderStored,
                  options: primaryKey ? .primaryKey : [])
    }

    @inlinable
    public init(indexed: Bool) {
        self.init(value: AccessorConstruction.isActive ? .null : Value.PersistedType._larderDefault()._larderStored,
                  options: indexed ? .indexed : [])
    }
}
