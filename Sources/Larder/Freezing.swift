import Foundation

/// What can be frozen, thawed and passed between threads by `ThreadSafeReference`,
/// as in Realm: `Object` and the managed collections. Not for your own types.
public protocol ThreadConfined {
    /// The Realm managing the value; nil while it is unmanaged.
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    /// True when the value belongs to a frozen Realm: it never changes, and any thread may read it.
    var isFrozen: Bool { get }
    /// The value in a frozen Realm at the version this one reads: immutable, readable
    /// from any thread (several at once), and so `Sendable` in Swift 6.
    func freeze() -> Self
    /// The value in this thread's live Realm for the file, at its version; nil when it
    /// was deleted since. A live value thaws to itself.
    func thaw() -> Self?
    /// The same value in another Realm of the same file; nil when it is gone there.
    func _rebound(to realm: Realm) -> Self?
}

/// What freezing gave; nil means the object is not in the version frozen, which
/// only the write in progress can have added.
func frozenOrTrap<T>(_ frozen: T?) -> T {
    guard let frozen else { fatalError("Cannot freeze an object in the same write transaction as it was created in") }
    return frozen
}

// MARK: Realm

extension Realm {
    /// True for a Realm that `freeze()` gave: it reads one version forever.
    public var isFrozen: Bool { instance.isFrozen }

    /// This Realm, frozen at the version it reads. Frozen Realms, and everything read
    /// from them, never change and may be read from any thread at once; writing to
    /// them traps. Freezing again at the same version gives the same frozen Realm.
    ///
    /// A frozen Realm keeps its version, and the pages only that version uses, until
    /// the last of its objects and collections is gone: a file that many writes change
    /// grows meanwhile (see `numberOfActiveVersions`).
    public func freeze() -> Realm { Realm(instance: instance.frozen()) }

    /// This thread's live Realm for the file (as `Realm(configuration:)`); a live Realm thaws to itself.
    public func thaw() -> Realm { Realm(instance: instance.thawed()) }

    /// obj, frozen at this Realm's version (this Realm must be obj's or its frozen copy).
    public func freeze<T: Object>(_ obj: T) -> T { obj.freeze() }

    /// obj in this thread's live Realm; nil when it was deleted since.
    public func thaw<T: Object>(_ obj: T) -> T? { obj.thaw() }

    /// collection, frozen at the version it reads.
    public func freeze<Collection: RealmCollection & ThreadConfined>(_ collection: Collection) -> Collection {
        collection.freeze()
    }

    /// How many versions of the file are kept: the newest, and each older one that
    /// frozen Realms and Realms reading without refreshing still see, in this process
    /// and any other (LMDB's reader table), each once. One when nothing holds an old
    /// version; writes grow the file while it is more.
    public var numberOfActiveVersions: UInt { UInt(instance.activeVersionCount) }
}

// MARK: Objects

extension Object: ThreadConfined {
    public var isFrozen: Bool { core.realm?.isFrozen ?? false }

    /// The object in a frozen Realm at the version its Realm reads; itself when frozen.
    /// In a write transaction, the version the write began on.
    public func freeze() -> Self {
        guard let instance = core.realm else { fatalError("Unmanaged objects cannot be frozen.") }
        if instance.isFrozen { return self }
        if isInvalidated { fatalError("Object has been deleted or invalidated.") }
        return frozenOrTrap(_rebound(to: Realm(instance: instance.frozen())))
    }

    public func thaw() -> Self? {
        guard let instance = core.realm else { fatalError("Unmanaged objects cannot be thawed.") }
        if !instance.isFrozen { return self }
        return _rebound(to: Realm(instance: instance.thawed()))
    }

    public func _rebound(to realm: Realm) -> Self? {
        guard let instance = core.realm, let table = core.table else { return self }
        if instance === realm.instance { return self }
        return realm.instance.counterpart(of: table, key: core.key, stamp: core.stamp)
            .map { unsafeDowncast($0, to: Self.self) }
    }
}

// MARK: Collections

/// What List, MutableSet and Map share: the collection in another instance of the file.
extension _LarderCollection {
    /// Whether the collection's Realm is frozen.
    var isInFrozenRealm: Bool { ref?.instance.isFrozen ?? false }

    /// The collection frozen; kind names it in Realm's message for an unmanaged one.
    func frozenCollection(_ kind: String) -> Self {
        guard let ref else { fatalError("This method may only be called on \(kind) instances retrieved from an RLMRealm") }
        if ref.instance.isFrozen { return self }
        if ref.isInvalidated { fatalError("Object has been deleted or invalidated.") }
        return frozenOrTrap(rebound(to: ref.instance.frozen()))
    }

