import Foundation
import Synchronization

/// A 12-byte unique identifier, laid out as in MongoDB and Realm:
///
/// | bytes | contents                                                        |
/// |-------|-----------------------------------------------------------------|
/// | 0–3   | seconds since 1970, big-endian                                  |
/// | 4–8   | 5 random bytes chosen once per process                          |
/// | 9–11  | a per-process counter, big-endian, starting at a random value   |
///
/// Ids order by their bytes, so ids generated later in a process sort after earlier ones
/// (until the counter wraps within one second).
///
/// Realm's `ObjectId` is a class; this is a value type with the same API.
public struct ObjectId: Sendable {
    // Bytes 0–7 and 8–11 as big-endian integers: comparing (head, tail) compares the bytes,
    // and hashing two integers is cheaper than hashing an array.
    private var head: UInt64
    private var tail: UInt32

    /// An error thrown when parsing a string that is not 24 hexadecimal digits.
    public struct ParseError: Error, Equatable, CustomStringConvertible, LocalizedError {
        public let string: String
        public var description: String { "Invalid ObjectId string '\(string)': must be 24 hex digits" }
        public var errorDescription: String? { description }
    }

    /// The all-zero id, as Realm's `ObjectId()`. Use `ObjectId.generate()` for a new unique id.
    public init() {
        head = 0
        tail = 0
    }

    /// A new id with the current time, this process's random bytes and the next counter value.
    public static func generate() -> ObjectId {
        ObjectId(seconds: seconds(of: Date()), unique: processUnique, counter: nextCounter())
    }

    /// An id from 24 hexadecimal digits, in either case.
    public init(string: String) throws {
        guard let parsed = ObjectId.parse(string) else { throw ParseError(string: string) }
        self = parsed
    }

    /// An id from 24 hexadecimal digits known at compile time; stops the program if they are invalid.
    public init(_ string: StaticString) {
        let text = string.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        guard let parsed = ObjectId.parse(text) else { fatalError(ParseError(string: text).description) }
        self = parsed
    }

    /// An id for `timestamp` (whole seconds, wrapped to 32 bits) and the given machine and process ids,
    /// with the next counter value. As in Realm, bytes 4–6 are the low three bytes of `machineId`
    /// and bytes 7–8 the low two bytes of `processId`, each in little-endian order.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let machine = UInt64(truncatingIfNeeded: machineId)
        let process = UInt64(truncatingIfNeeded: processId)
        let unique = (machine & 0xFF) << 32 | (machine >> 8 & 0xFF) << 24 | (machine >> 16 & 0xFF) << 16
            | (process & 0xFF) << 8 | (process >> 8 & 0xFF)
        self.init(seconds: ObjectId.seconds(of: timestamp), unique: unique, counter: ObjectId.nextCounter())
    }

    /// An id from exactly 12 bytes.
    public init<C: Collection>(bytes: C) where C.Element == UInt8 {
        if bytes.count != 12 { fatalError("An ObjectId is made of 12 bytes, not \(bytes.count)") }
        var head: UInt64 = 0
        var tail: UInt32 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 {
                head = head << 8 | UInt64(byte)
            } else {
                tail = tail << 8 | UInt32(byte)
            }
        }
        self.head = head
        self.tail = tail
    }

    /// The 12 bytes of the id.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: head >> (56 - 8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: tail >> (24 - 8 * $0)) }
    }

    /// The id as 24 lowercase hexadecimal digits.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        let hex = bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The time the id was generated, to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(head >> 32))
    }
}

// MARK: - Generation

/// The 5 random bytes shared by all ids this process generates, as Realm's machine and process ids.
private let processUnique = UInt64.random(in: 0...0xFF_FFFF_FFFF)

/// The counter of bytes 9–11; atomic so that concurrent generation never repeats a value.
private let counter = Atomic<UInt32>(UInt32.random(in: 0...UInt32.max))

extension ObjectId {
    private init(seconds: UInt32, unique: UInt64, counter: UInt32) {
        head = UInt64(seconds) << 32 | unique >> 8
        tail = UInt32(truncatingIfNeeded: unique & 0xFF) << 24 | counter & 0xFF_FFFF
    }

    private static func nextCounter() -> UInt32 {
        counter.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Whole seconds since 1970, wrapped to 32 bits as Realm does.
    private static func seconds(of date: Date) -> UInt32 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e18 else { return 0 }
        return UInt32(truncatingIfNeeded: Int64(seconds))
    }

    private static func parse(_ string: String) -> ObjectId? {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        for index in stride(from: 0, to: 24, by: 2) {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return ObjectId(bytes: bytes)
    }

    private static func hexValue(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return char - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

// MARK: - Conformances

extension ObjectId: Hashable {}

extension ObjectId: Comparable {
    /// Orders by bytes, so by timestamp first.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.head, lhs.tail) < (rhs.head, rhs.tail)
    }
}

extension ObjectId: CustomStringConvertible {
    /// The same as `stringValue`.
    public var description: String { stringValue }
}

extension ObjectId: Codable {
    /// Decodes an id from its 24-digit string, as Realm does.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let parsed = ObjectId.parse(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: ParseError(string: string).description)
        }
        self = parsed
    }

    /// Encodes the id as its 24-digit string.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
