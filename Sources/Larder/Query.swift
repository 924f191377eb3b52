import CLarder
import Foundation

/// Realm's type-safe query, as in `realm.objects(Dog.self).where { $0.age > 2 && $0.name.starts(with: "R") }`.
///
/// A `Query<T>` is an expression of type `T` over the objects being filtered:
/// a property (`$0.name`, through links and collections: `$0.owner.name`,
/// `$0.dogs.age`), an aggregate (`$0.dogs.count`, `$0.scores.avg`), a map's
/// `keys`, `values` or `["key"]`; comparing one gives a `Query<Bool>`, which
/// `&&`, `||` and `!` combine. The query is built as the C core's AST, never as
/// text, so no value is ever quoted.
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryNode

    init(_ node: QueryNode) { self.node = node }

    /// The root of a query over objects of a class.
    static func root() -> Query<T> { Query(.path(QueryPath())) }

    /// A property of the objects.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> where T: Object {
        Query<V>(node.appending(property: keyPath, of: T.self))
    }

    /// A property of the object an optional link points to.
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Wrapped, V>) -> Query<V> where T: _QueryOptional, T.Wrapped: Object {
        Query<V>(node.appending(property: keyPath, of: T.Wrapped.self))
    }

    /// A property of the objects of a List, MutableSet or LinkingObjects: compared, it means ANY of them.
    public subscript<V>(dynamicMember keyPath: KeyPath<T._QueryElement, V>) -> Query<V>
        where T: _QueryCollection, T._QueryElement: Object {
        Query<V>(node.appending(property: keyPath, of: T._QueryElement.self))
    }
}

/// Options of the string comparisons, as Realm's.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// `[c]`: "a" matches "A".
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: "e" matches "é".
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

// MARK: Marker protocols (not part of the API)

/// Optional, for key paths through optional links.
public protocol _QueryOptional { associatedtype Wrapped }
extension Optional: _QueryOptional {}

/// List, MutableSet and LinkingObjects: key paths through them mean their elements.
public protocol _QueryCollection { associatedtype _QueryElement }
extension List: _QueryCollection { public typealias _QueryElement = Element }
extension MutableSet: _QueryCollection { public typealias _QueryElement = Element }
extension LinkingObjects: _QueryCollection { public typealias _QueryElement = Element }

/// Types `<`, `<=`, `>`, `>=` and ranges apply to.
public protocol _QueryComparable {}
extension Int: _QueryComparable {}
extension Int8: _QueryComparable {}
extension Int16: _QueryComparable {}
extension Int32: _QueryComparable {}
extension Int64: _QueryComparable {}
extension Float: _QueryComparable {}
extension Double: _QueryComparable {}
extension Date: _QueryComparable {}
extension Decimal128: _QueryComparable {}
extension String: _QueryComparable {}
extension Data: _QueryComparable {}
extension AnyRealmValue: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {}

/// Types the string operators apply to.
public protocol _QueryString {}
extension String: _QueryString {}
extension Data: _QueryString {}
extension AnyRealmValue: _QueryString {}
extension Optional: _QueryString where Wrapped: _QueryString {}

// MARK: Comparisons

extension Query where T: _Persistable {
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(LAR_QUERY_EQ, rhs) }
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(LAR_QUERY_NE, rhs) }
    /// Two properties of the same type.
    public static func == (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(LAR_QUERY_EQ, rhs.node) }
    public static func != (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(LAR_QUERY_NE, rhs.node) }

    /// Whether the value is one of values (`IN {...}`).
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        Query<Bool>(.compare(node, LAR_QUERY_IN, 0, LAR_QUERY_PLAIN, .list(values.map(\._larderStored))))
    }

    func compare(_ op: lar_query_op, _ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(op, .value(value._larderStored), options: options)
    }
}

extension Query {
    func compare(_ op: lar_query_op, _ right: QueryNode, options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.compare(node, op, UInt32(options.rawValue), LAR_QUERY_PLAIN, right))
    }
}

extension Query where T: _Persistable & _QueryComparable {
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(LAR_QUERY_LT, rhs) }
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(LAR_QUERY_LE, rhs) }
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(LAR_QUERY_GT, rhs) }
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(LAR_QUERY_GE, rhs) }
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(LAR_QUERY_LT, rhs.node) }
    public static func <= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(LAR_QUERY_LE, rhs.node) }
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(LAR_QUERY_GT, rhs.node) }
    public static func >= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(LAR_QUERY_GE, rhs.node) }

    /// `BETWEEN {lower, upper}`, both included.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> where T: Comparable {
        Query<Bool>(.compare(node, LAR_QUERY_BETWEEN, 0, LAR_QUERY_PLAIN,
                             .list([range.lowerBound._larderStored, range.upperBound._larderStored])))
    }

    /// At least lower and below upper.
    public func contains(_ range: Range<T>) -> Query<Bool> where T: Comparable {
        self >= range.lowerBound && self < range.upperBound
    }
}

extension Query where T: _QueryOptional, T.Wrapped: _Persistable & _QueryComparable & Comparable {
    /// `BETWEEN {lower, upper}` on an optional property (nil is in no range).
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        Query<Bool>(.compare(node, LAR_QUERY_BETWEEN, 0, LAR_QUERY_PLAIN,
                             .list([range.lowerBound._larderStored, range.upperBound._larderStored])))
    }

    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        compare(LAR_QUERY_GE, .value(range.lowerBound._larderStored)) && compare(LAR_QUERY_LT, .value(range.upperBound._larderStored))
    }
}

