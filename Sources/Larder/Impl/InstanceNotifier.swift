import CLarder
import CLarderSwift
import Foundation

/// An observer of one collection or object, confined to its instance's thread
/// (or queue). It keeps what it needs of the state last delivered, and on each
/// delivery compares the current state with it.
class ThreadObserver {
    let token: NotificationToken
    /// Collections owe their first callback until the next delivery.
    var needsInitial: Bool

    init(token: NotificationToken, needsInitial: Bool) {
        self.token = token
        self.needsInitial = needsInitial
    }

    /// Sends `.initial` and records the current state.
    func deliverInitial() { fatalError("abstract") }
    /// Records the current state without a callback (a write that skips this token).
    func capture() { fatalError("abstract") }
    /// Sends what changed since the state recorded (local: the instance's own write), then records.
    func deliverChanges(local: Bool) { fatalError("abstract") }
}

/// An instance's observers and when it delivers to them: when it refreshes,
/// begins a write (which refreshes first), and after it commits. Observers see
/// changes between the version delivered last and the one the instance moved
/// to; a callback that refreshes or writes does not deliver again from inside.
final class InstanceNotifier {
    private unowned let instance: RealmInstance
    /// The instance's thread (or confinement) token, read without the instance.
    private let threadToken: UnsafeRawPointer
    private var realmObservers: [(token: NotificationToken, block: (Realm.Notification, Realm) -> Void)] = []
    private var observers: [ThreadObserver] = []
    /// The file version the observers have seen.
    private var deliveredVersion: UInt64
    private var isDelivering = false
    /// The snapshot the observers saw last (`deliveredVersion`), kept open from
    /// the instance's move to a newer one until that is delivered: the change
    /// sets of sets, maps and sorted results compare the two.
    private var oldSnapshot: (txn: OpaquePointer, version: UInt64)?
    /// The change logs read during one delivery, by the version they start at.
    private var changeLogs: [UInt64: OpaquePointer] = [:]
    /// On the main thread, while there are observers: deliveries from the main queue.
    private var mainQueue: MainQueueDelivery?
    /// The newest version Realm observers were told of with `.refreshRequired`.
    private var announcedVersion: UInt64 = 0

    init(instance: RealmInstance) {
        self.instance = instance
        threadToken = instance.threadToken
        deliveredVersion = instance.fileVersion()
    }

    /// Drops the observers of invalidated tokens (which hold their collections, and
    /// so the instance: invalidating from another thread leaves them until now).
    func removeInvalidated() {
        observers.removeAll { $0.token.isInvalidated }
        realmObservers.removeAll { $0.token.isInvalidated }
        if isEmpty { stopMainQueue() }
    }

    private func stopMainQueue() {
        mainQueue?.stop()
        mainQueue = nil
    }

    /// Stops main-queue delivery and frees the old snapshot; the instance's deinit calls
    /// it while its environment is still open.
    func free() {
        stopMainQueue()
        releaseOldSnapshot()
    }

    private func releaseOldSnapshot() {
        if let oldSnapshot { lar_txn_free(oldSnapshot.txn) }
        oldSnapshot = nil
    }

    var isEmpty: Bool { realmObservers.isEmpty && observers.isEmpty }

    /// Whether a refresh or write should keep the old snapshot and deliver: not from
    /// inside a callback (whose write is delivered at the next refresh).
    var isIdleWithObservers: Bool { !isEmpty && !isDelivering }

    /// What the first observer sees starts at the instance's version.
    private func willAddFirst() {
        if isEmpty && !isDelivering { deliveredVersion = instance.fileVersion() }
        if mainQueue == nil && MainQueueDelivery.applies { mainQueue = MainQueueDelivery(instance: instance) }
    }

    func add(_ observer: ThreadObserver) {
        willAddFirst()
        observers.append(observer)
        if observer.needsInitial { mainQueue?.deliverSoon() }
        observer.token.whenInvalidated { [weak self] in self?.removeInvalidatedOnOwnThread() }
    }

