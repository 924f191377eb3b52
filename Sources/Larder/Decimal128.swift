import Foundation

/// An IEEE 754-2008 decimal128 floating-point number: 34 significant decimal digits and an exponent
/// from -6176 to 6111, stored in the binary integer decimal (BID) encoding that Realm and MongoDB use.
///
/// Arithmetic rounds to 34 digits, half to even, as IEEE 754 specifies. Values keep their exponent
/// (`1.0` and `1.00` are distinct representations) but compare and hash by numeric value, so
/// `1.0 == 1.00 == 1`. As with `Double`, NaN is unordered: every comparison with NaN, even
/// `NaN == NaN`, is false.
public struct Decimal128: Sendable {
    /// The low 64 bits of the BID encoding: the low bits of the coefficient.
    public var low: UInt64
    /// The high 64 bits of the BID encoding: sign, combination field and exponent, and the high
    /// bits of the coefficient.
    public var high: UInt64

    /// A value from the two 64-bit halves of its BID encoding, as stored on disk.
    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Zero, as Realm's `Decimal128()`.
    public init() {
        self = Decimal128.encode(negative: false, coefficient: 0, exponent: 0)
    }

    /// An error thrown when parsing a string that is not a decimal number.
    public struct ParseError: Error, Equatable, CustomStringConvertible, LocalizedError {
        public let string: String
        public var description: String { "Invalid Decimal128 string '\(string)'" }
        public var errorDescription: String? { description }
    }
}

// MARK: - Encoding

/// 10^0 through 10^38: every power of ten a UInt128 holds.
private let powersOfTen: [UInt128] = (0...38).reduce(into: []) { powers, n in
    powers.append(n == 0 ? 1 : powers[n - 1] * 10)
}

/// The number of decimal digits of `value`, counting zero as one digit.
private func digitCount(_ value: UInt128) -> Int {
    powersOfTen.dropFirst().firstIndex { value < $0 } ?? 39
}

extension Decimal128 {
    private static let maxDigits = 34
    private static let maxCoefficient = powersOfTen[34] - 1
    private static let minExponent = -6176
    private static let maxExponent = 6111
    private static let exponentBias = 6176

    private static let signBit: UInt64 = 1 << 63
    private static let infinityBits: UInt64 = 0x7800_0000_0000_0000
    private static let nanBits: UInt64 = 0x7C00_0000_0000_0000
    private static let signalingBits: UInt64 = 0x7E00_0000_0000_0000
    /// The "11" combination field, which moves the exponent down two bits.
    private static let largeFormBits: UInt64 = 0x6000_0000_0000_0000

    /// A finite value: (-1)^negative × coefficient × 10^exponent.
    private struct Finite {
        var negative: Bool
        var coefficient: UInt128
        var exponent: Int
    }

    private enum Parts {
        case finite(Finite)
        case infinity(negative: Bool)
        case nan
    }

    private var isNegative: Bool { high & Decimal128.signBit != 0 }

