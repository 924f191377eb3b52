import CLarder
import Foundation
@testable import Larder
import XCTest

/// Strings read from the file are built in place when short and ASCII
/// (`String(smallASCII:count:)`): they must be the standard library's own strings.
final class SmallStringTests: RealmTestCase {
    private func read(_ text: [UInt8]) -> String {
        var bytes = text + [0]
        return bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                String(larderString: lar_string(data: $0, size: text.count))
            }
        }
    }

    private func bits(_ string: String) -> (UInt64, UInt64) {
        withUnsafeBytes(of: string) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }

    func testShortASCIIStringsAreTheStandardLibrarysOwn() {
        for count in 0...20 {
            let bytes = (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let expected = String(decoding: bytes, as: UTF8.self)
            let made = read(bytes)
            XCTAssertEqual(made, expected)
            XCTAssertEqual(made.hashValue, expected.hashValue)
            XCTAssertEqual(made.count, count)
            XCTAssertEqual(Array(made.utf8), bytes)
            XCTAssertEqual(made + "!", expected + "!")
            if count <= 15 {
                let (made0, made1) = bits(made), (expected0, expected1) = bits(expected)
                XCTAssertEqual(made0, expected0, "length \(count)")
                XCTAssertEqual(made1, expected1, "length \(count)")
            }
        }
    }

    func testEveryASCIIByteInEveryPosition() {
        for byte in UInt8(1)...127 {
            for position in 0..<15 {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 15)
                bytes[position] = byte
                let made = read(bytes)
                XCTAssertEqual(made, String(decoding: bytes, as: UTF8.self))
                XCTAssertEqual(made.unicodeScalars.count, 15)
                XCTAssertEqual(made.count, String(decoding: bytes, as: UTF8.self).count)
            }
        }
    }

    func testShortStringsWithOtherBytesAreValidatedAsBefore() {
        let accented = Array("héllo wörld".utf8) // 13 bytes, not ASCII
        XCTAssertEqual(read(accented), "héllo wörld")
        XCTAssertEqual(read(accented).count, 11)
        let invalid: [UInt8] = [0x61, 0xFF, 0x62] // repaired, as String(decoding:) does
        XCTAssertEqual(read(invalid), String(decoding: invalid, as: UTF8.self))
        XCTAssertEqual(read(invalid), "a\u{FFFD}b")
    }

    func testStringPropertiesOfEveryShortLengthRoundTrip() throws {
        let realm = try openRealm([StringHolder.self])
        let values = (0...20).map { String(repeating: "q", count: $0) } + ["é", "日本語", "a\u{0}b"]
        try realm.write {
            for (index, value) in values.enumerated() { realm.add(StringHolder(id: index, value: value)) }
        }
        for (index, value) in values.enumerated() {
            let read = realm.object(ofType: StringHolder.self, forPrimaryKey: index)!.value
            XCTAssertEqual(read, value)
            XCTAssertEqual(read.utf8.count, value.utf8.count)
            XCTAssertEqual(Set([read, value]).count, 1)
        }
    }
}

final class StringHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = ""

    convenience init(id: Int, value: String) {
        self.init()
        self.id = id
        self.value = value
    }
}
