import Foundation
import XCTest
@testable import Larder

/// `MutableSet<T>` properties, unmanaged and managed.
final class MutableSetTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: linkConfiguration(fileURL)) }

    func testUnmanagedSetsHoldDistinctElementsAndAreCopiedIn() throws {
        let realm = try open()
        let traveler = Traveler(value: ["id": 1])
        traveler.cities.insert("Oslo")
        traveler.cities.insert("Oslo")
        traveler.cities.insert(objectsIn: ["Rome", "Bergen"])
        XCTAssertEqual(traveler.cities.count, 3)
        traveler.cities.remove("Rome")
        XCTAssertFalse(traveler.cities.contains("Rome"))
        try realm.write { realm.add(traveler) }
        XCTAssertEqual(Array(traveler.cities), ["Bergen", "Oslo"], "managed sets iterate in stored order")
        XCTAssertEqual(traveler.cities.realm, realm)
    }

    func testManagedSetMutations() throws {
        let realm = try open()
        let traveler = Traveler(value: ["id": 1])
        try realm.write { realm.add(traveler) }
        let scores = traveler.scores
        try realm.write {
            scores.insert(objectsIn: [3, 1, 2, 3])
            scores.remove(2)
            scores.remove(42)
        }
        XCTAssertEqual(Array(scores), [1, 3])
        XCTAssertTrue(scores.contains(3))
        XCTAssertFalse(scores.contains(2))
        XCTAssertEqual(scores.min(), 1)
        XCTAssertEqual(scores.max(), 3)
        XCTAssertEqual(scores.sum(), 4)
        XCTAssertEqual(scores.average(), 2.0)
        XCTAssertEqual(Array(scores.sorted(ascending: false)), [3, 1])
        XCTAssertEqual(scores[1], 3)
        XCTAssertEqual(scores.index(of: 3), 1)
        try realm.write { traveler.maybe.insert(objectsIn: [nil, 1.5, nil]) }
        XCTAssertEqual(traveler.maybe.count, 2)
        XCTAssertTrue(traveler.maybe.contains(nil))
        try realm.write { scores.removeAll() }
        XCTAssertTrue(scores.isEmpty)
    }

    func testManySetElementsIterateAcrossBatches() throws {
        let realm = try open()
        let traveler = Traveler(value: ["id": 1])
        try realm.write {
            realm.add(traveler)
            traveler.scores.insert(objectsIn: (0..<300).reversed())
        }
        XCTAssertEqual(Array(traveler.scores), Array(0..<300))
    }

    func testSetAlgebraManagedAndUnmanaged() throws {
        let realm = try open()
        let a = Traveler(value: ["id": 1, "scores": [1, 2, 3]])
        let b = Traveler(value: ["id": 2, "scores": [2, 3, 4]])
        XCTAssertTrue(a.scores.intersects(b.scores))
        XCTAssertFalse(a.scores.isSubset(of: b.scores))
        try realm.write { realm.add([a, b]) }
        XCTAssertTrue(a.scores.intersects(b.scores))
        XCTAssertFalse(a.scores.isSubset(of: b.scores))
        try realm.write { a.scores.formUnion(b.scores) }
        XCTAssertEqual(Array(a.scores), [1, 2, 3, 4])
        XCTAssertTrue(b.scores.isSubset(of: a.scores))
        try realm.write { a.scores.subtract(b.scores) }
        XCTAssertEqual(Array(a.scores), [1])
        XCTAssertFalse(a.scores.intersects(b.scores))
        try realm.write { a.scores.insert(objectsIn: [2, 9]); a.scores.formIntersection(b.scores) }
        XCTAssertEqual(Array(a.scores), [2])
        // A managed set with an unmanaged one: computed element by element.
        let loose = MutableSet<Int>()
        loose.insert(objectsIn: [2, 7])
        try realm.write { a.scores.formUnion(loose) }
        XCTAssertEqual(Array(a.scores), [2, 7])
        XCTAssertTrue(loose.isSubset(of: a.scores))
    }

    func testSetsOfObjects() throws {
        let realm = try open()
        let traveler = Traveler(value: ["id": 1])
        let toy = Toy(value: ["name": "Ball"])
        traveler.toys.insert(toy)
        traveler.toys.insert(toy)
        try realm.write { realm.add(traveler) }
        XCTAssertEqual(traveler.toys.count, 1)
        XCTAssertTrue(traveler.toys.contains(toy))
        try realm.write { traveler.toys.insert(Toy(value: ["name": "Rope"])) }
        XCTAssertEqual(Set(traveler.toys.map(\.name)), ["Ball", "Rope"])
        XCTAssertEqual((traveler.toys.value(forKey: "name") as? [Any])?.count, 2)
        XCTAssertEqual(traveler.toys.sorted(byKeyPath: "name", ascending: false).map(\.name), ["Rope", "Ball"])
        XCTAssertEqual(AnyRealmCollection(traveler.toys).count, 2)
        XCTAssertEqual(traveler.toys.value(forKeyPath: "name") as? [String?], ["Ball", "Rope"])
        try realm.write { realm.delete(toy) }
        XCTAssertEqual(traveler.toys.map(\.name), ["Rope"], "deleting an object takes it out of sets")
    }

    func testValuesAndPoliciesFillSets() throws {
        let realm = try open()
        let created = try realm.write { realm.create(Traveler.self, value: ["id": 1, "cities": Set(["Oslo", "Rome"])]) }
        XCTAssertEqual(Array(created.cities), ["Oslo", "Rome"])
        try realm.write { realm.create(Traveler.self, value: ["id": 1, "cities": ["Bern"]], update: .modified) }
        XCTAssertEqual(Array(created.cities), ["Bern", "Oslo", "Rome"], ".modified merges sets, as Realm")
        try realm.write { realm.create(Traveler.self, value: ["id": 1, "cities": ["Bern"]], update: .all) }
        XCTAssertEqual(Array(created.cities), ["Bern"])
    }

    func testInsertingOutsideAWriteTraps() throws {
        let outcome = try ChildProcess.run("set-insert-outside-write", argument: fileURL.path)
        XCTAssertTrue(outcome.trapped)
        XCTAssertTrue(outcome.output.contains("Cannot modify Set outside of a write transaction."), outcome.output)
    }
}
