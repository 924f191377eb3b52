import CLarderSwift
import Dispatch
import Foundation

/// What a Realm instance, its objects and its collections may be used from.
///
/// The check has two steps. `verifyThread()` compares the instance's token with
/// `larder_swift_thread_token()`: the calling thread, or the confinement override
/// a block run by `withConfinement` set. Equal tokens pass at the cost of a load
/// and a compare; that is the whole check for a thread-confined instance on its
/// thread and for work Larder itself runs for a queue or an actor (deliveries,
/// async writes). Otherwise `isCurrent` decides: a queue-confined instance passes
/// inside any block of its queue (a DispatchQueue specific), an actor-confined one
/// on its actor's executor (the runtime's executor check, what `assertIsolated`
/// uses), a thread-confined one when the override belongs to someone else but the
/// thread is its own; the main thread's also on the main queue, wherever Linux
/// runs it (`QueueContext.isMainQueueOrThread`).
///
/// Rows a class caches carry the reading thread in their stamp (`cacheStamp`), so a
/// read from another thread misses the cache and reaches the check. A queue's or an
/// actor's work moves between threads, and a thread that ran it may later run
/// anything: rows decoded where only the slow check passed are stamped so that no
/// read hits them (`decodeStamp`); every read there takes the slow check again, and
/// reads the row again only if another thread or version decoded it since (`load`).
/// Work Larder runs for the queue or actor (`withConfinement`) keeps the fast path.
/// Swift 6 language mode rules most misuse out statically besides: Realm, objects
/// and live collections are not Sendable, so they cannot leave the actor or the
/// queue's closures without `@unchecked`/`nonisolated(unsafe)`.
@usableFromInline
enum Confinement {
    case thread(isMain: Bool)
    case queue(QueueContext)
    case actor(any Actor, ActorContext)
    /// A frozen instance: any thread (its reads are serialized).
    case frozen

    /// The token an instance so confined compares with `larder_swift_thread_token()`.
    var token: UnsafeRawPointer {
        switch self {
        case .thread: return larder_swift_os_thread_token()
        case .queue(let context): return UnsafeRawPointer(Unmanaged.passUnretained(context).toOpaque())
        case .actor(_, let context): return UnsafeRawPointer(Unmanaged.passUnretained(context).toOpaque())
        case .frozen: return UnsafeRawPointer(bitPattern: 1)!  // no thread's: always the slow check
        }
    }

    /// The slow half of the check, for callers whose token differs from instanceToken.
    func isCurrent(instanceToken: UnsafeRawPointer) -> Bool {
        switch self {
        case .thread(let isMain):
            return instanceToken == larder_swift_os_thread_token() || isMain && QueueContext.isMainQueueOrThread
        case .queue(let context): return QueueContext.current === context
        case .actor(let actor, _): return isCurrentExecutor(actor.unownedExecutor)
        case .frozen: return true
        }
    }

    /// asyncWrite needs an actor to suspend on: Realm allows it on actor-confined
    /// instances and on the main thread's.
    var allowsAsyncWrite: Bool {
        switch self {
        case .thread(let isMain): return isMain
        case .queue, .frozen: return false
        case .actor: return true
        }
    }
}

/// Runs body with token as the confinement override, restoring the previous one after.
/// Work delivered to a queue or an actor on behalf of an instance confined there
/// runs inside it, so the instance's checks take their fast path.
@inline(__always)
func withConfinement<R>(_ token: UnsafeRawPointer, _ body: () throws -> R) rethrows -> R {
    let previous = larder_swift_confinement_swap(token)
    defer { larder_swift_confinement_swap(previous) }
    return try body()
}

/// A dispatch queue's Realm state, stored in the queue as a specific: its
/// instances (`Realm(configuration:queue:)` returns the same one each time) and
/// the identity queue-confined instances check against.
@usableFromInline
final class QueueContext: @unchecked Sendable {
    // Unchecked: `cache` is an InstanceCache, which locks; the rest is immutable.

    private static let key = DispatchSpecificKey<QueueContext>()
    private static let creation = NSLock()

    let queue: DispatchQueue
    let cache = InstanceCache()

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The context of the queue whose block is running, if it has one.
    static var current: QueueContext? { DispatchQueue.getSpecific(key: key) }

    /// The main queue's, which the main thread's Realm belongs to as well (see isMainQueueOrThread).
    static let main = QueueContext.of(DispatchQueue.main)

    /// Whether the caller is the main thread or runs a block of the main queue. On
    /// Linux, once a program calls `dispatchMain()` (as an async `main` does), the
    /// main queue, and with it the main actor, runs on other threads: the main
    /// thread's Realm stays usable there, as it is on the main queue elsewhere.
    static var isMainQueueOrThread: Bool { Thread.isMainThread || current === main }

    /// queue's context, made on first use.
    static func of(_ queue: DispatchQueue) -> QueueContext {
        creation.withLock {
            if let existing = queue.getSpecific(key: key) { return existing }
            let context = QueueContext(queue: queue)
            queue.setSpecific(key: key, value: context)
            return context
        }
    }
}

/// The identity of one actor-confined instance: its address is the instance's token.
@usableFromInline
final class ActorContext: Sendable {
    init() {}
}

/// Whether the caller runs on executor: the runtime's test behind `assumeIsolated`,
/// without its trap (Realm's misuse message must be ours). See CLarderSwift.h.
func isCurrentExecutor(_ executor: UnownedSerialExecutor) -> Bool {
    let words = unsafeBitCast(executor, to: (UnsafeRawPointer?, UInt).self)
    return larder_swift_is_current_executor(words.0, words.1) != 0
}
