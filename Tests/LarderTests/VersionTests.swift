import XCTest
@testable import Larder

final class VersionTests: XCTestCase {
    func testVersion() { XCTAssertEqual(larderVersion, "0.1.0") }
}