    private var parts: Parts {
        if high & Decimal128.nanBits == Decimal128.nanBits { return .nan }
        if high & Decimal128.infinityBits == Decimal128.infinityBits { return .infinity(negative: isNegative) }
        if high & Decimal128.largeFormBits == Decimal128.largeFormBits {
            // The implied coefficient is at least 2^113, above 10^34 - 1, so the spec reads it as zero.
            let exponent = Int(high >> 47 & 0x3FFF) - Decimal128.exponentBias
            return .finite(Finite(negative: isNegative, coefficient: 0, exponent: exponent))
        }
        let exponent = Int(high >> 49 & 0x3FFF) - Decimal128.exponentBias
        let coefficient = UInt128(high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(low)
        return .finite(Finite(negative: isNegative,
                              coefficient: coefficient > Decimal128.maxCoefficient ? 0 : coefficient,
                              exponent: exponent))
    }

    /// Encodes a value already within range: at most 34 digits and an exponent from -6176 to 6111.
    private static func encode(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        let biased = UInt64(exponent + exponentBias)
        let sign = negative ? signBit : 0
        return Decimal128(low: UInt64(truncatingIfNeeded: coefficient),
                          high: sign | biased << 49 | UInt64(coefficient >> 64))
    }

    private static func infinity(negative: Bool) -> Decimal128 {
        Decimal128(low: 0, high: infinityBits | (negative ? signBit : 0))
    }

    /// Rounds (-1)^negative × coefficient × 10^exponent to 34 digits and the exponent range, half to even.
    /// `sticky` says the exact value lies a little beyond `coefficient` (digits below it were dropped and
    /// not all zero); callers set it only when `coefficient` has more than 34 digits, so it is never lost.
    private static func rounded(negative: Bool, coefficient: UInt128, exponent: Int, sticky: Bool = false) -> Decimal128 {
        let drop = Swift.max(0, digitCount(coefficient) - maxDigits, minExponent - exponent)
        var result = coefficient
        var exponent = exponent + drop
        if drop > 38 {
            result = 0  // below half a unit in the last place, since coefficient < 10^39
        } else if drop > 0 {
            let divisor = powersOfTen[drop]
            let (quotient, remainder) = coefficient.quotientAndRemainder(dividingBy: divisor)
            let half = divisor / 2
            let roundUp = remainder > half || (remainder == half && (sticky || quotient & 1 == 1))
            result = roundUp ? quotient + 1 : quotient
        }
        if result > maxCoefficient {  // rounding carried to 10^34
            result /= 10
            exponent += 1
        }
        if exponent > maxExponent {
            // Pad with zeros ("clamping") when the digits allow it; otherwise the value overflows.
            let pad = exponent - maxExponent
            if result == 0 {
                exponent = maxExponent
            } else if digitCount(result) + pad <= maxDigits {
                result *= powersOfTen[pad]
                exponent = maxExponent
            } else {
                return infinity(negative: negative)
            }
        }
        return encode(negative: negative, coefficient: result, exponent: exponent)
    }
}

// MARK: - Creating values

extension Decimal128 {
    /// A quiet NaN. Arithmetic with a NaN operand returns this NaN, without the operand's payload.
    public static var nan: Decimal128 { Decimal128(low: 0, high: nanBits) }
    /// Positive infinity.
    public static var infinity: Decimal128 { infinity(negative: false) }
    /// The largest finite value, 9.999999999999999999999999999999999E+6144.
    public static var max: Decimal128 { encode(negative: false, coefficient: maxCoefficient, exponent: maxExponent) }
    /// The smallest (most negative) finite value, -9.999999999999999999999999999999999E+6144.
    public static var min: Decimal128 { encode(negative: true, coefficient: maxCoefficient, exponent: maxExponent) }

    /// Parses a decimal number: an optional sign, digits with an optional decimal point, and an
    /// optional exponent (`"12.345"`, `"-0.5"`, `".5"`, `"1e10"`, `"1.5E-3"`), or, in any case,
    /// `"NaN"`, `"Inf"` or `"Infinity"` with an optional sign. Whitespace is not allowed.
    /// More than 34 significant digits are rounded half to even; values too large become infinity.
    public init(string: String) throws {
        guard let parsed = Decimal128.parse(string) else { throw ParseError(string: string) }
        self = parsed
    }

    /// The integer `value`, exactly.
    public init(value: Int) {
        self.init(value)
    }

    /// The shortest decimal form of `value` that reads back as the same `Double`, so 0.1 is exactly 0.1.
    public init(value: Double) {
        self.init(value)
    }

    /// The integer `value`, exactly.
    public init(_ value: Int) {
        self.init(exactInteger: value)
    }

    /// The integer `value`, rounded to 34 digits if it has more.
    public init<T: BinaryInteger>(_ value: T) {
        self.init(exactInteger: value)
    }

    /// The shortest decimal form of `value` that reads back as the same `Double`, so 0.1 is exactly 0.1.
    /// As Realm converts a `Double`: rounded to 15 significant digits, trailing
    /// zeros dropped (so `-1.0` is `-1` and `0.1 + 0.2` is `0.3`).
    public init(_ value: Double) {
        guard value.isFinite else {
            self = value.isNaN ? .nan : Decimal128.infinity(negative: value < 0)
            return
        }
        // "%.14e" prints 15 significant digits: "-1.00000000000000e+00".
        guard case .finite(var parts)? = Decimal128.parse(String(format: "%.14e", value))?.parts else {
            self = .nan
            return
        }
        while parts.coefficient != 0 && parts.coefficient % 10 == 0 {
            parts.coefficient /= 10
            parts.exponent += 1
        }
        if parts.coefficient == 0 { parts.exponent = 0 }
        self = Decimal128.encode(negative: parts.negative, coefficient: parts.coefficient, exponent: parts.exponent)
    }

