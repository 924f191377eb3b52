import Foundation
import XCTest
@testable import Larder

/// A model that other models build from their default values.
final class Tag: Object {
    @Persisted var label = "tag"
    @Persisted var weight = 5
}

func makeTagLabel() -> String {
    let tag = Tag()
    tag.label += "-made"
    return tag.label
}

/// A default value that builds another object, between two persisted properties.
final class Outer: Object {
    @Persisted var a = 7
    @Persisted var name = makeTagLabel()
    @Persisted var b = 9
}

/// A default value that reads the database (and so builds accessors).
final class Census: Object {
    @Persisted var note = "counted"
    @Persisted var dogs = Census.countDogs()

    nonisolated(unsafe) static var fileURL: URL?
    static func countDogs() -> Int {
        guard let fileURL else { return -1 }
        let realm = try! Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self, Census.self]))
        return realm.objects(Dog.self).reduce(0) { sum, dog in sum + dog.age }
    }
}

/// A failable initializer that fails before `super.init()`.
final class Picky: Object {
    @Persisted var value = 11
    @Persisted var other = "picky"

    init?(accept: Bool) {
        if !accept { return nil }
        super.init()
    }

    required init() {
        super.init()
    }
}

/// A property that is not persisted builds another object: so does every accessor of the class.
final class Holder: Object {
    @Persisted var id = 1
    let companion = Tag()
}

/// A model class and a subclass of it: the subclass's wrappers come after its superclass's in the object.
class Feline: Object {
    @Persisted var name = "animal"
    @Persisted var legs = 4
}

final class HouseCat: Feline {
    @Persisted var lives = 9
}

/// Counts how often a default value is evaluated.
enum DefaultCounter {
    nonisolated(unsafe) static var evaluations = 0
    static func next() -> Int {
        evaluations += 1
        return evaluations
    }
}

final class Counted: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var stamp = DefaultCounter.next()
    @Persisted var objectId: ObjectId
}

final class ConstructionTests: RealmTestCase {
    func testADefaultThatBuildsAnotherObjectLeavesBothTheirValues() throws {
        let outer = Outer()
        XCTAssertEqual(outer.a, 7)
        XCTAssertEqual(outer.name, "tag-made")
        XCTAssertEqual(outer.b, 9)
        let realm = try openRealm([Outer.self, Tag.self])
        try realm.write { realm.add(outer) }
        let read = try XCTUnwrap(realm.objects(Outer.self).first)
        XCTAssertEqual([read.a, read.b], [7, 9])
        XCTAssertEqual(read.name, "tag-made")
    }

    func testADefaultThatReadsTheRealm() throws {
        let realm = try openRealm([Dog.self, Census.self])
        try realm.write {
            realm.add(Dog(value: ["name": "a", "age": 3]))
            realm.add(Dog(value: ["name": "b", "age": 4]))
        }
        Census.fileURL = fileURL
        defer { Census.fileURL = nil }
        let census = Census()
        XCTAssertEqual(census.dogs, 7)
        XCTAssertEqual(census.note, "counted")
        try realm.write { realm.add(census) }
        XCTAssertEqual(realm.objects(Census.self).first?.dogs, 7)
    }

    func testAFailedInitializerLeavesNothingForTheNextObject() {
        XCTAssertNil(Picky(accept: false))
        let dog = Dog(value: ["name": "Rex", "age": 3])
        XCTAssertEqual(dog.name, "Rex")
        XCTAssertEqual(dog.age, 3)
        XCTAssertEqual(dog.description, "Dog {\n\tname = \"Rex\";\n\tage = 3;\n}")
        let picky = Picky(accept: true)
        XCTAssertEqual(picky?.value, 11)
        XCTAssertEqual(picky?.other, "picky")
    }

    func testAnObjectThatAnAccessorsInitializerBuildsGetsItsDefaults() throws {
        let realm = try openRealm([Holder.self, Tag.self])
        try realm.write { realm.add(Holder()) }
        let holder = try XCTUnwrap(realm.objects(Holder.self).first)
        XCTAssertEqual(holder.id, 1)
        XCTAssertEqual(holder.companion.label, "tag")
        XCTAssertEqual(holder.companion.weight, 5)
        XCTAssertNil(holder.companion.realm)
    }

    func testASubclassModelKeepsEveryPropertysValue() throws {
        XCTAssertEqual(HouseCat.schema.properties.map(\.name), ["lives", "name", "legs"], "a subclass's own properties first")
        let cat = HouseCat(value: ["Tom", 4, 7]) // as Realm lists them: the superclass's first
        XCTAssertEqual([cat.lives, cat.legs], [7, 4])
        XCTAssertEqual(cat.name, "Tom")
        let realm = try openRealm([HouseCat.self])
        try realm.write { realm.add(cat) }
        let read = try XCTUnwrap(realm.objects(HouseCat.self).first)
        XCTAssertEqual([read.lives, read.legs], [7, 4])
        XCTAssertEqual(read.name, "Tom")
        try realm.write { read.legs = 3 }
        XCTAssertEqual(cat.legs, 3)
    }

    func testReadingManagedObjectsEvaluatesNoDefaultValue() throws {
        let realm = try openRealm([Counted.self])
        try realm.write {
            for id in 1...3 { realm.add(Counted(value: ["id": id])) }
        }
        let evaluated = DefaultCounter.evaluations
        let results = realm.objects(Counted.self)
        XCTAssertEqual(results.map(\.stamp).count, 3)
        XCTAssertEqual(results[1].id, 2)
        _ = results.first?.objectId
        _ = results.sorted(byKeyPath: "id", ascending: false).last?.stamp
        XCTAssertEqual(realm.object(ofType: Counted.self, forPrimaryKey: 3)?.id, 3)
        XCTAssertEqual(DefaultCounter.evaluations, evaluated, "reading managed objects evaluated a default value")
    }
}
