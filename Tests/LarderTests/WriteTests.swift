import Foundation
import XCTest
@testable import Larder

final class WriteTests: RealmTestCase {
    func testAddMakesTheInstanceItselfManaged() throws {
        let realm = try openRealm()
        let person = Person(value: ["id": 1, "name": "Ann"])
        try realm.write { realm.add(person) }
        XCTAssertEqual(person.realm, realm)
        try realm.write { person.name = "Anna" }
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "Anna")
        try realm.write { realm.add(person) }
        XCTAssertEqual(realm.objects(Person.self).count, 1, "adding a managed object again does nothing")
    }

    func testAddASequence() throws {
        let realm = try openRealm()
        let dogs = (0..<5).map { Dog(value: ["name": "dog\($0)", "age": $0]) }
        try realm.write { realm.add(dogs) }
        XCTAssertEqual(realm.objects(Dog.self).count, 5)
        XCTAssertTrue(dogs.allSatisfy { $0.realm != nil })
    }

    func testADuplicatePrimaryKeyThrowsRealmsMessageAndStoresNothing() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Person(value: ["id": 5, "name": "first"])) }
        XCTAssertThrowsError(try realm.write {
            realm.add(Dog(value: ["name": "also lost"]))
            realm.add(Person(value: ["id": 5, "name": "second"]))
        }) { error in
            XCTAssertEqual((error as? Realm.Error)?.message,
                           "Attempting to create an object of type 'Person' with an existing primary key value '5'.")
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 0, "the failed write left the file as it was")
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 5)?.name, "first")
        XCTAssertThrowsError(try realm.write { realm.create(Person.self, value: ["id": 5]) })
    }

    func testUpdateModifiedChangesOnlyWhatDiffers() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Person(value: ["id": 1234, "name": "Jones", "nickname": "J"])) }
        let update = Person(value: ["id": 1234, "name": "Bowie", "nickname": "J"])
        try realm.write { realm.add(update, update: .modified) }
        XCTAssertEqual(realm.objects(Person.self).count, 1)
        let stored = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 1234))
        XCTAssertEqual(stored.name, "Bowie")
        XCTAssertTrue(update.isSameObject(as: stored), "the added instance now refers to the stored object")
        try realm.write { realm.add(Person(value: ["id": 1234]), update: .all) }
        XCTAssertEqual(stored.name, "", ".all writes every property")
        XCTAssertNil(stored.nickname)
        try realm.write { realm.add(Person(value: ["id": 99, "name": "new"]), update: .modified) }
        XCTAssertEqual(realm.objects(Person.self).count, 2, "an update policy inserts a missing key")
    }

    func testCreateCopiesAndLeavesUnnamedPropertiesUntouched() throws {
        let realm = try openRealm()
        let source = Person(value: ["id": 1, "name": "Ann", "nickname": "A", "city": "Oslo"])
        let created = try realm.write { realm.create(Person.self, value: source) }
        XCTAssertNil(source.realm, "create copies; its value stays unmanaged")
        XCTAssertEqual(created.city, "Oslo")
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Anna"], update: .modified) }
        XCTAssertEqual(created.name, "Anna")
        XCTAssertEqual(created.nickname, "A", "a property the value does not name keeps its value")
        XCTAssertEqual(created.city, "Oslo")
        let withDefaults = try realm.write { realm.create(Person.self, value: ["id": 2]) }
        XCTAssertEqual(withDefaults.city, "Berlin")
    }

    /// An int primary key gives the object its key in the core, so a new object with a
    /// deleted one's primary key takes its key: the deleted object's other accessors,
    /// and its lists, stay invalidated, in the same write and in a later one.
    func testAccessorsOfADeletedObjectStayInvalidatedWhenItsPrimaryKeyReturns() throws {
        let realm = try openRealm()
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "first"]) }
        let deleter = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        let other = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        XCTAssertEqual(other.name, "first")
        try realm.write {
            realm.delete(deleter)
            realm.create(Person.self, value: ["id": 1, "name": "second"])
        }
        XCTAssertTrue(deleter.isInvalidated)
        XCTAssertTrue(other.isInvalidated)
        let second = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        XCTAssertFalse(second.isInvalidated)
        XCTAssertEqual(second.name, "second")

        let unread = realm.objects(Person.self).first!  // bound, never read before the delete
        try realm.write { realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 1)!) }
        try realm.write { realm.add(Person(value: ["id": 1, "name": "third"])) }
        XCTAssertTrue(second.isInvalidated)
        XCTAssertTrue(unread.isInvalidated)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "third")
        XCTAssertEqual(realm.objects(Person.self).count, 1)

        // upserts find the new object, and the old accessors stay invalid
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "fourth"], update: .modified) }
        XCTAssertTrue(second.isInvalidated)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "fourth")

        let owner = try openRealm([KeyedOwner.self, KeyedToy.self])
        try owner.write { owner.create(KeyedOwner.self, value: ["id": 5, "numbers": [1, 2]]) }
        let numbers = owner.object(ofType: KeyedOwner.self, forPrimaryKey: 5)!.numbers
        try owner.write {
            owner.delete(owner.object(ofType: KeyedOwner.self, forPrimaryKey: 5)!)
            owner.create(KeyedOwner.self, value: ["id": 5, "numbers": [3]])
        }
        XCTAssertTrue(numbers.isInvalidated)
        XCTAssertEqual(Array(owner.object(ofType: KeyedOwner.self, forPrimaryKey: 5)!.numbers), [3])
    }

    /// Iteration and link reads move an accessor nobody else holds to the next object;
    /// in a class keyed by its int primary key it takes that object's stamp, so reads,
    /// writes and isInvalidated through it see a live object, not a replaced one.
    func testReboundAccessorsOfAKeyedClassStayValid() throws {
        let realm = try openRealm([KeyedToy.self, KeyedToyHolder.self])
        try realm.write {
            for i in 0..<4 { realm.create(KeyedToyHolder.self, value: ["n": i, "toy": ["id": 3 - i, "name": "t\(i)"]]) }
        }
        try realm.write {
            for toy in realm.objects(KeyedToy.self) { toy.name += "!" }
            for holder in realm.objects(KeyedToyHolder.self) { holder.toy!.color = "red" }
        }
        for holder in realm.objects(KeyedToyHolder.self) { XCTAssertFalse(holder.toy!.isInvalidated) }
        for toy in realm.objects(KeyedToy.self) { XCTAssertFalse(toy.isInvalidated) }
        XCTAssertEqual(realm.objects(KeyedToy.self).map(\.name), ["t3!", "t2!", "t1!", "t0!"]) // primary-key order
        XCTAssertEqual(realm.objects(KeyedToy.self).map(\.color), ["red", "red", "red", "red"])
    }

    func testDeleteObjectSequenceResultsAndAll() throws {
        let realm = try openRealm()
        let dogs = (0..<6).map { Dog(value: ["age": $0]) }
        try realm.write {
            realm.add(dogs)
            realm.add(Person(value: ["id": 1]))
        }
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(realm.objects(Dog.self).count, 5)
        try realm.write { realm.delete(dogs[1...2]) }
        XCTAssertEqual(realm.objects(Dog.self).count, 3)
        try realm.write { realm.delete(realm.objects(Dog.self)) }
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertTrue(dogs[5].isInvalidated)
        try realm.write { realm.deleteAll() }
        XCTAssertTrue(realm.isEmpty)
        try realm.write { realm.add(Person(value: ["id": 1])) }
        XCTAssertEqual(realm.objects(Person.self).count, 1, "a primary key is free again after deleteAll")
    }

    func testUpdatingAsTheSeedPagesDo() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 1])) }
        let dog = realm.objects(Dog.self).first!
        try! realm.write {
            dog.name = "Wolfie"
            dog.age += 1
        }
        let allDogs = realm.objects(Dog.self)
        try! realm.write {
            allDogs.setValue("Sparky", forKey: "name")
            dog.setValue(5, forKey: "age")
        }
        XCTAssertEqual(dog.name, "Sparky")
        XCTAssertEqual(dog.age, 5)
    }
}
