// TEMPORARY until ObjectId.swift/Decimal128.swift land. Do not commit.
public struct ObjectId: Hashable, Comparable, Sendable, CustomStringConvertible {
    var storage: [UInt8]
    public init(bytes: some Collection<UInt8>) { storage = Array(bytes) }
    public var bytes: [UInt8] { storage }
    public static func generate() -> ObjectId { ObjectId(bytes: (0..<12).map { _ in UInt8.random(in: 0...255) }) }
    public static func < (a: ObjectId, b: ObjectId) -> Bool { a.storage.lexicographicallyPrecedes(b.storage) }
    public var description: String { storage.map { String(format: "%02x", $0) }.joined() }
}
public struct Decimal128: Hashable, Comparable, Sendable {
    public var low: UInt64, high: UInt64
    public init(low: UInt64, high: UInt64) { self.low = low; self.high = high }
    public static func < (a: Decimal128, b: Decimal128) -> Bool { a.low < b.low }
}
import Foundation
