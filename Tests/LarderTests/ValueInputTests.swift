import Foundation
import XCTest
@testable import Larder

/// What `Object(value:)`, `create(value:)`, key-value coding and primary-key
/// lookups accept, and how objects compare and hash.
final class ValueInputTests: RealmTestCase {
    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private let numbers = """
        {"int": 3, "int8": -8, "bool": true, "optBool": false, "double": 1.5, "float": 2.5,
         "optDouble": 4, "decimal": 2.25, "optInt": 12}
        """

    private func assertNumbers(_ object: AllTypes, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object.int, 3, file: file, line: line)
        XCTAssertEqual(object.int8, -8, file: file, line: line)
        XCTAssertTrue(object.bool, file: file, line: line)
        XCTAssertEqual(object.optBool, false, file: file, line: line)
        XCTAssertEqual(object.double, 1.5, file: file, line: line)
        XCTAssertEqual(object.float, 2.5, file: file, line: line)
        XCTAssertEqual(object.optDouble, 4, file: file, line: line)
        XCTAssertEqual(object.decimal, Decimal128(2.25), file: file, line: line)
        XCTAssertEqual(object.optInt, 12, file: file, line: line)
    }

    /// Each dictionary type reads alike: [String: Any] as it is, [String: Any?] with its nils
    /// read as nil (not as an Any that holds nil), [String: Int] and others converted.
    func testDictionariesOfEveryValueTypeFillProperties() throws {
        let plain: [String: Any] = ["id": 1, "name": "Ann", "nickname": "A"]
        let optionals: [String: Any?] = ["id": 2, "name": "Bo", "nickname": nil]
        let wrappedNil: [String: Any] = ["id": 3, "nickname": Optional<String>.none as Any]
        XCTAssertEqual(Person(value: plain).nickname, "A")
        XCTAssertNil(Person(value: optionals).nickname)
        XCTAssertEqual(Person(value: optionals).name, "Bo")
        XCTAssertNil(Person(value: wrappedNil).nickname)
        XCTAssertEqual(Person(value: ["id": 4] as [String: Int]).id, 4)
        let realm = try openRealm([Person.self, Dog.self])
        try realm.write { realm.create(Person.self, value: optionals) }
        XCTAssertNil(realm.object(ofType: Person.self, forPrimaryKey: 2)?.nickname)
    }

    func testJSONNumbersFillNumericProperties() throws {
        assertNumbers(AllTypes(value: try json(numbers)))
        let realm = try openRealm()
        let created = try realm.write { realm.create(AllTypes.self, value: try json(numbers)) }
        assertNumbers(created)
    }

    func testNumbersForKeyValueCodingAndPrimaryKeys() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Person(value: try json(#"{"id": 5, "name": "Ann"}"#))) }
        let person = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: NSNumber(value: 5)))
        XCTAssertEqual(person.name, "Ann")
        let object = AllTypes()
        object.setValue(NSNumber(value: 7), forKey: "int16")
        object["double"] = NSNumber(value: 3)
        object["bool"] = NSNumber(value: true)
        XCTAssertEqual(object.int16, 7)
        XCTAssertEqual(object.double, 3)
        XCTAssertTrue(object.bool)
        XCTAssertEqual(Decimal128(number: NSNumber(value: 42)), Decimal128(42))
        XCTAssertEqual(Decimal128(number: NSNumber(value: 0.5)), Decimal128(0.5))
    }

    func testAHashDoesNotChangeWhenTheObjectIsAdded() throws {
        let realm = try openRealm()
        let person = Person(value: ["id": 1])
        let dog = Dog()
        let people: Set<Object> = [person, dog]
        try realm.write {
            realm.add(person)
            realm.add(dog)
        }
        XCTAssertTrue(people.contains(person))
        XCTAssertTrue(people.contains(dog))
        let found = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 1))
        XCTAssertTrue(people.contains(found), "another accessor of the object is equal and hashes the same")
        try realm.write { realm.delete(person) }
        XCTAssertTrue(people.contains(person), "a deleted object still finds itself")
    }

    func testADeletedObjectEqualsOnlyItself() throws {
        let realm = try openRealm()
        let person = Person(value: ["id": 1])
        try realm.write { realm.add(person) }
        let other = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 1))
        XCTAssertEqual(person, other)
        try realm.write { realm.delete(other) }
        XCTAssertNotEqual(person, other)
        XCTAssertFalse(person.isSameObject(as: other))
        XCTAssertEqual(person, person)
        XCTAssertTrue(other.isSameObject(as: other))
    }
}

/// The class `Feeling` seen with its moods as plain strings, to store raw values no case has.
final class FeelingText: Object {
    @Persisted var mood = "calm"
    @Persisted var optMood: String?
    override class func className() -> String { "Feeling" }
}

final class Feeling: Object {
    @Persisted var mood = Mood.calm
    @Persisted var optMood: Mood?
}

final class StoredEnumTests: RealmTestCase {
    func testAnUnknownStoredRawValueReadsNilForAnOptionalEnum() throws {
        let realm = try openRealm([FeelingText.self])
        try realm.write { realm.add(FeelingText(value: ["mood": "excited", "optMood": "furious"])) }
        let feeling = try XCTUnwrap(realm.objects(Feeling.self).first)
        XCTAssertEqual(feeling.mood, .excited)
        XCTAssertNil(feeling.optMood)
    }
}
