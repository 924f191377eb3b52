import Foundation

/// The types `min` and `max` can return, as in Realm: the integers, `Float`,
/// `Double`, `Date`, `Decimal128` (and `NSNumber`), and their optionals.
public protocol MinMaxType {
    /// The result of an aggregate (an int, float, double, date or decimal
    /// stored value) as this type; nil when it is not one of this type's values.
    static func _larderFromAggregate(_ value: _StoredValue) -> Self?
}

/// The types `sum` and `average` can return, as in Realm: `MinMaxType` without `Date`.
public protocol AddableType: MinMaxType {}

/// An integer from a number, as NSNumber's accessors give it (a fraction truncated); nil out of range.
private func integer<I: FixedWidthInteger>(_ value: _StoredValue, as type: I.Type) -> I? {
    switch value {
    case .int(let v): return I(truncatingIfNeeded: v)
    case .float(let v): return I(exactly: v.rounded(.towardZero))
    case .double(let v): return I(exactly: v.rounded(.towardZero))
    default: return nil
    }
}

extension Int: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Int? { integer(value, as: Int.self) }
}
extension Int8: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Int8? { integer(value, as: Int8.self) }
}
extension Int16: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Int16? { integer(value, as: Int16.self) }
}
extension Int32: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Int32? { integer(value, as: Int32.self) }
}
extension Int64: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Int64? { integer(value, as: Int64.self) }
}

extension Float: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Float? {
        switch value {
        case .int(let v): return Float(v)
        case .float(let v): return v
        case .double(let v): return Float(v)
        case .decimal128(let v): return Float(v.doubleValue) // a mixed sum or average
        default: return nil
        }
    }
}

extension Double: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Double? {
        switch value {
        case .int(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        case .decimal128(let v): return v.doubleValue // a mixed sum or average
        default: return nil
        }
    }
}

extension Decimal128: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Decimal128? {
        switch value {
        case .int(let v): return Decimal128(v)
        case .float(let v): return Decimal128(value: Double(v))
        case .double(let v): return Decimal128(value: v)
        case .decimal128(let v): return v
        default: return nil
        }
    }
}

extension Date: MinMaxType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Date? {
        if case .date(let v) = value { return v }
        return nil
    }
}

extension NSNumber: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Self? {
        switch value {
        case .int(let v): return NSNumber(value: v) as? Self
        case .float(let v): return NSNumber(value: v) as? Self
        case .double(let v): return NSNumber(value: v) as? Self
        default: return nil
        }
    }
}

/// As Realm: the min and max of mixed values (of any kind), their sum and average (of their numbers).
extension AnyRealmValue: AddableType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> AnyRealmValue? { _larderFrom(value) }
}

extension Optional: MinMaxType where Wrapped: MinMaxType {
    public static func _larderFromAggregate(_ value: _StoredValue) -> Wrapped?? {
        Wrapped._larderFromAggregate(value).map { .some($0) }
    }
}

extension Optional: AddableType where Wrapped: AddableType {}
