import Foundation
import XCTest

/// `precondition` and `assert` drop their message in optimized builds (and
/// `assert` its check), so a misuse trap in a release build would say nothing
/// of what went wrong. Larder's traps use `fatalError`, which keeps the message.
final class MisuseMessageTests: XCTestCase {
    private static let droppingCalls = ["precondition(", "preconditionFailure(", "assert(", "assertionFailure("]

    func testNoTrapInTheLibraryDropsItsMessageInReleaseBuilds() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Larder")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertFalse(files.isEmpty, "no sources under \(sources.path)")
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for call in Self.droppingCalls where line.contains(call) {
                    XCTFail("\(file.lastPathComponent):\(number + 1) calls \(call)...): use fatalError, which keeps its message")
                }
            }
        }
    }
}
