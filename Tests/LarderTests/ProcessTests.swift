import XCTest
@testable import Larder

final class ProcessTests: RealmTestCase {
    func testASecondProcessSeesWhatTheFirstCommitted() throws {
        let realm = try Realm(configuration: ChildScenarios.configuration(fileURL.path))
        try realm.write {
            realm.add(Dog(value: ["name": "Rex", "age": 3]))
            realm.add(Dog(value: ["name": "Fido", "age": 5]))
        }
        let outcome = try ChildProcess.run("count-dogs", argument: fileURL.path)
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("DOGS=2"), outcome.output)
    }

    func testWritesFromTwoProcessesSerializeAndNoneIsLost() throws {
        let realm = try Realm(configuration: ChildScenarios.configuration(fileURL.path))
        try realm.write { realm.add(Dog(value: ["name": "first"])) }
        let child = try ChildProcess.start("write-dogs", argument: fileURL.path)
        for index in 0..<100 {
            try realm.write { realm.add(Dog(value: ["name": "parent", "age": index])) }
        }
        let outcome = child.wait()
        XCTAssertEqual(outcome.status, 0, outcome.output)
        realm.refresh()
        XCTAssertEqual(realm.objects(Dog.self).count, 201)
        XCTAssertEqual(realm.objects(Dog.self).filter { $0.name == "child" }.count, 100)
    }
}
