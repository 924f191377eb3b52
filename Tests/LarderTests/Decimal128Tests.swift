import Foundation
import XCTest
@testable import Larder

final class Decimal128Tests: XCTestCase {
    private func decimal(_ string: String, file: StaticString = #filePath, line: UInt = #line) -> Decimal128 {
        do {
            return try Decimal128(string: string)
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return .nan
        }
    }

    private func assertBits(_ value: Decimal128, high: UInt64, low: UInt64,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(value.high, high, "high of \(value)", file: file, line: line)
        XCTAssertEqual(value.low, low, "low of \(value)", file: file, line: line)
    }

    /// The value in a MongoDB BSON corpus `canonical_bson` document `{d: <decimal128>}`:
    /// the 16 little-endian bytes after the 7-byte header.
    private func fromBSON(_ hex: String) -> Decimal128 {
        let chars = Array(hex.utf8)
        let bytes = (0..<16).map { UInt8(String(decoding: chars[14 + 2 * $0...15 + 2 * $0], as: UTF8.self), radix: 16)! }
        let word = { (start: Int) in (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1]) << (8 * $1) } }
        return Decimal128(low: word(0), high: word(8))
    }

    // MARK: Encoding

    func testKnownEncodings() {
        assertBits(1, high: 0x3040_0000_0000_0000, low: 1)
        assertBits(-1, high: 0xB040_0000_0000_0000, low: 1)
        assertBits(decimal("0.1"), high: 0x303E_0000_0000_0000, low: 1)
        assertBits(decimal("12.345"), high: 0x303A_0000_0000_0000, low: 12345)
        assertBits(Decimal128(), high: 0x3040_0000_0000_0000, low: 0)
        assertBits(.zero, high: 0x3040_0000_0000_0000, low: 0)
        assertBits(decimal("NaN"), high: 0x7C00_0000_0000_0000, low: 0)
        assertBits(decimal("Infinity"), high: 0x7800_0000_0000_0000, low: 0)
        assertBits(decimal("-Inf"), high: 0xF800_0000_0000_0000, low: 0)
        assertBits(.max, high: 0x5FFF_ED09_BEAD_87C0, low: 0x378D_8E63_FFFF_FFFF)
        XCTAssertEqual(Decimal128.min.scientificString, "-9.999999999999999999999999999999999E+6144")
    }

    /// From MongoDB's BSON corpus (specifications/source/bson-corpus/tests/decimal128-1.json):
    /// decoding each encoding prints the canonical string, and, unless lossy, parsing it gives the encoding back.
    func testMongoDBCorpusValid() {
        let vectors: [(bson: String, string: String, lossy: Bool)] = [
            ("180000001364000000000000000000000000000000007C00", "NaN", false),
            ("18000000136400000000000000000000000000000000FC00", "NaN", true),
            ("180000001364000000000000000000000000000000007E00", "NaN", true),
            ("18000000136400000000000000000000000000000000FE00", "NaN", true),
            ("180000001364001200000000000000000000000000007E00", "NaN", true),
            ("180000001364000000000000000000000000000000007800", "Infinity", false),
            ("18000000136400000000000000000000000000000000F800", "-Infinity", false),
            ("180000001364000000000000000000000000000000106C00", "0", true),
            ("18000000136400DCBA9876543210DEADBEEF00000010EC00", "-0", true),
            ("18000000136400FFFFFFFFFFFFFFFFFFFFFFFFFFFF116C00", "0E+3", true),
            ("18000000136400F2AF967ED05C82DE3297FF6FDE3CF22F00", "0.000001234567890123456789012345678901234", false),
            ("18000000136400D204000000000000000000000000343000", "0.001234", false),
            ("1800000013640040EF5A07000000000000000000002A3000", "0.00123400000", false),
            ("1800000013640001000000000000000000000000003E3000", "0.1", false),
            ("18000000136400F2AF967ED05C82DE3297FF6FDE3CFC2F00", "0.1234567890123456789012345678901234", false),
            ("180000001364000000000000000000000000000000403000", "0", false),
            ("18000000136400000000000000000000000000000040B000", "-0", false),
            ("1800000013640000000000000000000000000000003EB000", "-0.0", false),
            ("180000001364000200000000000000000000000000403000", "2", false),
            ("18000000136400D0070000000000000000000000003A3000", "2.000", false),
            ("18000000136400F2AF967ED05C82DE3297FF6FDE3C403000", "1234567890123456789012345678901234", false),
            ("18000000136400FFFFFFFF638E8D37C087ADBE09ED010000", "9.999999999999999999999999999999999E-6143", false),
            ("180000001364000100000000000000000000000000000000", "1E-6176", false),
            ("180000001364000100000000000000000000000000008000", "-1E-6176", false),
            ("18000000136400F2AF967ED05C82DE3297FF6FDE3CF02F00", "1.234567890123456789012345678901234E-7", false),
            ("1800000013640064000000000000000000000000002CB000", "-1.00E-8", false),
            ("180000001364000000000000000000000000000000205F00", "0E+6000", false),
            ("1800000013640000000000000000000000000000007A2B00", "0E-611", false),
            ("180000001364000100000000000000000000000000463000", "1E+3", false),
            ("180000001364001A04000000000000000000000000423000", "1.050E+4", false),
            ("180000001364006900000000000000000000000000423000", "1.05E+3", false),
            ("18000000136400FFFFFFFFFFFFFFFFFFFFFFFFFFFF403000", "5192296858534827628530496329220095", false),
            ("18000000136400000000000A5BC138938D44C64D31FE5F00", "1.000000000000000000000000000000000E+6144", false),
            ("18000000136400FFFFFFFF638E8D37C087ADBE09EDFF5F00", "9.999999999999999999999999999999999E+6144", false),
        ]
        for vector in vectors {
            let value = fromBSON(vector.bson)
            XCTAssertEqual(value.scientificString, vector.string, vector.bson)
            if !vector.lossy {
                let parsed = decimal(vector.string)
                XCTAssertEqual([parsed.low, parsed.high], [value.low, value.high], vector.string)
            }
        }
    }

    /// Non-canonical strings from the same corpus, and the encodings they parse to.
    func testMongoDBCorpusParsing() {
        let long = "." + String(repeating: "0", count: 998) + "1"
        let exact = "1" + String(repeating: "0", count: 999)
        let vectors: [(string: String, bson: String)] = [
            ("-100E-10", "1800000013640064000000000000000000000000002CB000"),
            ("1E3", "180000001364000100000000000000000000000000463000"),
            ("1e+3", "180000001364000100000000000000000000000000463000"),
            ("12345689012345789012345E+12", "1800000013640079D9E0F9763ADA429D0200000000583000"),
            ("+1234567890123456789012345678901234", "18000000136400F2AF967ED05C82DE3297FF6FDE3C403000"),
            (long, "180000001364000100000000000000000000000000722800"),
            ("nan", "180000001364000000000000000000000000000000007C00"),
            ("nAn", "180000001364000000000000000000000000000000007C00"),
            ("-NaN", "18000000136400000000000000000000000000000000FC00"),
            ("+infinity", "180000001364000000000000000000000000000000007800"),
            ("infiniTY", "180000001364000000000000000000000000000000007800"),
            ("inF", "180000001364000000000000000000000000000000007800"),
            ("-infiniTy", "18000000136400000000000000000000000000000000F800"),
            ("-inf", "18000000136400000000000000000000000000000000F800"),
            ("10E-6177", "180000001364000100000000000000000000000000000000"),
            ("1E6112", "180000001364000a00000000000000000000000000fe5f00"),
            (exact, "18000000136400000000000a5bc138938d44c64d31cc3700"),
            ("0E+9999999999", "180000001364000000000000000000000000000000FE5F00"),
            ("0E-9999999999", "180000001364000000000000000000000000000000000000"),
            ("-0E+9999999999", "180000001364000000000000000000000000000000FEDF00"),
            ("-0E-9999999999", "180000001364000000000000000000000000000000008000"),
        ]
        for vector in vectors {
            let parsed = decimal(vector.string)
            let expected = fromBSON(vector.bson)
            XCTAssertEqual([parsed.low, parsed.high], [expected.low, expected.high], String(vector.string.prefix(40)))
        }
    }

    // MARK: Parsing and printing

    func testParsingAndPrinting() {
        let cases: [(input: String, output: String)] = [
            ("12.345", "12.345"), ("-0.5", "-0.5"), (".5", "0.5"), ("5.", "5"), ("+7", "7"), ("007.50", "7.50"),
            ("1e10", "1E+10"), ("1.5E-3", "0.0015"), ("1.23E-7", "1.23E-7"), ("0.000001", "0.000001"),
            ("0.0000001", "1E-7"), ("100", "100"), ("1.00", "1.00"), ("-0", "-0"), ("0.00", "0.00"),
            ("123E+2", "1.23E+4"), ("-Infinity", "-Infinity"), ("Inf", "Infinity"), ("NAN", "NaN"),
            ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
            ("12345678901234567890123456789012355", "1.234567890123456789012345678901236E+34"),
            ("0.12345678901234567890123456789012346", "0.1234567890123456789012345678901235"),
            ("1E6145", "Infinity"), ("-1E6145", "-Infinity"), ("1E-6177", "0E-6176"), ("6E-6177", "1E-6176"),
        ]
        for (input, output) in cases {
            XCTAssertEqual(decimal(input).scientificString, output, input)
        }
    }

    /// realm-core's Decimal128::to_string, which Realm's `description` and `stringValue` return.
    func testDescriptionIsRealms() {
        let cases: [(Decimal128, String)] = [
            (decimal("11.11111"), "11.11111"), (Decimal128(11.11111), "11.11111"), (decimal("-1"), "-1"),
            (Decimal128(-1.0), "-1"), (decimal("1234567890e123"), "1.234567890E132"), (decimal("0"), "0"),
            (Decimal128(0.0), "0"), (decimal("1E-5"), "1E-5"), (Decimal128(1e-5), "1E-5"),
            (decimal("3.1416e-4"), "3.1416E-4"), (decimal("10.100e2"), "1010.0"), (decimal("0.000"), "0E-3"),
            (decimal(".00000001000000000"), "1.000000000E-8"), (decimal("-10.5"), "-10.5"),
            (Decimal128(10) / 4, "2.5"), (Decimal128(0.1) + Decimal128(0.2), "3E-1"),
            (.nan, "NaN"), (decimal("Inf"), "Inf"), (decimal("-Infinity"), "-Inf"),
            (decimal("1234567890123456789012345678901234"), "+1234567890123456789012345678901234E+0"),
        ]
        for (value, text) in cases {
            XCTAssertEqual(value.description, text)
            XCTAssertEqual(value.stringValue, text)
        }
    }

    func testStringRoundTripKeepsTheEncoding() {
        let values: [Decimal128] = [0, 1, -1, 0.1, 12.345, "1E+10", "1.23E-7", "1.00", "-0.000", .max, .min,
                                    "1E-6176", "9.999999999999999999999999999999999E-6143", 1 / 3, -2 / 7]
        for value in values {
            let parsed = decimal(value.stringValue)
            XCTAssertEqual(parsed, value)
            XCTAssertEqual([parsed.low, parsed.high], [value.low, value.high], value.stringValue)
        }
    }

    func testInvalidStringsThrow() {
        let invalid = ["", "abc", "1.2.3", "--1", "+-1", "1e", "e5", ".", "+", "-", " 1", "1 ", "1e+", "1e-",
                       "0x10", "1,5", "1_000", "NaNa", "Infinit", "infinityy", "1e5.5", "1ee5", "١٢", "1E+1e", "½"]
        for string in invalid {
            XCTAssertThrowsError(try Decimal128(string: string), "'\(string)'") { error in
                XCTAssertEqual(error as? Decimal128.ParseError, Decimal128.ParseError(string: string))
                XCTAssertEqual("\(error)", "Invalid Decimal128 string '\(string)'")
            }
        }
    }

    // MARK: Arithmetic

    func testArithmetic() {
        let cases: [(result: Decimal128, value: Decimal128, string: String, label: String)] = [
            (decimal("0.1") + decimal("0.2"), 0.3, "0.3", "0.1 + 0.2"),
            (decimal("1.10") + decimal("2.205"), 3.305, "3.305", "1.10 + 2.205"),
            (Decimal128(1) - 3, -2, "-2", "1 - 3"),
            (Decimal128(2.5) * 4, 10, "10.0", "2.5 * 4"),
            (decimal("12.345") * decimal("-0.5"), -6.1725, "-6.1725", "12.345 * -0.5"),
            (Decimal128(1) / 4, 0.25, "0.25", "1 / 4"),
            (Decimal128(10) / 4, 2.5, "2.5", "10 / 4"),
            (Decimal128(6) / 2, 3, "3", "6 / 2"),
            (Decimal128(-7) / 2, -3.5, "-3.5", "-7 / 2"),
            (decimal("1.00") / 1, 1, "1.00", "1.00 / 1"),
            (Decimal128(1) + decimal("0.00"), 1, "1.00", "1 + 0.00"),
            (decimal("1.5E-3") + decimal("1E10"), "10000000000.0015", "10000000000.0015", "1.5E-3 + 1E10"),
            (Decimal128(5) - 5, 0, "0", "5 - 5"),
        ]
        for (result, value, string, label) in cases {
            XCTAssertEqual(result, value, label)
            XCTAssertEqual(result.scientificString, string, label)
        }
    }

    func testRoundingTo34DigitsHalfEven() {
        let cases: [(Decimal128, String)] = [
            (decimal("1234567890123456789012345678901234") + decimal("0.5"), "1234567890123456789012345678901234"),
            (decimal("1234567890123456789012345678901235") + decimal("0.5"), "1234567890123456789012345678901236"),
            (decimal("1234567890123456789012345678901234") + decimal("0.51"), "1234567890123456789012345678901235"),
            (decimal("1234567890123456789012345678901234") + decimal("0.5000000000000000000000000000000001"),
             "1234567890123456789012345678901235"),
            (decimal("9999999999999999999999999999999999") + 1, "1.000000000000000000000000000000000E+34"),
            (decimal("100000000000000001") * decimal("100000000000000001"), "1.000000000000000020000000000000000E+34"),
            (decimal("1234567890123456789012345678901235") - decimal("0.5000000000000000000000000000000001"),
             "1234567890123456789012345678901234"),
            (decimal("1234567890123456789012345678901234") * decimal("1234567890123456789012345678901234"),
             "1.524157875323883675049535156256667E+66"),
            (decimal("9999999999999999999999999999999999") * decimal("9999999999999999999999999999999999"),
             "9.999999999999999999999999999999998E+67"),
            (decimal("2.5") * decimal("1000000000000000000000000000000001"), "2500000000000000000000000000000002"),
            (Decimal128(1) - decimal("1E-34"), "0.9999999999999999999999999999999999"),
            (Decimal128(1) - decimal("1E-40"), "1.000000000000000000000000000000000"),
            (decimal("1E+100") + decimal("0E-100"), "1.000000000000000000000000000000000E+100"),
            (Decimal128(1) / 3, "0.3333333333333333333333333333333333"),
            (Decimal128(2) / 3, "0.6666666666666666666666666666666667"),
            (Decimal128(1) / 7, "0.1428571428571428571428571428571429"),
            (decimal("1E-6176") / 10, "0E-6176"),
            (decimal("1.5E-6176") / 10, "0E-6176"),
        ]
        for (index, (result, string)) in cases.enumerated() {
            XCTAssertEqual(result.scientificString, string, "case \(index)")
        }
    }

    func testCompoundOperatorsAndNegation() {
        var value: Decimal128 = 10
        value += 5
        XCTAssertEqual(value, 15)
        value -= 20
        XCTAssertEqual(value, -5)
        value *= decimal("1.5")
        XCTAssertEqual(value.scientificString, "-7.5")
        value /= 2
        XCTAssertEqual(value.scientificString, "-3.75")
        XCTAssertEqual((-value).scientificString, "3.75")
        value.negate()
        XCTAssertEqual(value, 3.75)
        XCTAssertEqual(Decimal128(-2.5).magnitude, 2.5)
        XCTAssertEqual((-Decimal128(0)).scientificString, "-0")
        XCTAssertEqual([Decimal128(1), 2.5, "3.25"].reduce(.zero, +), 6.75)
        XCTAssertEqual(Decimal128(2).distance(to: decimal("3.5")), 1.5)
        XCTAssertEqual(Array(stride(from: Decimal128(0), to: 1, by: 0.25)), [0, 0.25, 0.5, 0.75])
    }

    func testSignedZeros() {
        XCTAssertEqual((decimal("-0") + decimal("-0")).scientificString, "-0")
        XCTAssertEqual((decimal("-0") + 0).scientificString, "0")
        XCTAssertEqual((Decimal128(-1) + 1).scientificString, "0")
        XCTAssertEqual((Decimal128(-3) * 0).scientificString, "-0")
        XCTAssertEqual(decimal("-0"), 0)
    }

    func testSpecialValues() {
        let nan = decimal("NaN")
        let infinity = decimal("Infinity")
        XCTAssertTrue(nan.isNaN)
        XCTAssertFalse(nan.isSignaling)
        XCTAssertFalse(nan.isInfinite)
        XCTAssertTrue(infinity.isInfinite)
        XCTAssertFalse(infinity.isNaN)
        XCTAssertFalse(Decimal128(1).isNaN || Decimal128(1).isInfinite)
        XCTAssertTrue(Decimal128(low: 0, high: 0x7E00_0000_0000_0000).isSignaling)
        XCTAssertTrue(Decimal128(low: 0, high: 0x7E00_0000_0000_0000).isNaN)
        XCTAssertTrue(Decimal128.nan.isNaN)
        // A coefficient of 10^34 is out of range, so the spec reads it as zero.
        XCTAssertEqual(Decimal128(low: 0x378D_8E64_0000_0000, high: 0x3041_ED09_BEAD_87C0).scientificString, "0")
        XCTAssertEqual(Decimal128.infinity, infinity)

        XCTAssertTrue((infinity - infinity).isNaN)
        XCTAssertTrue((infinity * 0).isNaN)
        XCTAssertTrue((infinity / infinity).isNaN)
        XCTAssertTrue((Decimal128(0) / 0).isNaN)
        XCTAssertTrue((nan + 1).isNaN)
        XCTAssertEqual((infinity + infinity).scientificString, "Infinity")
        XCTAssertEqual((infinity * -2).scientificString, "-Infinity")
        XCTAssertEqual((Decimal128(1) / 0).scientificString, "Infinity")
        XCTAssertEqual((Decimal128(-1) / 0).scientificString, "-Infinity")
        XCTAssertEqual((Decimal128(5) / infinity).scientificString, "0E-6176")
        XCTAssertEqual((Decimal128.max * 10).scientificString, "Infinity")
        XCTAssertEqual((Decimal128.min + .min).scientificString, "-Infinity")
    }

    // MARK: Comparison and hashing

    func testComparisonAcrossExponents() {
        XCTAssertEqual(decimal("1.0"), decimal("1.00"))
        XCTAssertEqual(decimal("1.0"), 1)
        XCTAssertEqual(decimal("1E+3"), 1000)
        XCTAssertEqual(decimal("0.00"), decimal("-0E+10"))
        XCTAssertNotEqual(decimal("1.01"), 1)
        XCTAssertLessThan(decimal("0.1"), decimal("0.10000001"))
        XCTAssertLessThan(decimal("-1"), decimal("-0.5"))
        XCTAssertLessThan(decimal("9.99"), decimal("1E+1"))
        XCTAssertLessThan(decimal("-1E+1"), decimal("-9.99"))
        XCTAssertGreaterThan(decimal("1E-6176"), 0)
        XCTAssertLessThanOrEqual(decimal("2.50"), decimal("2.5"))
        XCTAssertGreaterThanOrEqual(decimal("2.50"), decimal("2.5"))
        XCTAssertLessThan(decimal("-Infinity"), .min)
        XCTAssertGreaterThan(decimal("Infinity"), .max)

        let sorted: [Decimal128] = ["-Infinity", -2, "-0.5", 0, "0.50", 1, 3, "1E+1", "Infinity"]
        XCTAssertEqual(sorted.shuffled().sorted().map(\.stringValue), sorted.map(\.stringValue))
    }

    func testNaNIsUnordered() {
        let nan = Decimal128.nan
        XCTAssertFalse(nan == nan)
        XCTAssertTrue(nan != nan)
        XCTAssertFalse(nan < 1)
        XCTAssertFalse(nan > 1)
        XCTAssertFalse(nan <= 1)
        XCTAssertFalse(nan >= 1)
        XCTAssertFalse(1 < nan)
        XCTAssertFalse(1 >= nan)
    }

    func testHashMatchesEquality() {
        XCTAssertEqual(Decimal128(1).hashValue, decimal("1.0").hashValue)
        XCTAssertEqual(Decimal128(1).hashValue, decimal("1.000").hashValue)
        XCTAssertEqual(decimal("100").hashValue, decimal("1E+2").hashValue)
        XCTAssertEqual(decimal("0").hashValue, decimal("-0.00").hashValue)
        XCTAssertEqual(decimal("0").hashValue, decimal("0E+10").hashValue)
        XCTAssertEqual(Set<Decimal128>([1, "1.0", "1.00", "1E+0", "0.1E+1"]).count, 1)
        XCTAssertEqual(Set<Decimal128>([1, -1, "0.1", "10", 0, "-0"]).count, 5)
    }

    // MARK: Conversions

    func testLiterals() {
        let integer: Decimal128 = 5
        let float: Decimal128 = 2.5
        let string: Decimal128 = "3.14"
        assertBits(integer, high: 0x3040_0000_0000_0000, low: 5)
        assertBits(float, high: 0x303E_0000_0000_0000, low: 25)
        assertBits(string, high: 0x303C_0000_0000_0000, low: 314)
        let tenth: Decimal128 = 0.1
        XCTAssertEqual(tenth.scientificString, "0.1")
    }

    func testIntegerAndDoubleInit() {
        XCTAssertEqual(Decimal128(value: 42).scientificString, "42")
        XCTAssertEqual(Decimal128(Int.min).scientificString, "-9223372036854775808")
        XCTAssertEqual(Decimal128(UInt64.max).scientificString, "18446744073709551615")
        XCTAssertEqual(Decimal128(UInt128.max).scientificString, "3.402823669209384634633746074317682E+38")
        XCTAssertNil(Decimal128(exactly: UInt128.max))
        XCTAssertEqual(Decimal128(exactly: UInt128(10_000_000_000_000_000_000) * 10_000_000_000_000_000_000),
                       decimal("1E+38"))
        XCTAssertEqual(Decimal128(exactly: -12), -12)

        XCTAssertEqual(Decimal128(value: 0.1).scientificString, "0.1")
        XCTAssertEqual(Decimal128(-2.5).scientificString, "-2.5")
        XCTAssertEqual(Decimal128(1e-5).scientificString, "0.00001")
        XCTAssertEqual(Decimal128(1e20), decimal("1E+20"))
        XCTAssertEqual(Decimal128(Double.pi).scientificString, "3.14159265358979", "15 digits, as Realm")
        XCTAssertTrue(Decimal128(Double.infinity).isInfinite)
        XCTAssertTrue(Decimal128(Double.nan).isNaN)
    }

    func testDoubleValue() {
        XCTAssertEqual(decimal("0.1").doubleValue, 0.1)
        XCTAssertEqual(decimal("-12.345").doubleValue, -12.345)
        XCTAssertEqual(decimal("1.23E-7").doubleValue, 1.23e-7)
        XCTAssertEqual(decimal("1E+400").doubleValue, .infinity)
        XCTAssertEqual(decimal("-Infinity").doubleValue, -.infinity)
        XCTAssertTrue(Decimal128.nan.doubleValue.isNaN)
    }

    func testCodableAsString() throws {
        let values: [Decimal128] = [1.5, -0.25, "1E+10", "NaN"]
        let json = try JSONEncoder().encode(values)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"["1.5","-2.5E-1","1E10","NaN"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: json)
        XCTAssertEqual(decoded.map(\.stringValue), values.map(\.stringValue))

        let numbers = try JSONDecoder().decode([Decimal128].self, from: Data("[2, 2.5]".utf8))
        XCTAssertEqual(numbers, [2, 2.5])
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.2.3"]"#.utf8))) { error in
            guard case DecodingError.dataCorrupted = error else { return XCTFail("\(error)") }
        }
    }
}