    /// The value of a number, as Realm's `Decimal128(number:)`: integers exactly,
    /// floating-point numbers as `init(_: Double)` reads them.
    public init(number: NSNumber) {
        switch String(cString: number.objCType) {
        case "f", "d": self.init(number.doubleValue)
        case "L", "Q": self.init(number.uint64Value)
        default: self.init(number.int64Value)
        }
    }

    private init<T: BinaryInteger>(exactInteger value: T) {
        if let magnitude = UInt128(exactly: value.magnitude) {
            self = Decimal128.rounded(negative: value < 0, coefficient: magnitude, exponent: 0)
        } else {
            self = Decimal128.parse(String(value)) ?? .nan  // wider than 128 bits: round its digits
        }
    }

    private static func parse(_ string: String) -> Decimal128? {
        var text = Substring(string)
        let negative = text.first == "-"
        if negative || text.first == "+" { text = text.dropFirst() }
        switch text.lowercased() {
        case "nan": return Decimal128(low: 0, high: nanBits | (negative ? signBit : 0))
        case "inf", "infinity": return infinity(negative: negative)
        default: return parseFinite(Array(text.utf8), negative: negative)
        }
    }

    /// Parses digits, an optional point and an optional exponent. Keeps the first 38 significant
    /// digits, enough to round correctly, and folds the rest into a sticky flag.
    private static func parseFinite(_ chars: [UInt8], negative: Bool) -> Decimal128? {
        var coefficient: UInt128 = 0
        var kept = 0
        var exponent = 0
        var sticky = false
        var sawDigit = false
        var sawPoint = false
        var index = 0
        scan: while index < chars.count {
            switch chars[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = UInt128(chars[index] - UInt8(ascii: "0"))
                sawDigit = true
                if sawPoint { exponent -= 1 }
                if kept == 0 && digit == 0 {
                    // A leading zero is not significant.
                } else if kept < 38 {
                    coefficient = coefficient * 10 + digit
                    kept += 1
                } else {
                    exponent += 1
                    sticky = sticky || digit != 0
                }
            case UInt8(ascii: "."):
                if sawPoint { return nil }
                sawPoint = true
            default:
                break scan
            }
            index += 1
        }
        guard sawDigit else { return nil }
        if index < chars.count {
            guard chars[index] | 0x20 == UInt8(ascii: "e"),
                  let written = parseExponent(chars[(index + 1)...]) else { return nil }
            exponent += written
        }
        return rounded(negative: negative, coefficient: coefficient, exponent: exponent, sticky: sticky)
    }

    /// A signed decimal exponent; saturates far outside the representable range instead of overflowing.
    private static func parseExponent(_ chars: ArraySlice<UInt8>) -> Int? {
        var chars = chars
        let negative = chars.first == UInt8(ascii: "-")
        if negative || chars.first == UInt8(ascii: "+") { chars = chars.dropFirst() }
        guard !chars.isEmpty else { return nil }
        var value = 0
        for char in chars {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(char) else { return nil }
            value = Swift.min(value * 10 + Int(char - UInt8(ascii: "0")), 1_000_000_000)
        }
        return negative ? -value : value
    }
}

// MARK: - Properties

extension Decimal128 {
    /// Whether the value is NaN, quiet or signaling.
    public var isNaN: Bool { high & Decimal128.nanBits == Decimal128.nanBits }

    /// Whether the value is a signaling NaN. (Realm's returns `isNaN`, as its core cannot tell them apart.)
    public var isSignaling: Bool { high & Decimal128.signalingBits == Decimal128.signalingBits }

    /// The same as `isSignaling`.
    public var isSignalingNaN: Bool { isSignaling }

    /// Whether the value is positive or negative infinity.
    public var isInfinite: Bool { high & Decimal128.nanBits == Decimal128.infinityBits }

    /// The absolute value, with the exponent kept.
    public var magnitude: Decimal128 { Decimal128(low: low, high: high & ~Decimal128.signBit) }

