import CLarder
import Foundation

/// Reads an `NSNumber` (as `JSONSerialization` makes them) for a property,
/// accepting what Realm accepts: integers for integer properties, booleans for
/// Bool properties, any number but a boolean for Float, Double and Decimal128.
enum NumberReader {
    static func stored(_ number: NSNumber, for type: lar_type) -> _StoredValue? {
        let kind = String(cString: number.objCType)
        let isBoolean = kind == "c" && (number.int64Value == 0 || number.int64Value == 1)
        switch type {
        case LAR_TYPE_INT: return integer(number, kind).map { .int($0) }
        case LAR_TYPE_BOOL: return isBoolean ? .bool(number.boolValue) : nil
        case LAR_TYPE_DOUBLE where !isBoolean: return .double(number.doubleValue)
        case LAR_TYPE_FLOAT where !isBoolean: return .float(number.floatValue)
        case LAR_TYPE_DECIMAL128 where !isBoolean: return .decimal128(Decimal128(number: number))
        default: return nil
        }
    }

    /// The number as a 64-bit integer, or nil when it is not an integer that fits.
    private static func integer(_ number: NSNumber, _ kind: String) -> Int64? {
        switch kind {
        case "c", "s", "i", "l", "q", "C", "S", "I": return number.int64Value
        case "L", "Q": return Int64(exactly: number.uint64Value)
        default: return nil
        }
    }
}
