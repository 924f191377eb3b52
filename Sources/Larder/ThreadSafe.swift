import Foundation

/// A property that any thread may read, holding a managed object or collection, as
/// Realm's `@ThreadSafe`:
///
///     final class Screen {
///         @ThreadSafe var person: Person?
///     }
///     screen.person = person                 // on the person's thread
///     DispatchQueue.global().async {
///         screen.person?.name                // this thread's Realm: nil if deleted
///     }
///
/// Each read resolves the value in the reading thread's Realm for the file (the one
/// `Realm(configuration:)` gives there, moved forward first if it is behind the
/// version the value was last read at), and gives nil once it was deleted. A frozen
/// value is given as it is. Setting an unmanaged value traps with Realm's message.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    // Unchecked: `held` is read and written under `lock`; its value is only rebound
    // (its identity read) off its thread, as ThreadSafeReference does.
    private let lock = NSLock()
    /// The value as a thread last set or read it, the version that thread read and the
    /// file's configuration; nil for nil or once the value was found deleted.
    private var held: (value: T, version: UInt64, configuration: Realm.Configuration)?
    /// Bumped by every set: a read stores what it resolved only if no set came meanwhile.
    private var generation = 0

    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    public var wrappedValue: T? {
        get {
            let (current, readGeneration) = lock.withLock { (held, generation) }
            guard let current else { return nil }
            if current.value.isFrozen { return current.value }
            let realm: Realm
            do {
                realm = try Realm(configuration: current.configuration)
            } catch {
                fatalError("Cannot open the Realm of a @ThreadSafe value: \(error)")
            }
            let resolved = rebind(current.value, readAt: current.version, in: realm)
            // Later reads start from this thread's value and version, as Realm's reference does.
            let update = resolved.map { ($0, realm.instance.readVersion, current.configuration) }
            lock.withLock { if generation == readGeneration { held = update } }
            return resolved
        }
        set {
            let update = newValue.map { value -> (T, UInt64, Realm.Configuration) in
                guard let realm = value.realm else { fatalError("Cannot construct reference to unmanaged object") }
                if value.isInvalidated { fatalError("Cannot construct reference to invalidated object") }
                return (value, realm.instance.readVersion, realm.configuration)
            }
            lock.withLock {
                held = update
                generation += 1
            }
        }
    }
}
