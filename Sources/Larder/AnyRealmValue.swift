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
/// values, and so, as in Realm 10.51, may a mixed value itself: `.list` and
/// `.dictionary` nest lists and string-keyed dictionaries of mixed values, up to
/// 100 levels (`.fromArray([...])`, `.fromDictionary([...])`). Written to a
/// managed property or element, such a value is copied in (recursively) as a new
/// nested collection that belongs to its slot: writing another value there frees
/// it. Read, it is a live managed `List`/`Map` bound to that collection; once the
/// collection is replaced or its owner deleted, that `List`/`Map` is invalidated.
/// Sets of mixed values hold no nested collections.
///
/// Equality is Realm's (its enum's synthesized `==`), and hashing agrees with it:
/// by case and payload, so `.int(1)` and `.double(1)` differ, and objects compare
/// with `Object`'s `==`: two accessors of one managed object are equal when its
/// class has a primary key; otherwise only an instance equals itself (use
/// `isSameObject(as:)` to compare those). Nested collections compare as Realm's
/// `List` and `Map` objects do: managed ones are equal when they are the same
/// collection in the file (two reads of one property), unmanaged ones only to
/// themselves; contents are not compared. A managed `MutableSet` is the C core's
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
    /// A nested dictionary of mixed values (Realm 10.51).
    case dictionary(Map<String, AnyRealmValue>)
    /// A nested list of mixed values (Realm 10.51).
    case list(List<AnyRealmValue>)

    /// `.none`, as Realm.
    public init() { self = .none }

    /// A `.dictionary` holding a new unmanaged map with dictionary's entries.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// A `.list` holding a new unmanaged list with array's elements.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// The nested dictionary, when the value is one; else nil.
    public var dictionaryValue: Map<String, AnyRealmValue>? {
        if case .dictionary(let v) = self { return v }
        return nil
    }

    /// The nested list, when the value is one; else nil.
    public var listValue: List<AnyRealmValue>? {
        if case .list(let v) = self { return v }
        return nil
    }

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
        case .collection(let v):
            if let list = v as? List<AnyRealmValue> { return .list(list) }
            if let map = v as? Map<String, AnyRealmValue> { return .dictionary(map) }
            return nil
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
        if value.type == LAR_TYPE_LIST || value.type == LAR_TYPE_DICTIONARY {
            return unsafeDowncast(owner, to: RealmInstance.self).nestedValue(value)
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
        case .dictionary(let v): return .collection(v)
        case .list(let v): return .collection(v)
        }
    }
}
