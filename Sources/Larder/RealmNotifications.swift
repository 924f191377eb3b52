import Foundation

extension Realm {
    /// What a Realm observer is told, as in Realm.
    public enum Notification: String {
        /// The Realm moved to a newer version: after this thread's commits, and
        /// when it refreshed onto other threads' and processes' commits.
        case didChange = "RLMRealmDidChangeNotification"
        /// Realm sends it when another thread committed while autorefresh is off;
        /// Larder never sends it (see README, "Notifications").
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// Calls block with `.didChange` each time this Realm moves to a newer
    /// version, on this thread (see `Object.observe` for when that happens).
    /// Keep the token; `invalidate()` it to stop.
    public func observe(_ block: @escaping (Notification, Realm) -> Void) -> NotificationToken {
        instance.checkCanObserve(inWriteMessage: "Cannot register notification blocks from within write transactions.")
        return instance.notifier.addRealmObserver(block)
    }
}