    /// The nearest `Double`.
    public var doubleValue: Double {
        switch parts {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite: return Double(scientificString) ?? .nan
        }
    }

    /// The value as Realm prints it (realm-core's `Decimal128::to_string`): the
    /// coefficient's digits, the point moved left one digit at a time while an
    /// exponent remains, then what is left of the exponent: "11.11111", "-1",
    /// "1.234567890E132", "1E-5", "1.0", "0", "NaN", "Inf", "-Inf". A coefficient
    /// wider than 64 bits prints as the Intel decimal library does ("+1234…E-2").
    /// Digits and exponent are kept, so the string parses back to the same encoding.
    public var stringValue: String {
        switch parts {
        case .nan: return (isNegative ? "-" : "") + "NaN"
        case .infinity(let negative): return negative ? "-Inf" : "Inf"
        case .finite(let value): return Decimal128.realmFormat(value)
        }
    }

    private static func realmFormat(_ value: Finite) -> String {
        let digits = String(value.coefficient)
        guard value.coefficient <= UInt128(UInt64.max) else {
            return (value.negative ? "-" : "+") + digits + "E" + (value.exponent < 0 ? "" : "+") + String(value.exponent)
        }
        var digitsBefore = digits.count
        var exponent = value.exponent
        while digitsBefore > 1 && exponent != 0 {
            digitsBefore -= 1
            exponent += 1
        }
        var text = value.negative ? "-" : ""
        text += digits.prefix(digitsBefore)
        if digitsBefore < digits.count { text += "." + digits.dropFirst(digitsBefore) }
        if exponent != 0 { text += "E" + String(exponent) }
        return text
    }

    /// The value in the IEEE 754 / MongoDB canonical form ("to-scientific-string"). Values with no
    /// positive exponent and at most five zeros after the point before their first digit print
    /// plainly ("12.345", "-0.5", "0.000001", "1.00"); others in scientific notation with a signed
    /// exponent ("1E+10", "1.23E-7"). Special values print as "NaN", "Infinity" and "-Infinity".
    var scientificString: String {
        switch parts {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Infinity" : "Infinity"
        case .finite(let value): return Decimal128.format(value)
        }
    }