    func addRealmObserver(_ block: @escaping (Realm.Notification, Realm) -> Void) -> NotificationToken {
        let token = NotificationToken()
        willAddFirst()
        realmObservers.append((token, block))
        token.whenInvalidated { [weak self] in self?.removeInvalidatedOnOwnThread() }
        return token
    }

    /// What a token's invalidation does here: drop its observer now when called on the
    /// instance's thread (or queue); elsewhere nothing, as delivery skips invalidated
    /// tokens and drops them later. It reads no state of the instance: called from
    /// another thread, the instance may be going meanwhile where it lives (a queue's
    /// Realm whose last observation was this token's).
    private func removeInvalidatedOnOwnThread() {
        if threadToken == larder_swift_thread_token() { removeInvalidated() }
    }

    /// Delivers what is pending: first callbacks owed, and changes when the
    /// instance moved to a newer version. skipping: tokens of a
    /// `commitWrite(withoutNotifying:)`, which record the new state silently.
    func deliver(skipping: [NotificationToken] = [], local: Bool = false) {
        if isDelivering || isEmpty { return }
        isDelivering = true
        defer {
            for log in changeLogs.values { lar_changes_free(log) }
            changeLogs.removeAll(keepingCapacity: true) // a new dictionary each delivery cost more than its logs
            isDelivering = false
            releaseOldSnapshot()
        }
        removeInvalidated()
        let version = instance.fileVersion()
        let moved = version != deliveredVersion
        deliveredVersion = version
        for observer in observers where !observer.token.isInvalidated {
            if observer.needsInitial {
                observer.needsInitial = false
                observer.deliverInitial()
            } else if moved {
                if skipping.contains(where: { $0 === observer.token }) {
                    observer.capture()
                } else {
                    observer.deliverChanges(local: local)
                }
            }
        }
        guard moved else { return }
        let realm = Realm(instance: instance)
        for observer in realmObservers where !observer.token.isInvalidated
            && !skipping.contains(where: { $0 === observer.token }) {
            observer.block(.didChange, realm)
        }
    }

    /// Tells the Realm's observers with `.refreshRequired` that a version newer than
    /// the one they saw was committed (by another thread or process), once per
    /// version: what a Realm that does not autorefresh gets where it would refresh.
    func announceNewerVersion() {
        if realmObservers.isEmpty || isDelivering || instance.isInWriteTransaction { return }
        var newest: UInt64 = 0
        guard lar_env_version(instance.environment.handle, &newest) == LAR_OK,
              newest > max(deliveredVersion, announcedVersion) else { return }
        announcedVersion = newest
        let realm = Realm(instance: instance)
        for observer in realmObservers where !observer.token.isInvalidated {
            observer.block(.refreshRequired, realm)
        }
    }

    /// The changes committed after version up to the instance's; nil when the log
    /// no longer has them (observers then compare whole states).
    func changes(since version: UInt64) -> OpaquePointer? {
        if let log = changeLogs[version] { return log }
        var log: OpaquePointer?
        guard lar_changes_read(instance.currentTxn(), version, &log) == LAR_OK, let log else { return nil }
        changeLogs[version] = log
        return log
    }

    /// The instance's read transaction, detached as it moves on: kept when it is at
    /// the version delivered last (and no snapshot at that version is kept already).
    func keepOldSnapshot(_ txn: OpaquePointer?) {
        guard let txn else { return }
        var version: UInt64 = 0
        if oldSnapshot == nil && lar_txn_version(txn, &version) == LAR_OK && version == deliveredVersion {
            oldSnapshot = (txn, version)
        } else {
            lar_txn_free(txn)
        }
    }

    /// A read transaction still at version, when one is kept; nil otherwise.
    func transaction(at version: UInt64) -> OpaquePointer? {
        oldSnapshot?.version == version ? oldSnapshot?.txn : nil
    }
}
