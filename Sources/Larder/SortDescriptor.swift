/// A property to sort `Results` by, as in Realm.
public struct SortDescriptor: Hashable, Sendable, ExpressibleByStringLiteral {
    public let keyPath: String
    public let ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same property in the other direction.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }
}

extension _StoredValue {
    /// Realm's sort order within one property: null first, then by value.
    static func ascending(_ a: _StoredValue, _ b: _StoredValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case (.int(let x), .int(let y)): return x < y
        case (.bool(let x), .bool(let y)): return !x && y
        case (.float(let x), .float(let y)): return x < y
        case (.double(let x), .double(let y)): return x < y
        case (.string(let x), .string(let y)): return x < y
        case (.data(let x), .data(let y)): return x.lexicographicallyPrecedes(y)
        case (.date(let x), .date(let y)): return x < y
        case (.objectId(let x), .objectId(let y)): return x < y
        case (.uuid(let x), .uuid(let y)): return x.uuidString < y.uuidString
        case (.decimal128(let x), .decimal128(let y)): return x < y
        default: return mixedAscending(a, b) // values of two types: only a mixed property holds them
        }
    }
}