    func thawedCollection() -> Self? {
        guard let ref, ref.instance.isFrozen else { return self }
        return rebound(to: ref.instance.thawed())
    }
}

extension List: ThreadConfined {
    public var isFrozen: Bool { isInFrozenRealm }
    public func freeze() -> List { frozenCollection("RLMArray") }
    public func thaw() -> List? { thawedCollection() }
    public func _rebound(to realm: Realm) -> List? { rebound(to: realm.instance) }
}

extension MutableSet: ThreadConfined {
    public var isFrozen: Bool { isInFrozenRealm }
    public func freeze() -> MutableSet { frozenCollection("RLMSet") }
    public func thaw() -> MutableSet? { thawedCollection() }
    public func _rebound(to realm: Realm) -> MutableSet? { rebound(to: realm.instance) }
}

extension Map: ThreadConfined {
    public var isFrozen: Bool { isInFrozenRealm }
    public func freeze() -> Map { frozenCollection("RLMDictionary") }
    public func thaw() -> Map? { thawedCollection() }
    public func _rebound(to realm: Realm) -> Map? { rebound(to: realm.instance) }
}

extension LinkingObjects: ThreadConfined {
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    public func freeze() -> LinkingObjects {
        guard let instance = realm?.instance else { return self }
        if isInvalidated { fatalError("Object has been deleted or invalidated.") }
        return frozenOrTrap(rebound(to: instance.frozen()))
    }

    public func thaw() -> LinkingObjects? {
        guard let instance = realm?.instance, instance.isFrozen else { return self }
        return rebound(to: instance.thawed())
    }

    public func _rebound(to realm: Realm) -> LinkingObjects? { rebound(to: realm.instance) }
}

extension Results: ThreadConfined {
    public var isFrozen: Bool { instance.isFrozen }

    /// The results in a frozen Realm at this version: the same query, sorts and
    /// source collection, evaluated there once and for good.
    public func freeze() -> Results {
        if instance.isFrozen { return self }
        if isInvalidated { fatalError("Object has been deleted or invalidated.") }
        return frozenOrTrap(rebound(to: instance.frozen()))
    }

    /// The same results, live, in this thread's Realm; nil when the collection they view was deleted.
    public func thaw() -> Results? {
        if !instance.isFrozen { return self }
        return rebound(to: instance.thawed())
    }

    public func _rebound(to realm: Realm) -> Results? { rebound(to: realm.instance) }
}

extension AnyRealmCollection: ThreadConfined {
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    public func freeze() -> AnyRealmCollection {
        guard let base = base as? any ThreadConfined else { return self }
        return Self.erase(base.freeze())!
    }

    public func thaw() -> AnyRealmCollection? {
        guard let base = base as? any ThreadConfined else { return self }
        return Self.erase(base.thaw())
    }

    public func _rebound(to realm: Realm) -> AnyRealmCollection? {
        guard let base = base as? any ThreadConfined else { return self }
        return Self.erase(base._rebound(to: realm))
    }

    private static func erase(_ value: (any ThreadConfined)?) -> AnyRealmCollection? {
        guard let value else { return nil }
        return AnyRealmCollection(erased: value as! any RealmCollection<Element>)
    }
}

/// A frozen object or collection that crosses isolation in Swift 6:
/// `let sendable = Frozen(dog.freeze())`, then `sendable.value` on any thread,
/// task or actor. What a frozen value reads never changes, and its Realm
/// serializes the reads of several threads.
///
/// Live Realms, objects and collections are deliberately not `Sendable`: they
/// belong to one thread, queue or actor, and Swift 6 then rejects sending them
/// at compile time. `Object` cannot be `Sendable` only when frozen, and marking it
/// `@unchecked Sendable` would make every model class restate that conformance
/// in Swift 6 mode; this wrapper carries the frozen ones instead.
public struct Frozen<Value: ThreadConfined>: @unchecked Sendable {
    // Unchecked: the initializer admits only frozen values, which any thread may read.
    public let value: Value

    /// Wraps value, which must be frozen: a live one traps, as reading it elsewhere would.
    public init(_ value: Value) {
        if !value.isFrozen {
            fatalError("Only frozen objects and collections can be sent across threads: call freeze() first")
        }
        self.value = value
    }
}