    private static func format(_ value: Finite) -> String {
        let digits = String(value.coefficient)
        let sign = value.negative ? "-" : ""
        let adjusted = value.exponent + digits.count - 1
        if value.exponent <= 0 && adjusted >= -6 {
            if value.exponent == 0 { return sign + digits }
            let integerDigits = digits.count + value.exponent
            if integerDigits > 0 {
                return sign + digits.prefix(integerDigits) + "." + digits.dropFirst(integerDigits)
            }
            return sign + "0." + String(repeating: "0", count: -integerDigits) + digits
        }
        let fraction = digits.count > 1 ? "." + digits.dropFirst() : ""
        let exponentSign = adjusted >= 0 ? "+" : ""
        return sign + digits.prefix(1) + fraction + "E" + exponentSign + String(adjusted)
    }
}

// MARK: - Arithmetic

extension Decimal128 {
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan): return .nan
        case let (.infinity(left), .infinity(right)): return left == right ? lhs : .nan
        case (.infinity, _): return lhs
        case (_, .infinity): return rhs
        case let (.finite(left), .finite(right)): return add(left, right)
        }
    }

    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        lhs + -rhs
    }

    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan): return .nan
        case let (.infinity(left), .infinity(right)): return infinity(negative: left != right)
        case let (.infinity(negative), .finite(value)), let (.finite(value), .infinity(negative)):
            return value.coefficient == 0 ? .nan : infinity(negative: negative != value.negative)
        case let (.finite(left), .finite(right)): return multiply(left, right)
        }
    }

    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan), (.infinity, .infinity): return .nan
        case let (.infinity(negative), .finite(value)): return infinity(negative: negative != value.negative)
        case let (.finite(value), .infinity(negative)):
            return encode(negative: negative != value.negative, coefficient: 0, exponent: minExponent)
        case let (.finite(left), .finite(right)): return divide(left, right)
        }
    }

    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// Flips the sign, of NaN and zero too.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(low: operand.low, high: operand.high ^ signBit)
    }

    public mutating func negate() {
        self = -self
    }

    private static func add(_ a: Finite, _ b: Finite) -> Decimal128 {
        let (big, small) = a.exponent >= b.exponent ? (a, b) : (b, a)
        let gap = big.exponent - small.exponent
        // Align the operand with the larger exponent down to the other's, as far as 38 digits allow.
        let shift = big.coefficient == 0 ? gap : Swift.min(gap, 38 - digitCount(big.coefficient))
        let scaled = big.coefficient == 0 ? 0 : big.coefficient * powersOfTen[shift]
        // Whatever of the other operand lies below that is far below the 34th digit of the result:
        // keep only whether it was nonzero.
        let (reduced, sticky) = shiftedRight(small.coefficient, by: gap - shift)
        let exponent = big.exponent - shift
        if big.negative == small.negative {
            return rounded(negative: big.negative, coefficient: scaled + reduced, exponent: exponent, sticky: sticky)
        }
        if scaled > reduced {
            // With sticky set, the exact difference is just below scaled - reduced.
            let difference = scaled - reduced - (sticky ? 1 : 0)
            return rounded(negative: big.negative, coefficient: difference, exponent: exponent, sticky: sticky)
        }
        // sticky implies scaled has 38 digits and reduced at most 33, so it is false here.
        // An exact zero difference is positive when rounding to nearest.
        return rounded(negative: scaled < reduced && small.negative, coefficient: reduced - scaled, exponent: exponent)
    }

    /// `value / 10^count`, and whether the division dropped nonzero digits.
    private static func shiftedRight(_ value: UInt128, by count: Int) -> (UInt128, Bool) {
        if count == 0 { return (value, false) }
        if count > 38 { return (0, value != 0) }
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: powersOfTen[count])
        return (quotient, remainder != 0)
    }

    private static func multiply(_ a: Finite, _ b: Finite) -> Decimal128 {
        let negative = a.negative != b.negative
        let exponent = a.exponent + b.exponent
        let product = a.coefficient.multipliedFullWidth(by: b.coefficient)
        if product.high == 0 {
            return rounded(negative: negative, coefficient: product.low, exponent: exponent)
        }
        // Up to 68 digits: divide by a power of ten that leaves 37 or 38 digits, which fits in
        // 128 bits and still has digits below the 34th for rounding.
        let bits = 256 - product.high.leadingZeroBitCount
        let minimumDigits = (bits - 1) * 30103 / 100_000 + 1  // floor(log10(2^(bits-1))) + 1
        let drop = minimumDigits - 37
        let (quotient, remainder) = powersOfTen[drop].dividingFullWidth(product)
        return rounded(negative: negative, coefficient: quotient, exponent: exponent + drop, sticky: remainder != 0)
    }

    private static func divide(_ a: Finite, _ b: Finite) -> Decimal128 {
        let negative = a.negative != b.negative
        guard b.coefficient != 0 else {
            return a.coefficient == 0 ? .nan : infinity(negative: negative)
        }
        // Long division from the ideal exponent down, stopping when exact (so exact quotients keep
        // the exponent closest to the ideal) or at 35 digits, one more than needed to round.
        var (quotient, remainder) = a.coefficient.quotientAndRemainder(dividingBy: b.coefficient)
        var exponent = a.exponent - b.exponent
        while remainder != 0 && quotient <= maxCoefficient {
            let (digit, rest) = (remainder * 10).quotientAndRemainder(dividingBy: b.coefficient)
            quotient = quotient * 10 + digit
            remainder = rest
            exponent -= 1
        }
        return rounded(negative: negative, coefficient: quotient, exponent: exponent, sticky: remainder != 0)
    }
}

// MARK: - Comparison

