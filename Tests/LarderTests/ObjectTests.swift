import Foundation
import XCTest
@testable import Larder

final class ObjectTests: RealmTestCase {
    func testInitGivesRealmDefaults() {
        let object = AllTypes()
        XCTAssertEqual(object.int, 0)
        XCTAssertEqual(object.string, "")
        XCTAssertNil(object.optString)
        XCTAssertNil(object.optInt)
        XCTAssertEqual(object.mood, .calm)
        XCTAssertNotEqual(object._id, AllTypes()._id, "each object generates its own ObjectId")
        XCTAssertNotEqual(object.uuid, AllTypes().uuid)
        XCTAssertNil(object.realm)
        XCTAssertFalse(object.isInvalidated)
    }

    func testInitWithDictionaryAndArray() {
        let fromDictionary = Dog(value: ["name": "Rex", "age": 3])
        XCTAssertEqual(fromDictionary.name, "Rex")
        XCTAssertEqual(fromDictionary.age, 3)
        let shortArray = Person(value: [7, "Ann"])
        XCTAssertEqual(shortArray.id, 7)
        XCTAssertEqual(shortArray.name, "Ann")
        XCTAssertNil(shortArray.nickname)
        XCTAssertEqual(shortArray.city, "Berlin", "properties the array leaves out keep their defaults")
        let copy = Dog(value: fromDictionary)
        XCTAssertEqual(copy.name, "Rex")
        XCTAssertFalse(copy === fromDictionary)
    }

    func testKeyValueCodingOnUnmanagedAndManagedObjects() throws {
        let person = Person()
        person.setValue("Zed", forKey: "name")
        person["nickname"] = "Z"
        XCTAssertEqual(person.value(forKey: "name") as? String, "Zed")
        XCTAssertEqual(person["nickname"] as? String, "Z")
        let realm = try openRealm()
        try realm.write { realm.add(person) }
        try realm.write { person["nickname"] = nil }
        XCTAssertNil(person.nickname)
        XCTAssertEqual(person["id"] as? Int, 0)
    }

    func testDescriptionListsProperties() {
        let dog = Dog(value: ["name": "Rex", "age": 3])
        XCTAssertEqual(dog.description, "Dog {\n\tname = \"Rex\";\n\tage = 3;\n}")
    }

    func testEveryTypeRoundTripsThroughTheDatabase() throws {
        let realm = try openRealm()
        let object = AllTypes()
        object.int = -5
        object.int8 = -8
        object.int16 = 16
        object.int32 = -32
        object.int64 = Int64.max
        object.bool = true
        object.float = 1.5
        object.double = -2.25
        object.string = "héllo wörld ✓"
        object.data = Data([0, 1, 2, 255])
        object.date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let objectId = ObjectId.generate()
        object.objectId = objectId
        let uuid = UUID()
        object.uuid = uuid
        object.decimal = Decimal128(low: 12345, high: 0x3040_0000_0000_0000)
        object.mood = .excited
        object.optInt = 9
        object.optString = "opt"
        object.optDate = Date(timeIntervalSince1970: -10.5)
        object.optMood = .calm
        try realm.write { realm.add(object) }
        let read = try XCTUnwrap(realm.object(ofType: AllTypes.self, forPrimaryKey: object._id))
        XCTAssertEqual(read.int, -5)
        XCTAssertEqual(read.int8, -8)
        XCTAssertEqual(read.int16, 16)
        XCTAssertEqual(read.int32, -32)
        XCTAssertEqual(read.int64, Int64.max)
        XCTAssertTrue(read.bool)
        XCTAssertEqual(read.float, 1.5)
        XCTAssertEqual(read.double, -2.25)
        XCTAssertEqual(read.string, "héllo wörld ✓")
        XCTAssertEqual(read.data, Data([0, 1, 2, 255]))
        XCTAssertEqual(read.date, Date(timeIntervalSince1970: 1_700_000_000.25))
        XCTAssertEqual(read.objectId, objectId)
        XCTAssertEqual(read.uuid, uuid)
        XCTAssertEqual(read.decimal, Decimal128(low: 12345, high: 0x3040_0000_0000_0000))
        XCTAssertEqual(read.mood, .excited)
        XCTAssertEqual(read.optInt, 9)
        XCTAssertNil(read.optBool)
        XCTAssertNil(read.optFloat)
        XCTAssertEqual(read.optString, "opt")
        XCTAssertEqual(read.optDate, Date(timeIntervalSince1970: -10.5))
        XCTAssertEqual(read.optMood, .calm)
        XCTAssertNil(read.optDecimal)
        try realm.write {
            read.optBool = false
            read.optString = nil
        }
        XCTAssertEqual(object.optBool, false, "both accessors read the same row")
        XCTAssertNil(object.optString)
    }

    func testLegacyPrimaryKeyClassFunction() throws {
        let realm = try openRealm()
        try realm.write {
            realm.add(LegacyUser(value: ["id": 1, "name": "old"]))
            realm.add(LegacyUser(value: ["id": 1, "name": "new"]), update: .modified)
        }
        XCTAssertEqual(realm.objects(LegacyUser.self).count, 1)
        XCTAssertEqual(realm.object(ofType: LegacyUser.self, forPrimaryKey: 1)?.name, "new")
    }

    func testIdentityAndEquality() throws {
        let realm = try openRealm()
        let person = Person(value: ["id": 1])
        let dog = Dog()
        try realm.write {
            realm.add(person)
            realm.add(dog)
        }
        let samePerson = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 1))
        XCTAssertFalse(samePerson === person)
        XCTAssertTrue(samePerson.isSameObject(as: person))
        XCTAssertEqual(samePerson, person, "objects with a primary key compare by identity in the Realm")
        let sameDog = try XCTUnwrap(realm.objects(Dog.self).first)
        XCTAssertTrue(sameDog.isSameObject(as: dog))
        XCTAssertNotEqual(sameDog, dog, "without a primary key only the instance equals itself")
        XCTAssertFalse(Person().isSameObject(as: Person()))
    }

    func testManagedReadsSeeTheDatabaseNotACopy() throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex"])
        try realm.write { realm.add(dog) }
        let other = try XCTUnwrap(realm.objects(Dog.self).first)
        try realm.write { other.name = "Max" }
        XCTAssertEqual(dog.name, "Max")
    }

    func testDeletedObjectIsInvalidated() throws {
        let realm = try openRealm()
        let dog = Dog()
        try realm.write { realm.add(dog) }
        try realm.write { realm.delete(dog) }
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertEqual(dog.description, "[invalid object]")
    }
}
