import Foundation

/// What `observe` returns, as in Realm: keep it while you want the callbacks, and
/// call `invalidate()` (from any thread) to stop them. No callback starts after
/// `invalidate()` returns on the observer's own thread or queue; one already
/// running on a queue finishes. Dropping the token does not stop the callbacks.
public final class NotificationToken: @unchecked Sendable {
    private let lock = NSLock()
    /// What invalidating does: unregistering the observer, and for a queue's, its watch and Realm.
    private var onInvalidate: [() -> Void] = []
    private var invalidated = false

    init() {}

    /// Stops the notifications. Calling it again does nothing.
    public func invalidate() {
        let actions: [() -> Void] = lock.withLock {
            if invalidated { return [] }
            invalidated = true
            defer { onInvalidate = [] }
            return onInvalidate
        }
        for action in actions { action() }
    }

    /// True once `invalidate()` was called: delivery checks it before each callback.
    var isInvalidated: Bool { lock.withLock { invalidated } }

    /// Adds to what invalidating does besides stopping callbacks; runs action now if it was.
    func whenInvalidated(_ action: @escaping () -> Void) {
        let runNow: Bool = lock.withLock {
            if invalidated { return true }
            onInvalidate.append(action)
            return false
        }
        if runNow { action() }
    }
}
