import CLarder

// Queries over collections of plain values, as Realm filters its collections of
// primitives: each value is `self` in the query language (`filter("self > 5")`) and `$0`
// itself in the DSL (`where { $0 > 5 }`, `where { $0.starts(with: "a") }`). The C core
// parses and tests them (`lar_query_parse_values`, `lar_query_match_values`); the result
// keeps the collection's order and stays live, as the collection's other Results.

extension Query {
    /// The root of a query over values: the value itself, `self`.
    static func valueRoot() -> Query<T> {
        Query(.path(QueryPath(steps: [.property("self", throughCollection: false)])))
    }
}

extension Results {
    /// The values that match the query isIncluded builds, `$0` being each value:
    /// `list.sorted().where { $0 > 5 }`. Results of values only: results of objects
    /// filter by their properties (`Element: Object`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let node = isIncluded(Query<Element>.valueRoot()).node
        return filteredValues(by: QueryHandle.build(node, environment: instance.environment,
                                                    subject: .values(of: Element.self)))
    }

    /// The values that match a predicate in Realm's query language, each value named
    /// `self`: `filter("self > %@", 5)`. Results of values only, as `where`.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        valueFilter(predicateFormat, arguments: args.map { $0 as Any? })
    }

    /// The position of the first value that matches the query isIncluded builds; nil when none does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        firstIndex(of: self.where(isIncluded))
    }

    /// The same with a predicate in Realm's query language.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        valueIndex(matching: predicateFormat, arguments: args.map { $0 as Any? })
    }

    func valueIndex(matching predicateFormat: String, arguments: [Any?]) -> Int? {
        firstIndex(of: valueFilter(predicateFormat, arguments: arguments))
    }

    /// A value's match depends on the value alone: the first match's first position is the first matching one.
    private func firstIndex(of matching: Results<Element>) -> Int? {
        guard let first = matching.first else { return nil }
        return values().firstIndex { List<Element>.same($0, first) }
    }

    func valueFilter(_ predicateFormat: String, arguments: [Any?]) -> Results<Element> {
        filteredValues(by: QueryArgument.parse(predicateFormat, arguments, environment: instance.environment,
                                               subject: .values(of: Element.self)))
    }
}

extension List {
    /// The elements that match the query isIncluded builds, in the list's order, as
    /// live results (a managed list only, as in Realm): `scores.where { $0 >= 90 }`.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        valueResults().where(isIncluded)
    }

    /// The same with a predicate in Realm's query language: `tags.filter("self BEGINSWITH 'a'")`.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        valueResults().valueFilter(predicateFormat, arguments: args.map { $0 as Any? })
    }

    /// The position of the first element that matches the query isIncluded builds; nil when none does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        valueResults().index(matching: isIncluded)
    }

    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        valueResults().valueIndex(matching: predicateFormat, arguments: args.map { $0 as Any? })
    }

    private func valueResults() -> Results<Element> {
        Results(values: self, kind: "RLMArray", read: { Array($0) })
    }
}

extension MutableSet {
    /// The elements that match the query isIncluded builds, as live results (a managed set only).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        valueResults().where(isIncluded)
    }

    /// The same with a predicate in Realm's query language.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        valueResults().valueFilter(predicateFormat, arguments: args.map { $0 as Any? })
    }

    private func valueResults() -> Results<Element> {
        Results(values: self, kind: "RLMSet", read: { Array($0) })
    }
}

extension Map {
    /// The values that match the query isIncluded builds, in key order, as live
    /// results (a managed map only): `scores.where { $0 > 10 }`.
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        valueResults().where(isIncluded)
    }

    /// The same with a predicate in Realm's query language.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value> {
        valueResults().valueFilter(predicateFormat, arguments: args.map { $0 as Any? })
    }
}

// A member of the class itself outranks one of a protocol extension, whatever their
// constraints: these keep lists and sets of objects on the object queries.
extension List where Element: Object {
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        sorted(by: []).where(isIncluded)
    }

    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        sorted(by: []).index(matching: isIncluded)
    }

    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        sorted(by: []).index(matching: predicateFormat, arguments: args.map { $0 as Any? })
    }

    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        sorted(by: []).filter(predicateFormat, arguments: args.map { $0 as Any? })
    }
}

extension MutableSet where Element: Object {
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        sorted(by: []).where(isIncluded)
    }

    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        sorted(by: []).filter(predicateFormat, arguments: args.map { $0 as Any? })
    }
}
