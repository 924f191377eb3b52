import CLarder

/// Declares a stored property of an `Object`, as in Realm:
///
///     class Dog: Object {
///         @Persisted(primaryKey: true) var id = 0
///         @Persisted var name = ""
///         @Persisted(indexed: true) var breed: String?
///     }
///
/// While the object is unmanaged the value lives in the object; once it is
/// added to a Realm every read and write goes to the database.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// Unretained: the object owns its core, and touching a reference count on
    /// every property access would cost more than the access.
    @usableFromInline let core: Unmanaged<ObjectCore>
    @usableFromInline let slot: Int32
    @usableFromInline let options: PropertyOptions

    @inlinable
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, options: [])
    }

    /// A property declared without an initial value starts at Realm's default:
    /// 0, false, "", empty data, nil, or a newly generated ObjectId or UUID.
    @inlinable
    public init() {
        self.init(value: Value._larderDefault(), options: [])
    }

    @inlinable
    public init(primaryKey: Bool) {
        self.init(value: Value._larderDefault(), options: primaryKey ? .primaryKey : [])
    }

    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(value: wrappedValue, options: primaryKey ? .primaryKey : [])
    }

    @inlinable
    public init(indexed: Bool) {
        self.init(value: Value._larderDefault(), options: indexed ? .indexed : [])
    }

    @inlinable
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(value: wrappedValue, options: indexed ? .indexed : [])
    }

    @inlinable
    init(value: Value, options: PropertyOptions) {
        // Unmanaged throughout: the construction slot keeps the core alive, and a
        // retain and release per property cost more than the append.
        core = Construction.current()
        slot = core._withUnsafeGuaranteedRef { core in
            core.values.append(value._larderStored)
            return Int32(core.values.count - 1)
        }
        self.options = options
    }

    // Inlinable, with the paths below it, so that reads specialize in the app's module:
    // an unspecialized generic read costs ten times more.
    @inlinable
    public var wrappedValue: Value {
        get { core._withUnsafeGuaranteedRef { $0.get(Int(slot), as: Value.self) } }
        nonmutating set { core._withUnsafeGuaranteedRef { $0.set(Int(slot), newValue) } }
    }
}

@usableFromInline
struct PropertyOptions: OptionSet {
    @usableFromInline let rawValue: UInt8
    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }
    @usableFromInline static let primaryKey = PropertyOptions(rawValue: 1)
    @usableFromInline static let indexed = PropertyOptions(rawValue: 2)
}

/// What schema discovery reads from a `Persisted` found by reflection.
protocol PersistedProperty {
    var slot: Int32 { get }
    var options: PropertyOptions { get }
    var valueType: any _Persistable.Type { get }
}

extension Persisted: PersistedProperty {
    var valueType: any _Persistable.Type { Value.self }
}
