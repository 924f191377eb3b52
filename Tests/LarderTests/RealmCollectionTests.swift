import Foundation
import XCTest
@testable import Larder

/// `RealmCollection`, `AnyRealmCollection`, and the Results members that go with them.
final class RealmCollectionTests: RealmTestCase {
    private func dogs(_ realm: Realm) throws -> Results<Dog> {
        try realm.write {
            realm.add(Dog(value: ["name": "Rex", "age": 3]))
            realm.add(Dog(value: ["name": "Ace", "age": 5]))
            realm.add(Dog(value: ["name": "Max", "age": 1]))
        }
        return realm.objects(Dog.self)
    }

    /// Generic code over any Realm collection of dogs.
    private func names(_ collection: some RealmCollection<Dog>) -> [String] {
        collection.map(\.name)
    }

    func testSortedByASwiftKeyPath() throws {
        let dogs = try dogs(openRealm())
        XCTAssertEqual(names(dogs.sorted(by: \.age)), ["Max", "Rex", "Ace"])
        XCTAssertEqual(names(dogs.sorted(by: \.name, ascending: false)), ["Rex", "Max", "Ace"])
    }

    func testSortedByAKeyPathAmongPropertiesOfTheSameType() throws {
        let realm = try openRealm()
        try realm.write {
            realm.add(Person(value: ["id": 1, "name": "A", "city": "Oslo"]))
            realm.add(Person(value: ["id": 2, "name": "B", "city": "Bonn"]))
        }
        // name and city are both String: the key path is told apart by reading a probe.
        XCTAssertEqual(realm.objects(Person.self).sorted(by: \.city).map(\.id), [2, 1])
        XCTAssertEqual(realm.objects(Person.self).sorted(by: \.name).map(\.id), [1, 2])
    }

    func testValueForKeyPath() throws {
        let dogs = try dogs(openRealm())
        XCTAssertEqual(dogs.value(forKeyPath: "name") as? [String], ["Rex", "Ace", "Max"])
        XCTAssertEqual((dogs.value(forKey: "self") as? [Dog])?.map(\.name), ["Rex", "Ace", "Max"])
    }

    func testAnyRealmCollectionWrapsResults() throws {
        let realm = try openRealm()
        let results = try dogs(realm)
        let any = AnyRealmCollection(results)
        XCTAssertEqual(any.count, 3)
        XCTAssertEqual(any.first?.name, "Rex")
        XCTAssertEqual(any.last?.name, "Max")
        XCTAssertEqual(any[1].name, "Ace")
        XCTAssertEqual(any.index(of: results[2]), 2)
        XCTAssertEqual(names(any), ["Rex", "Ace", "Max"])
        XCTAssertEqual(names(any.sorted(byKeyPath: "age")), ["Max", "Rex", "Ace"])
        XCTAssertEqual(names(any.sorted(by: [SortDescriptor(keyPath: "name")])), ["Ace", "Max", "Rex"])
        XCTAssertEqual(any.value(forKey: "age") as? [Int], [3, 5, 1])
        XCTAssertEqual(any.realm, realm)
        XCTAssertFalse(any.isInvalidated)
        try realm.write { any.setValue(7, forKey: "age") }
        XCTAssertEqual(results.map(\.age), [7, 7, 7])
        // Live, as the results it wraps.
        try realm.write { realm.add(Dog(value: ["name": "New"])) }
        XCTAssertEqual(any.count, 4)
    }

    @available(*, deprecated)
    func testAddWithABooleanUpdate() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Person(value: ["id": 1, "name": "Jones", "nickname": "J"])) }
        try realm.write { realm.add(Person(value: ["id": 1, "name": "Bowie"]), update: true) }
        let person = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 1))
        XCTAssertEqual(person.name, "Bowie")
        XCTAssertNil(person.nickname) // true is .all: every property written
        XCTAssertThrowsError(try realm.write { realm.add(Person(value: ["id": 1]), update: false) })
        try realm.write { realm.add([Person(value: ["id": 1, "name": "Ziggy"])], update: true) }
        XCTAssertEqual(person.name, "Ziggy")
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Stardust"], update: true) }
        XCTAssertEqual(person.name, "Stardust")
    }
}
