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

    /// Short strings are read with two 8-byte loads when the 16 bytes from their start lie in
    /// one page: the bytes past the string must not reach it.
    func testBytesPastTheStringAreIgnored() {
        for (count, padding) in (1...15).flatMap({ count in [UInt8(ascii: "z"), 0xFF].map { (count, $0) } }) {
            let bytes = (0..<count).map { UInt8(ascii: "A") + UInt8($0) }
            var buffer = bytes + [UInt8](repeating: padding, count: 32)
            let made = buffer.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    String(larderString: lar_string(data: $0, size: count))
                }
            }
            XCTAssertEqual(Array(made.utf8), bytes, "length \(count)")
            let expected = String(decoding: bytes, as: UTF8.self)
            XCTAssertEqual(made, expected)
            let (made0, made1) = bits(made), (expected0, expected1) = bits(expected)
            XCTAssertEqual(made0, expected0, "length \(count)")
            XCTAssertEqual(made1, expected1, "length \(count)")
        }
    }

    /// A string that ends at the end of a page followed by an unreadable page: reading 16
    /// bytes from its start would fault, so it is copied byte by byte.
    func testStringsEndingAtAnUnreadablePageAreRead() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { throw XCTSkip("mmap failed") }
        defer { munmap(mapped, 2 * page) }
        XCTAssertEqual(mprotect(mapped + page, page, PROT_NONE), 0)
        for count in 1...15 {
            let start = (mapped + page - count).assumingMemoryBound(to: CChar.self)
            for index in 0..<count { start[index] = CChar(UInt8(ascii: "a") + UInt8(index)) }
            let made = String(larderString: lar_string(data: start, size: count))
            XCTAssertEqual(Array(made.utf8), (0..<count).map { UInt8(ascii: "a") + UInt8($0) }, "length \(count)")
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
