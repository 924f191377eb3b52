import Foundation
import Synchronization
import XCTest
@testable import Larder

final class ObjectIdTests: XCTestCase {
    private let sample = "5f1a2b3c4d5e6f7081920a1b"

    /// The counter in bytes 9–11.
    private func counter(of id: ObjectId) -> UInt32 {
        id.bytes[9...].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func testDefaultInitIsZero() {
        XCTAssertEqual(ObjectId().stringValue, "000000000000000000000000")
        XCTAssertEqual(ObjectId().bytes, [UInt8](repeating: 0, count: 12))
        XCTAssertEqual(ObjectId(), ObjectId())
    }

    func testGeneratedIdsAreUnique() {
        let ids = (0..<10_000).map { _ in ObjectId.generate() }
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertEqual(Set(ids.map(\.stringValue)).count, ids.count)
    }

    func testConcurrentGenerationIsUnique() {
        let ids = Mutex<[ObjectId]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let batch = (0..<1_000).map { _ in ObjectId.generate() }
            ids.withLock { $0 += batch }
        }
        let all = ids.withLock { $0 }
        XCTAssertEqual(all.count, 8_000)
        XCTAssertEqual(Set(all).count, 8_000)
    }

    func testCounterIncrementsAndRandomBytesAreShared() {
        let first = ObjectId.generate()
        let second = ObjectId.generate()
        XCTAssertEqual(counter(of: second), (counter(of: first) + 1) & 0xFF_FFFF)
        XCTAssertEqual(first.bytes[4..<9], second.bytes[4..<9])
        if counter(of: second) != 0 {  // the counter did not wrap, so the later id sorts after
            XCTAssertLessThan(first, second)
        }
    }

    func testTimestampIsNow() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let id = ObjectId.generate()
        let after = Date().timeIntervalSince1970
        XCTAssertGreaterThanOrEqual(id.timestamp.timeIntervalSince1970, before)
        XCTAssertLessThanOrEqual(id.timestamp.timeIntervalSince1970, after)
        XCTAssertEqual(id.timestamp.timeIntervalSinceNow, 0, accuracy: 1.5)
    }

    func testStringRoundTrip() throws {
        let id = try ObjectId(string: sample)
        XCTAssertEqual(id.stringValue, sample)
        XCTAssertEqual(id.description, sample)
        XCTAssertEqual(id.bytes, [0x5f, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x70, 0x81, 0x92, 0x0a, 0x1b])
        XCTAssertEqual(try ObjectId(string: sample.uppercased()), id)
        XCTAssertEqual(try ObjectId(string: sample.uppercased()).stringValue, sample)
        XCTAssertEqual(id.timestamp, Date(timeIntervalSince1970: 0x5f1a_2b3c))

        let generated = ObjectId.generate()
        XCTAssertEqual(try ObjectId(string: generated.stringValue), generated)
    }

    func testStaticStringInit() throws {
        XCTAssertEqual(ObjectId("5f1a2b3c4d5e6f7081920a1b"), try ObjectId(string: sample))
    }

    func testInvalidStringsThrow() {
        let invalid = ["", "5f1a2b3c", sample + "0", String(sample.dropLast()), "5f1a2b3c4d5e6f7081920a1g",
                       " 5f1a2b3c4d5e6f7081920a1", "5f1a2b3c4d5e6f7081920a1 ", "0x1a2b3c4d5e6f7081920a1b",
                       "5f1a2b3c4d5e6f7081920a1é", "５f1a2b3c4d5e6f7081920a1b"]
        for string in invalid {
            XCTAssertThrowsError(try ObjectId(string: string), "'\(string)'") { error in
                XCTAssertEqual(error as? ObjectId.ParseError, ObjectId.ParseError(string: string))
                XCTAssertTrue("\(error)".contains("Invalid ObjectId string '\(string)'"), "\(error)")
                XCTAssertTrue(error.localizedDescription.contains("must be 24 hex digits"), error.localizedDescription)
            }
        }
    }

    func testBytesRoundTrip() {
        let id = ObjectId(bytes: 0..<12)
        XCTAssertEqual(id.bytes, Array(0..<12))
        XCTAssertEqual(id.stringValue, "000102030405060708090a0b")
        XCTAssertEqual(ObjectId(bytes: id.bytes), id)
        XCTAssertEqual(ObjectId(bytes: [UInt8](repeating: 0xFF, count: 12)).stringValue, "ffffffffffffffffffffffff")
    }

    func testTimestampMachineAndProcessInit() {
        let date = Date(timeIntervalSince1970: 0x5f1a_2b3c + 0.75)
        let id = ObjectId(timestamp: date, machineId: 0x7712_3456, processId: 0x789a)
        XCTAssertEqual(Array(id.bytes[0..<4]), [0x5f, 0x1a, 0x2b, 0x3c])
        XCTAssertEqual(Array(id.bytes[4..<7]), [0x56, 0x34, 0x12])  // low three bytes, little-endian as Realm
        XCTAssertEqual(Array(id.bytes[7..<9]), [0x9a, 0x78])        // low two bytes, little-endian as Realm
        XCTAssertEqual(id.timestamp, Date(timeIntervalSince1970: 0x5f1a_2b3c))

        let next = ObjectId(timestamp: date, machineId: 0x7712_3456, processId: 0x789a)
        XCTAssertEqual(counter(of: next), (counter(of: id) + 1) & 0xFF_FFFF)
    }

    func testOrderingFollowsBytes() throws {
        let strings = ["000000000000000000000001", "000000000000000000000002", "00ffffffffffffffffffffff",
                       "0100000000000000000000ff", "5f1a2b3c4d5e6f7081920a1b", "ff0000000000000000000000"]
        let ids = try strings.map { try ObjectId(string: $0) }
        XCTAssertEqual(ids.shuffled().sorted(), ids)
        XCTAssertLessThan(ids[0], ids[1])
        XCTAssertGreaterThan(ids[5], ids[4])
        XCTAssertFalse(ids[2] < ids[2])

        let earlier = ObjectId(timestamp: Date(timeIntervalSince1970: 1_000), machineId: 0xFFFFFF, processId: 0xFFFF)
        let later = ObjectId(timestamp: Date(timeIntervalSince1970: 1_001), machineId: 0, processId: 0)
        XCTAssertLessThan(earlier, later)
    }

    func testHashable() throws {
        let a = try ObjectId(string: sample)
        let b = try ObjectId(string: sample.uppercased())
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b, ObjectId()]).count, 2)
        XCTAssertNotEqual(a, ObjectId())
    }

    func testCodableAsString() throws {
        struct Wrapper: Codable, Equatable { var id: ObjectId }
        let value = Wrapper(id: try ObjectId(string: sample))
        let json = try JSONEncoder().encode(value)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"id":"\#(sample)"}"#)
        XCTAssertEqual(try JSONDecoder().decode(Wrapper.self, from: json), value)

        let generated = [ObjectId.generate(), ObjectId.generate()]
        XCTAssertEqual(try JSONDecoder().decode([ObjectId].self, from: JSONEncoder().encode(generated)), generated)

        XCTAssertThrowsError(try JSONDecoder().decode(Wrapper.self, from: Data(#"{"id":"nope"}"#.utf8))) { error in
            guard case DecodingError.dataCorrupted = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try JSONDecoder().decode(Wrapper.self, from: Data(#"{"id":12}"#.utf8)))
    }
}
