import Foundation

/// Any Realm collection of Element, behind one type, as in Realm: for code that
/// takes results today and lists later; `Results` of values too.
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    let base: any RealmCollection<Element>

    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        self.base = base
    }

    init(erased base: any RealmCollection<Element>) {
        self.base = base
    }

    public var realm: Realm? { base.realm }
    public var isInvalidated: Bool { base.isInvalidated }
    public var description: String { base.description }

    public var startIndex: Int { 0 }
    public var endIndex: Int { base.count }
    public var count: Int { base.count }
    public subscript(position: Int) -> Element { base[position] }
    public var first: Element? { base.first }
    public var last: Element? { base.last }
    public func makeIterator() -> AnyIterator<Element> {
        var iterator = base.makeIterator() as any IteratorProtocol<Element>
        return AnyIterator { iterator.next() }
    }

    public func index(of object: Element) -> Int? { base.index(of: object) }
    public func objects(at indexes: IndexSet) -> [Element] { base.objects(at: indexes) }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        base.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        base.sorted(by: descriptors)
    }

    public func value(forKey key: String) -> Any? { base.value(forKey: key) }
    public func value(forKeyPath keyPath: String) -> Any? { base.value(forKeyPath: keyPath) }
    public func setValue(_ value: Any?, forKey key: String) { base.setValue(value, forKey: key) }
}

extension AnyRealmCollection: ObjectAggregating where Element: Object {
    /// The wrapped collection's way to its objects, so aggregates read as fast through the eraser.
    var aggregateSource: AggregateSource {
        (base as? ObjectAggregating)?.aggregateSource ?? ObjectAggregate.source(of: base)
    }

    var aggregateMemo: AggregateMemo? { (base as? ObjectAggregating)?.aggregateMemo }
}
