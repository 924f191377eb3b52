import Foundation

/// What every Realm collection offers, as in Realm: `Results` (of objects or
/// values), `List` and `MutableSet` of objects, and `LinkingObjects`. Live,
/// confined to their Realm's thread, positions from 0.
///
/// Lists and sets of plain values (`List<Int>`) have the same members where
/// they make sense, outside this protocol; their `sorted(ascending:)` and
/// `distinct()` give `Results`, which conform.
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible
    where Element: RealmCollectionValue, Index == Int {
    /// The Realm the collection belongs to.
    var realm: Realm? { get }
    /// True once the collection can no longer be read.
    var isInvalidated: Bool { get }
    var count: Int { get }
    var first: Element? { get }
    var last: Element? { get }

    /// The position of object, or nil when it is not in the collection.
    func index(of object: Element) -> Int?
    /// The elements at indexes, in ascending order of index; an index past the end traps.
    func objects(at indexes: IndexSet) -> [Element]

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

    public func objects(at indexes: IndexSet) -> [Element] {
        checkObjectIndexes(indexes, count: count)
        return indexes.map { self[$0] }
    }
}

extension RealmCollection where Element: Object {

    /// Sorted on the persisted property keyPath reads, as `sorted(by: \.age)`.
    public func sorted<Value: _Persistable>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: Element.schema.propertyName(of: keyPath), ascending: ascending)
    }

    /// The first object, in this order, of each combination of the values of the
    /// properties keyPaths name, as Results (managed collections only, as sorting).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        sorted(by: []).distinct(by: keyPaths)
    }

    /// The same with key paths of the model, as `distinct(by: [\.name, \.age])`.
    public func distinct(by keyPaths: [PartialKeyPath<Element>]) -> Results<Element> {
        distinct(by: keyPaths.map { Element.schema.propertyName(ofAny: $0, root: Element.self, for: "distinct(by:)") })
    }

    // MARK: Filtering

    /// The objects that match the query isIncluded builds, in this order (see `Results.where`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        sorted(by: []).where(isIncluded)
    }

    /// The objects that match a predicate in Realm's query language (see `Results.filter`).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        sorted(by: []).filter(predicateFormat, arguments: args.map { $0 as Any? })
    }

    /// The position of the first object that matches the query; nil when none does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        sorted(by: []).index(matching: isIncluded)
    }

    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        sorted(by: []).index(matching: predicateFormat, arguments: args.map { $0 as Any? })
    }

    // MARK: Aggregates

    /// The smallest value of property among the objects, nil values skipped; nil
    /// when there is none. The property must be an integer, `Float`, `Double`,
    /// `Date` or `Decimal128` (or an optional one).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { aggregate(.min, property) }

    /// The largest value of property among the objects, nil values skipped; nil when there is none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { aggregate(.max, property) }

    /// The sum of property over the objects, nil values skipped; zero when there is none.
    /// The property must be an integer, `Float`, `Double` or `Decimal128` (or an optional one).
    public func sum<T: AddableType>(ofProperty property: String) -> T { aggregate(.sum, property)! }

    /// The mean of property over the objects, nil values skipped; nil when there is none.
    public func average<T: AddableType>(ofProperty property: String) -> T? { aggregate(.average, property) }

    /// `min(ofProperty:)` on the persisted property keyPath reads, as `min(of: \.age)`.
    public func min<T: MinMaxType & _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        min(ofProperty: Element.schema.propertyName(of: keyPath, for: "min(of:)"))
    }

    public func max<T: MinMaxType & _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        max(ofProperty: Element.schema.propertyName(of: keyPath, for: "max(of:)"))
    }

    public func sum<T: AddableType & _Persistable>(of keyPath: KeyPath<Element, T>) -> T {
        sum(ofProperty: Element.schema.propertyName(of: keyPath, for: "sum(of:)"))
    }

    public func average<T: AddableType & _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: Element.schema.propertyName(of: keyPath, for: "average(of:)"))
    }

    private func aggregate<T: MinMaxType>(_ operation: AggregateOperation, _ property: String) -> T? {
        let run = {
            let aggregating = self as? ObjectAggregating
            let source = aggregating?.aggregateSource ?? ObjectAggregate.source(of: self)
            return ObjectAggregate.run(operation, property, of: Element.self, source, memo: aggregating?.aggregateMemo,
                                       as: T.self)
        }
        guard let instance = realm?.instance else { return run() }
        return instance.serialized(run)
    }
}

/// Traps unless every index is below count, with Realm's message.
func checkObjectIndexes(_ indexes: IndexSet, count: Int) {
    if let first = indexes.first, let last = indexes.last, first < 0 || last >= count {
        fatalError("Indexes for collection are out of bounds.")
    }
}
