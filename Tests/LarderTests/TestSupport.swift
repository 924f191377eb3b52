import Foundation
import XCTest
@testable import Larder

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted(indexed: true) var city = "Berlin"
}

enum Mood: String, PersistableEnum {
    case calm, excited
}

final class AllTypes: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var bool = false
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var decimal: Decimal128
    @Persisted var mood = Mood.calm
    @Persisted var optInt: Int?
    @Persisted var optBool: Bool?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optMood: Mood?
}

/// A model in the older style: the primary key named by a class function.
final class LegacyUser: Object {
    @Persisted var id = 0
    @Persisted var name = ""
    override class func primaryKey() -> String? { "id" }
}

/// Each test gets its own temporary database, as GRDB's tests do.
class RealmTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("larder-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    var fileURL: URL { directory.appendingPathComponent("test.realm") }

    func configuration(_ types: [Object.Type]? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: fileURL, objectTypes: types ?? [Dog.self, Person.self, AllTypes.self, LegacyUser.self])
    }

    func openRealm(_ types: [Object.Type]? = nil) throws -> Realm {
        try Realm(configuration: configuration(types))
    }

    /// Runs scenario (ChildScenarios) on this test's file in a child process, which must
    /// stop with message in its output.
    func assertChildTraps(_ scenario: String, message: String, file: StaticString = #filePath,
                          line: UInt = #line) throws {
        let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
        XCTAssertTrue(outcome.trapped, "scenario \(scenario) did not trap", file: file, line: line)
        XCTAssertTrue(outcome.output.contains(message), "scenario \(scenario) printed: \(outcome.output)",
                      file: file, line: line)
    }
}

/// Runs body on a new thread and waits for it: a thread gets its own Realm instances.
func onAnotherThread(file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () throws -> Void) {
    let thread = Thread {
        do { try body() } catch { XCTFail("\(error)", file: file, line: line) }
    }
    thread.start()
    while !thread.isFinished { Thread.sleep(forTimeInterval: 0.002) }
}
