/// What every Realm collection of objects offers, as in Realm: `Results`,
/// `List` and `MutableSet` of objects, and `LinkingObjects`. Live, confined to
/// their Realm's thread, positions from 0.
///
/// Elements are objects: collections of plain values (`List<Int>`) have the
/// same members where they make sense, outside this protocol.
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible
    where Element: Object, Index == Int {
    /// The Realm the collection belongs to.
    var realm: Realm? { get }
    /// True once the collection can no longer be read.
    var isInvalidated: Bool { get }
    var count: Int { get }
    var first: Element? { get }
    var last: Element? { get }

    /// The position of object, or nil when it is not in the collection.
    func index(of object: Element) -> Int?

    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>
    func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor

    /// An array of the value of key for every element ("self": the elements).
    func value(forKey key: String) -> Any?
    func value(forKeyPath keyPath: String) -> Any?
    /// Sets key on every element; only inside a write transaction.
    func setValue(_ value: Any?, forKey key: String)
}

extension RealmCollection {
    public func sorted(byKeyPath keyPath: String) -> Results<Element> {
        sorted(byKeyPath: keyPath, ascending: true)
    }
}