extension Decimal128 {
    /// -1, 0 or 1 as lhs is less than, equal to or greater than rhs; nil when either is NaN.
    private static func order(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _), (_, .nan): return nil
        case let (.infinity(left), .infinity(right)): return left == right ? 0 : (left ? -1 : 1)
        case let (.infinity(negative), _): return negative ? -1 : 1
        case let (_, .infinity(negative)): return negative ? 1 : -1
        case let (.finite(left), .finite(right)): return order(left, right)
        }
    }

    private static func order(_ a: Finite, _ b: Finite) -> Int {
        let aSign = a.coefficient == 0 ? 0 : (a.negative ? -1 : 1)
        let bSign = b.coefficient == 0 ? 0 : (b.negative ? -1 : 1)
        if aSign != bSign || aSign == 0 { return aSign < bSign ? -1 : (aSign > bSign ? 1 : 0) }
        return aSign * orderMagnitudes(a, b)
    }

    /// Compares nonzero magnitudes: first by the exponent of the leading digit, then digit by digit.
    private static func orderMagnitudes(_ a: Finite, _ b: Finite) -> Int {
        let aDigits = digitCount(a.coefficient)
        let bDigits = digitCount(b.coefficient)
        let aLeading = a.exponent + aDigits - 1
        let bLeading = b.exponent + bDigits - 1
        if aLeading != bLeading { return aLeading < bLeading ? -1 : 1 }
        // Equal leading exponents leave the exponents at most 33 apart, so scaling stays in range.
        let left = a.exponent > b.exponent ? a.coefficient * powersOfTen[a.exponent - b.exponent] : a.coefficient
        let right = b.exponent > a.exponent ? b.coefficient * powersOfTen[b.exponent - a.exponent] : b.coefficient
        return left < right ? -1 : (left > right ? 1 : 0)
    }
}

extension Decimal128: Equatable {
    /// Numeric equality: 1.0 == 1.00, 0 == -0, and NaN equals nothing.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool { order(lhs, rhs) == 0 }
}

extension Decimal128: Comparable {
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { order(lhs, rhs) == -1 }
    public static func <= (lhs: Decimal128, rhs: Decimal128) -> Bool { order(lhs, rhs).map { $0 <= 0 } ?? false }
    public static func > (lhs: Decimal128, rhs: Decimal128) -> Bool { order(lhs, rhs) == 1 }
    public static func >= (lhs: Decimal128, rhs: Decimal128) -> Bool { order(lhs, rhs).map { $0 >= 0 } ?? false }
}

extension Decimal128: Hashable {
    /// Hashes the numeric value: trailing zeros are stripped so equal values hash alike.
    public func hash(into hasher: inout Hasher) {
        switch parts {
        case .nan:
            hasher.combine(0 as UInt8)
        case .infinity(let negative):
            hasher.combine(negative ? 1 : 2 as UInt8)
        case .finite(var value):
            guard value.coefficient != 0 else { return hasher.combine(3 as UInt8) }
            while value.coefficient % 10 == 0 {
                value.coefficient /= 10
                value.exponent += 1
            }
            hasher.combine(4 as UInt8)
            hasher.combine(value.negative)
            hasher.combine(value.coefficient)
            hasher.combine(value.exponent)
        }
    }
}

// MARK: - Protocols

extension Decimal128: CustomStringConvertible {
    /// The same as `stringValue`.
    public var description: String { stringValue }
}

extension Decimal128: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self.init(value)
    }
}

extension Decimal128: ExpressibleByFloatLiteral {
    /// As `init(_: Double)`: the literal's shortest `Double` form, so `0.1` is exactly 0.1.
    public init(floatLiteral value: Double) {
        self.init(value)
    }
}

extension Decimal128: ExpressibleByStringLiteral {
    /// Stops the program if the literal is not a decimal number.
    public init(stringLiteral value: String) {
        guard let parsed = Decimal128.parse(value) else { fatalError(ParseError(string: value).description) }
        self = parsed
    }
}

extension Decimal128: SignedNumeric {
    /// `source` if it has at most 34 significant digits, else nil.
    public init?<T: BinaryInteger>(exactly source: T) {
        let significant = String(source.magnitude).reversed().drop { $0 == "0" }
        guard significant.count <= Decimal128.maxDigits else { return nil }
        self.init(source)
    }
}

extension Decimal128: Strideable {
    public func distance(to other: Decimal128) -> Decimal128 { other - self }
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }
}

extension Decimal128: Codable {
    /// Decodes a decimal string, as Realm writes, or a JSON number.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            guard let parsed = Decimal128.parse(string) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: ParseError(string: string).description)
            }
            self = parsed
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else {
            self.init(try container.decode(Double.self))
        }
    }

    /// Encodes the value as its `stringValue`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
