import CLarder
import Foundation

/// A value of any of the types Realm stores, or a link to an object of any
/// class, as Realm's `AnyRealmValue`:
///
///     class Dog: Object {
///         @Persisted var companion: AnyRealmValue
///     }
///     dog.companion = .object(Cat())
///     dog.companion = .string("Rex")
///
/// The C core stores it as a mixed value (`LAR_TYPE_MIXED`): null, any scalar
/// with its own type, or a typed link (class and key). A property of this type
/// is never optional: nil is `.none`. Lists, sets and maps of it hold the same
/// values. Realm's nested `.list` and `.dictionary` cases are not there yet: the
/// C core cannot store a collection inside a mixed value.
///
/// Equality is Realm's (its enum's synthesized `==`), and hashing agrees with it:
/// by case and payload, so `.int(1)` and `.double(1)` differ, and objects compare
/// with `Object`'s `==`: two accessors of one managed object are equal when its
/// class has a primary key; otherwise only an instance equals itself (use
/// `isSameObject(as:)` to compare those). A managed `MutableSet` is the C core's
/// and holds numbers of equal value once, as Realm's `Set<Mixed>` does.
public enum AnyRealmValue: Hashable {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case object(Object)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)

    /// `.none`, as Realm.
    public init() { self = .none }

    public var intValue: Int? {
        if case .int(let v) = self { return v }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }

    public var floatValue: Float? {
        if case .float(let v) = self { return v }
        return nil
    }

    public var doubleValue: Double? {
        if case .double(let v) = self { return v }
        return nil
    }

    public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }

    public var dataValue: Data? {
        if case .data(let v) = self { return v }
        return nil
    }

    public var dateValue: Date? {
        if case .date(let v) = self { return v }
        return nil
    }

    public var objectIdValue: ObjectId? {
        if case .objectId(let v) = self { return v }
        return nil
    }

    public var decimal128Value: Decimal128? {
        if case .decimal128(let v) = self { return v }
        return nil
    }

    public var uuidValue: UUID? {
        if case .uuid(let v) = self { return v }
        return nil
    }

    /// The object, when the value is one of type `T` (or a subclass); else nil.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let v) = self { return v as? T }
        return nil
    }
}

extension AnyRealmValue: _Persistable {
    @inlinable public static var _larderType: lar_type { LAR_TYPE_MIXED }
    public static func _larderDefault() -> AnyRealmValue { .none }

    public static func _larderFrom(_ value: _StoredValue) -> AnyRealmValue? {
        switch value {
        case .null: return AnyRealmValue.none
        case .int(let v): return .int(Int(truncatingIfNeeded: v))
        case .bool(let v): return .bool(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v)
        case .objectId(let v): return .objectId(v)
        case .uuid(let v): return .uuid(v)
        case .decimal128(let v): return .decimal128(v)
        case .object(let v): return .object(v)
        case .collection: return nil
        }
    }

    /// A link is read through its Realm; without one it cannot become an object.
    public static func _larderRead(_ value: lar_value) -> AnyRealmValue {
        if value.type == LAR_TYPE_LINK { fatalError("A link is read through its Realm") }
        return _larderFrom(_StoredValue(value)) ?? .none
    }

    /// A link becomes an accessor of the class it names (see `RealmInstance.mixedLinkTarget`).
    public static func _larderRead(_ value: lar_value, owner: AnyObject) -> AnyRealmValue {
        if value.type == LAR_TYPE_LINK {
            return .object(unsafeDowncast(owner, to: RealmInstance.self).mixedLinkTarget(value.as.link))
        }
        return _larderFrom(_StoredValue(value)) ?? .none
    }

    public static func _larderReadIfValid(_ value: lar_value, owner: AnyObject) -> AnyRealmValue? {
        _larderRead(value, owner: owner)
    }

    public var _larderStored: _StoredValue {
        switch self {
        case .none: return .null
        case .int(let v): return .int(Int64(v))
        case .bool(let v): return .bool(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v)
        case .objectId(let v): return .objectId(v)
        case .uuid(let v): return .uuid(v)
        case .decimal128(let v): return .decimal128(v)
        case .object(let v): return .object(v)
        }
    }
}
