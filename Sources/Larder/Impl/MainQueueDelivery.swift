import CLarderSwift
import Foundation

/// The main thread's deliveries without a call to `refresh()`: after any commit
/// of any thread or process (the file's `CommitWatcher` wakes it) a block on the
/// main queue refreshes the main thread's Realm when autorefresh is on, which
/// delivers (when it is off, Realm observers get `.refreshRequired`); a collection's
/// `.initial` is sent from the main queue too. The main queue runs under
/// `dispatchMain()`, `RunLoop.main.run()` and XCTest's waits; a program that runs
/// neither still gets its callbacks when it refreshes or writes.
final class MainQueueDelivery: CommitSubscriber, @unchecked Sendable {
    /// Unretained, as a weak reference would slow every retain of the instance;
    /// used only on the main thread while `isActive`, which the instance's
    /// notifier clears (on the main thread) before the instance can go.
    private let instance: Unmanaged<RealmInstance>
    private let watcher: CommitWatcher
    private var isActive = true
    private let lock = NSLock()
    private var refreshQueued = false

    init(instance: RealmInstance) {
        self.instance = Unmanaged.passUnretained(instance)
        watcher = CommitWatcher.watcher(for: instance.environment)
        watcher.add(self)
    }

    /// On the main thread: no block runs after this.
    func stop() {
        isActive = false
        watcher.remove(self)
    }

    /// Called on the watcher's thread.
    func commitSeen() {
        let queued: Bool = lock.withLock {
            defer { refreshQueued = true }
            return refreshQueued
        }
        if queued { return }
        DispatchQueue.main.async { [self] in
            lock.withLock { refreshQueued = false }
            withInstance { $0.autorefreshOrAnnounce() }
        }
    }

    /// Sends what is owed (a collection's `.initial`) from the main queue.
    func deliverSoon() {
        DispatchQueue.main.async { [self] in withInstance { $0.observers?.deliver() } }
    }

    private func withInstance(_ body: (RealmInstance) -> Void) {
        guard isActive else { return }
        let instance = instance.takeUnretainedValue()
        if !instance.isInWriteTransaction { body(instance) }
    }

    /// Whether instances made here get main-queue delivery: on the main thread, not inside a confinement.
    static var applies: Bool { Thread.isMainThread && larder_swift_confinement_override_get() == nil }
}
