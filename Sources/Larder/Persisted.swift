import CLarder

/// Declares a stored property of an `Object`, as in Realm:
///
///     class Dog: Object {
///         @Persisted(primaryKey: true) var id = 0
///         @Persisted var name = ""
///         @Persisted(indexed: true) var breed: String?
///     }
///
/// While the object is unmanaged the value lives in the wrapper, inside the
/// object; once it is added to a Realm every read and write goes to the database.
///
/// The wrapper reaches its object through the enclosing-instance subscript, as
/// realm-swift's does: each object owns its state, however objects nest while
/// they are built. A managed read needs the property's slot in the class
/// schema, which the object writes into its wrappers when it becomes managed.
///
/// No field depends on `Value`, so adding an object reads its values without
/// generic code, and copying a wrapper costs no generic value witness.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// The property's position in its class schema; -1 until the object is managed.
    @usableFromInline var slot: Int32
    @usableFromInline let options: PropertyOptions
    /// The value while the object is unmanaged. Unused once it is managed: null
    /// in an accessor, and released when it holds references and the object is added.
    @usableFromInline var value: _StoredValue

    /// The initial value is evaluated when the object is built, except for a
    /// managed accessor, which reads the database instead.
    @inlinable
    public init(wrappedValue: @autoclosure () -> Value) {
        self.init(value: AccessorConstruction.isActive ? .null : wrappedValue()._larderStored, options: [])
    }

    /// A property declared without an initial value starts at Realm's default:
    /// 0, false, "", empty data, nil, or a newly generated ObjectId or UUID.
    @inlinable
    public init() {
        self.init(wrappedValue: Value._larderDefault())
    }

    @inlinable
    public init(primaryKey: Bool) {
        self.init(wrappedValue: Value._larderDefault(), primaryKey: primaryKey)
    }

    @inlinable
    public init(wrappedValue: @autoclosure () -> Value, primaryKey: Bool) {
        self.init(value: AccessorConstruction.isActive ? .null : wrappedValue()._larderStored,
                  options: primaryKey ? .primaryKey : [])
    }

    @inlinable
    public init(indexed: Bool) {
        self.init(wrappedValue: Value._larderDefault(), indexed: indexed)
    }

    @inlinable
    public init(wrappedValue: @autoclosure () -> Value, indexed: Bool) {
        self.init(value: AccessorConstruction.isActive ? .null : wrappedValue()._larderStored,
                  options: indexed ? .indexed : [])
    }

    @inlinable
    init(value: _StoredValue, options: PropertyOptions) {
        slot = -1
        self.options = options
        self.value = value
    }

    @available(*, unavailable, message: "@Persisted can only be used as a property on an Object")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used as a property on an Object") }
        set { fatalError("@Persisted can only be used as a property on an Object") }
    }

    // Inlined, with the paths below it, into the app's property accessors, where
    // the constant key paths fold into plain field accesses. Left out of line,
    // the optimizer merges a class's accessors into one that takes the key path
    // as an argument and instantiates it on every read, ten times slower.
    @inlinable
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        @inline(__always) get {
            let core = object.core
            // Constant for each Value, as the collection checks below: folded away for plain values.
            if Value._larderIsComputed { return Value._larderComputed(object[keyPath: storageKeyPath].value, owner: core) }
            if let instanceRef = core.instanceRef {
                let slot = Int(object[keyPath: storageKeyPath].slot)
                // Constant for each Value: folded away for plain values.
                if Value._larderCollection != LAR_COLLECTION_NONE {
                    return Value._larderManaged(realm: instanceRef.takeUnretainedValue(), owner: core, slot: slot)
                }
                return instanceRef._withUnsafeGuaranteedRef { $0.read(core, slot: slot) }
            }
            return Value._larderFrom(object[keyPath: storageKeyPath].value) ?? Value._larderDefault()
        }
        @inline(__always) set {
            if Value._larderIsComputed { fatalError("LinkingObjects properties are read-only") }
            let core = object.core
            if let instanceRef = core.instanceRef {
                let slot = Int(object[keyPath: storageKeyPath].slot)
                if Value._larderCollection != LAR_COLLECTION_NONE {
                    return instanceRef._withUnsafeGuaranteedRef { $0.assignCollection(core, slot: slot, newValue._larderStored) }
                }
                // A link, or a mixed value that may hold one: an unmanaged target is added first.
                if Value._larderTargetClass != nil || Value._larderType == LAR_TYPE_MIXED {
                    return instanceRef._withUnsafeGuaranteedRef { $0.writeLink(core, slot: slot, newValue._larderStored) }
                }
                return instanceRef._withUnsafeGuaranteedRef { $0.write(core, slot: slot, newValue._larderStored) }
            }
            // Swapped, so that the previous value is released after the access to
            // the object: releasing it inside the access makes Swift retain and
            // release the object around every store.
            var previous = newValue._larderStored
            swap(&object[keyPath: storageKeyPath].value, &previous)
        }
    }
}

extension Persisted {
    /// A LinkingObjects property: the objects of its element type whose
    /// property originProperty links to this object, as in Realm.
    public init<Origin: Object>(originProperty: String) where Value == LinkingObjects<Origin> {
        self.init(value: .string(originProperty), options: [])
    }
}

@usableFromInline
struct PropertyOptions: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }
    @usableFromInline static let primaryKey = PropertyOptions(rawValue: 1)
    @usableFromInline static let indexed = PropertyOptions(rawValue: 2)
    @usableFromInline static let cascadeDelete = PropertyOptions(rawValue: 4)
}
