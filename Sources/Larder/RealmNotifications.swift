import Foundation

extension Realm {
    /// What a Realm observer is told, as in Realm.
    public enum Notification: String {
        /// The Realm moved to a newer version: after this thread's commits, and
        /// when it refreshed onto other threads' and processes' commits.
        case didChange = "RLMRealmDidChangeNotification"
        /// Another thread or process committed and this Realm's autorefresh is off:
        /// it stays at its version until `refresh()` (which then sends `.didChange`).
        /// Sent once per newer version, where an autorefreshing Realm would refresh:
        /// the main queue after a commit of any thread or process (for the main
        /// thread's Realm), a queue observation's wake-up (for the queue's Realm),
        /// and `Realm()` on the Realm's thread.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// Calls block with `.didChange` each time this Realm moves to a newer
    /// version, on this thread (see `Object.observe` for when that happens), and
    /// with `.refreshRequired` when autorefresh is off and a newer version waits.
    /// Keep the token; `invalidate()` it to stop.
    public func observe(_ block: @escaping (Notification, Realm) -> Void) -> NotificationToken {
        instance.checkCanObserve(inWriteMessage: "Cannot register notification blocks from within write transactions.")
        return instance.notifier.addRealmObserver(block)
    }
}
