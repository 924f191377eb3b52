import Foundation

/// What a collection observer receives, as in Realm: `.initial` once, first,
/// then `.update` after each commit that changed the collection's membership,
/// order, or a property of an element. `deletions` and `modifications` are
/// indices in the collection as it was before the commit, `insertions` indices
/// in it after; each array is sorted ascending. `.error` is never sent (Realm's
/// is unused too) and is here so that switches written for Realm compile.
@frozen
public enum RealmCollectionChange<CollectionType> {
    case initial(CollectionType)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(Error)
}

/// What a `Map` observer receives: the same as `RealmCollectionChange`, with the
/// keys that were removed, added, and whose values changed.
@frozen
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    case initial(Collection)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    case error(Error)
}

/// What an object observer receives, as in Realm: there is no initial callback;
/// `.change` after a commit that changed observed properties, `.deleted` once the
/// object is deleted (the last callback). `.error` is never sent.
@frozen
public enum ObjectChange<T> {
    case error(_ error: NSError)
    case change(T, _ properties: [PropertyChange])
    case deleted
}

/// One property an object observer was told changed. `oldValue` is nil when the
/// write was made by the observer's own thread or queue (as in Realm), and both
/// values are nil for collection properties.
public struct PropertyChange {
    public let name: String
    public let oldValue: Any?
    public let newValue: Any?
}