// MARK: Strings and data

extension Query where T: _Persistable & _QueryString {
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(LAR_QUERY_CONTAINS, value, options: options)
    }

    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(LAR_QUERY_BEGINSWITH, value, options: options)
    }

    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(LAR_QUERY_ENDSWITH, value, options: options)
    }

    /// `LIKE`: `*` matches any run of characters, `?` one character.
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(LAR_QUERY_LIKE, value, options: caseInsensitive ? .caseInsensitive : [])
    }

    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(LAR_QUERY_EQ, value, options: options)
    }

    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(LAR_QUERY_NE, value, options: options)
    }
}

// MARK: Logic

extension Query where T == Bool {
    public static func && (lhs: Query, rhs: Query) -> Query { Query(.and(lhs.node.predicate, rhs.node.predicate)) }
    public static func || (lhs: Query, rhs: Query) -> Query { Query(.or(lhs.node.predicate, rhs.node.predicate)) }
    public static prefix func ! (query: Query) -> Query { Query(.not(query.node.predicate)) }

    /// A subquery's count: how many elements of the collection the key paths of
    /// this predicate go through match all of it, as Realm's
    /// `($0.dogs.age > 1 && $0.dogs.name == "Rex").count > 0`.
    public var count: Query<Int> { Query<Int>(node.subquery()) }
}

// MARK: Collections

extension Query where T: _QueryCollection {
    /// How many elements (`@count`).
    public var count: Query<Int> { Query<Int>(node.aggregated(LAR_QUERY_COUNT)) }

    /// Whether the collection holds value (`value IN collection`).
    public func contains(_ value: T._QueryElement) -> Query<Bool> where T._QueryElement: _Persistable {
        Query<Bool>(.compare(.value(value._larderStored), LAR_QUERY_IN, 0, LAR_QUERY_PLAIN, node))
    }

    /// Whether the collection holds any of values (`ANY collection IN {...}`).
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T._QueryElement, S.Element: _Persistable {
        Query<Bool>(.compare(node, LAR_QUERY_IN, 0, LAR_QUERY_ANY, .list(values.map(\._larderStored))))
    }

    /// Comparing a collection with a value means ANY of its elements.
    public static func == (lhs: Query, rhs: T._QueryElement) -> Query<Bool> where T._QueryElement: _Persistable {
        lhs.compare(LAR_QUERY_EQ, .value(rhs._larderStored))
    }

    public static func != (lhs: Query, rhs: T._QueryElement) -> Query<Bool> where T._QueryElement: _Persistable {
        lhs.compare(LAR_QUERY_NE, .value(rhs._larderStored))
    }

    public static func > (lhs: Query, rhs: T._QueryElement) -> Query<Bool> where T._QueryElement: _Persistable & _QueryComparable {
        lhs.compare(LAR_QUERY_GT, .value(rhs._larderStored))
    }

    public static func < (lhs: Query, rhs: T._QueryElement) -> Query<Bool> where T._QueryElement: _Persistable & _QueryComparable {
        lhs.compare(LAR_QUERY_LT, .value(rhs._larderStored))
    }
}

extension Query where T: _QueryCollection, T._QueryElement: MinMaxType {
    /// The smallest element (`@min`).
    public var min: Query<T._QueryElement> { Query<T._QueryElement>(node.aggregated(LAR_QUERY_MIN)) }
    /// The largest element (`@max`).
    public var max: Query<T._QueryElement> { Query<T._QueryElement>(node.aggregated(LAR_QUERY_MAX)) }
}

extension Query where T: _QueryCollection, T._QueryElement: AddableType {
    /// The mean of the elements (`@avg`).
    public var avg: Query<T._QueryElement> { Query<T._QueryElement>(node.aggregated(LAR_QUERY_AVG)) }
    /// The sum of the elements (`@sum`).
    public var sum: Query<T._QueryElement> { Query<T._QueryElement>(node.aggregated(LAR_QUERY_SUM)) }
}

// MARK: Maps

/// Map, for its keys and values in queries.
public protocol _QueryMap { associatedtype _QueryValue }
extension Map: _QueryMap { public typealias _QueryValue = Value }

extension Query where T: _QueryMap {
    /// The map's keys (`@keys`): compared, ANY of them.
    public var keys: Query<String> { Query<String>(node.appending(step: .keys)) }
    /// The map's values (`@values`): compared, ANY of them.
    public var values: Query<T._QueryValue> { Query<T._QueryValue>(node.appending(step: .values)) }
    /// The value at key.
    public subscript(key: String) -> Query<T._QueryValue> { Query<T._QueryValue>(node.appending(step: .key(key))) }
    /// How many entries (`@count`).
    public var count: Query<Int> { Query<Int>(node.aggregated(LAR_QUERY_COUNT)) }
}

// MARK: Enums and custom types

extension Query where T: PersistableEnum {
    /// The enum's raw value, as stored.
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(node) }
}

extension Query where T: _QueryOptional, T.Wrapped: PersistableEnum {
    public var rawValue: Query<T.Wrapped.RawValue?> { Query<T.Wrapped.RawValue?>(node) }
}

extension Query where T: _CustomPersistable {
    /// A custom type's persisted value, as stored.
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}
