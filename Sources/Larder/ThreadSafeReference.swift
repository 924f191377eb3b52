import CLarder
import Foundation

/// A way to hand a live object or collection to another thread, as in Realm:
///
///     let reference = ThreadSafeReference(to: person)
///     DispatchQueue.global().async {
///         let realm = try! Realm()
///         guard let person = realm.resolve(reference) else { return } // deleted meanwhile
///     }
///
/// The reference may cross threads; what it refers to may not. Resolve it once, in a
/// Realm of the same file: you get the value as that Realm sees it (results: the same
/// query, sorts and source collection). Frozen values need no reference.
public struct ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    private let storage: ThreadSafeReferenceStorage<Confined>

    /// A reference to threadConfined, a managed object or collection.
    public init(to threadConfined: Confined) {
        guard let realm = threadConfined.realm else { fatalError("Cannot construct reference to unmanaged object") }
        if threadConfined.isInvalidated { fatalError("Cannot construct reference to invalidated object") }
        storage = ThreadSafeReferenceStorage(value: threadConfined, version: realm.instance.readVersion)
    }

    /// True once the reference was resolved: it cannot be resolved again.
    public var isInvalidated: Bool { storage.isResolved }

    /// The value in realm; nil when it was deleted there (the value resolved only once).
    func resolve(in realm: Realm) -> Confined? {
        let (value, version) = storage.take()
        return rebind(value, readAt: version, in: realm)
    }
}

/// value, a live value read at version in another instance of the file, in realm: nil
/// when it was deleted there. Realm moves a Realm that is behind that version forward to it.
func rebind<Confined: ThreadConfined>(_ value: Confined, readAt version: UInt64, in realm: Realm) -> Confined? {
    let instance = realm.instance
    if !instance.isInWriteTransaction && !instance.isFrozen && instance.readVersion < version { instance.refresh() }
    return value._rebound(to: realm)
}

/// The value a reference holds until it is resolved; any thread may resolve it.
final class ThreadSafeReferenceStorage<Confined: ThreadConfined>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Confined?
    private let version: UInt64

    init(value: Confined, version: UInt64) {
        self.value = value
        self.version = version
    }

    var isResolved: Bool { lock.withLock { value == nil } }

    /// The value and its version, once; a second call traps with Realm's message.
    func take() -> (Confined, UInt64) {
        lock.withLock {
            guard let taken = value else { fatalError("Can only resolve a thread safe reference once") }
            value = nil
            return (taken, version)
        }
    }
}

extension Realm {
    /// What reference refers to, in this Realm: nil when it was deleted. A
    /// reference resolves once. A Realm behind the reference's version refreshes first.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        instance.verifyThread()
        if isInWriteTransaction { fatalError("Cannot resolve thread safe reference during a write transaction.") }
        return reference.resolve(in: self)
    }
}

extension RealmInstance {
    /// The version this instance reads (beginning a read if it has none); in a
    /// write transaction, the version its commit will make.
    var readVersion: UInt64 {
        if isFrozen { return frozenVersion }
        return RealmInstance.version(of: currentTxn())
    }
}
