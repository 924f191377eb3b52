import CLarder
import Foundation
import XCTest
@testable import Larder

// Models of the seed page's shape (Person owns its dogs) with cascading deletes.

final class CascadeToy: Object {
    @Persisted var name = ""
}

final class CascadeDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
    @Persisted var citiesVisited: MutableSet<String>
    @Persisted(cascadeDelete: true) var toy: CascadeToy?
}

final class CascadePerson: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted(cascadeDelete: true) var dogs: List<CascadeDog>
    @Persisted(cascadeDelete: true) var favoriteToys: MutableSet<CascadeToy>
    @Persisted(cascadeDelete: true) var toysByRoom: Map<String, CascadeToy?>
    /// A plain link: it never owns.
    @Persisted var bestFriend: CascadeDog?
}

final class CascadeNode: Object {
    @Persisted var name = ""
    @Persisted(cascadeDelete: true) var next: CascadeNode?
    @Persisted(cascadeDelete: true) var children: List<CascadeNode>
}

/// The same Person without the option, as an app update might declare it.
enum Uncascaded {
    final class CascadePerson: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var dogs: List<CascadeDog>
        @Persisted(cascadeDelete: true) var favoriteToys: MutableSet<CascadeToy>
        @Persisted(cascadeDelete: true) var toysByRoom: Map<String, CascadeToy?>
        @Persisted var bestFriend: CascadeDog?
    }
}

/// `@Persisted(cascadeDelete: true)`: deletes that take the objects a property owns along.
final class CascadeDeleteTests: RealmTestCase {
    private let types: [Object.Type] = [CascadePerson.self, CascadeDog.self, CascadeToy.self, CascadeNode.self]

    private func open() throws -> Realm { try openRealm(types) }

    private func dog(_ name: String, toy: String? = nil) -> CascadeDog {
        let dog = CascadeDog()
        dog.name = name
        dog.toy = toy.map { CascadeToy(value: ["name": $0]) }
        return dog
    }

    func testTheOptionIsShownByTheModelAndTheFile() throws {
        let schema = CascadePerson.objectSchema
        XCTAssertEqual(schema["dogs"]?.isCascading, true)
        XCTAssertEqual(schema["favoriteToys"]?.isCascading, true)
        XCTAssertEqual(schema["toysByRoom"]?.isCascading, true)
        XCTAssertEqual(schema["bestFriend"]?.isCascading, false)
        XCTAssertEqual(schema["name"]?.isCascading, false)
        XCTAssertEqual(CascadeDog.objectSchema["toy"]?.isCascading, true)
        XCTAssertTrue(schema["dogs"]!.description.contains("\tcascadeDelete = YES;"))
        XCTAssertFalse(schema["bestFriend"]!.description.contains("cascadeDelete"))

        let realm = try open()
        // The option is stored: the file's schema shows it, read by a program without the models.
        let stored = try Realm(configuration: Realm.Configuration(fileURL: fileURL)).schema
        XCTAssertEqual(stored["CascadePerson"]?["dogs"]?.isCascading, true)
        XCTAssertEqual(stored["CascadePerson"]?["bestFriend"]?.isCascading, false)
        XCTAssertEqual(stored["CascadeDog"]?["toy"]?.isCascading, true)
        let env = realm.instance.environment.handle
        var cls = lar_class(), index: UInt32 = 0, def = lar_property_def()
        XCTAssertEqual(lar_class_find(env, "CascadePerson", &cls), LAR_OK)
        XCTAssertEqual(lar_property_find(env, cls, "dogs", &index), LAR_OK)
        XCTAssertEqual(lar_property_info_get(env, cls, index, &def), LAR_OK)
        XCTAssertEqual(def.flags & LAR_PROP_CASCADE, LAR_PROP_CASCADE)
        withExtendedLifetime(realm) {}
    }

    func testRemovingTheOptionIsASchemaChange() throws {
        _ = try open()
        XCTAssertThrowsError(try openRealm([Uncascaded.CascadePerson.self, CascadeDog.self, CascadeToy.self])) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch)
            XCTAssertEqual((error as? Realm.Error)?.message, "Migration is required due to the following errors:" +
                           "\n- Property 'CascadePerson.dogs' has been made non-cascading.")
        }
    }

    func testDeletingAPersonDeletesItsDogsAndWhatTheyOwn() throws {
        let realm = try open()
        let person = CascadePerson(value: ["name": "Ann"])
        person.dogs.append(objectsIn: [dog("Rex", toy: "Ball"), dog("Fido", toy: "Rope")])
        person.favoriteToys.insert(CascadeToy(value: ["name": "Frisbee"]))
        person.toysByRoom["kitchen"] = CascadeToy(value: ["name": "Bone"])
        let neighbour = CascadePerson(value: ["name": "Bob"])
        try realm.write {
            realm.add(person)
            realm.add(neighbour)
            neighbour.bestFriend = person.dogs[0] // a plain link to Ann's dog
        }
        XCTAssertEqual(realm.objects(CascadeDog.self).count, 2)
        XCTAssertEqual(realm.objects(CascadeToy.self).count, 4)
        let rex = person.dogs[0]
        let dogs = realm.objects(CascadeDog.self).sorted(byKeyPath: "name")
        XCTAssertEqual(dogs.map(\.name), ["Fido", "Rex"])

        try realm.write {
            XCTAssertEqual(dogs.count, 2)
            realm.delete(person)
            XCTAssertEqual(dogs.count, 0, "results see the cascade inside the write")
            XCTAssertEqual(dogs.map(\.name), [])
        }
        XCTAssertTrue(person.isInvalidated)
        XCTAssertTrue(rex.isInvalidated)
        XCTAssertEqual(realm.objects(CascadeDog.self).count, 0)
        XCTAssertEqual(realm.objects(CascadeToy.self).count, 0)
        XCTAssertNil(neighbour.bestFriend, "the plain link became nil")
        XCTAssertEqual(realm.objects(CascadePerson.self).count, 1)
    }

    func testADogOwnedByTwoPeopleGoesWithTheLast() throws {
        let realm = try open()
        let shared = dog("Rex", toy: "Ball")
        let ann = CascadePerson(value: ["name": "Ann"]), bob = CascadePerson(value: ["name": "Bob"])
        try realm.write {
            realm.add([ann, bob])
            ann.dogs.append(shared)
            bob.dogs.append(shared)
        }
        try realm.write { realm.delete(ann) }
        XCTAssertFalse(shared.isInvalidated)
        XCTAssertEqual(shared.toy?.name, "Ball")
        XCTAssertEqual(bob.dogs.count, 1)
        try realm.write { realm.delete(bob) }
        XCTAssertTrue(shared.isInvalidated)
        XCTAssertEqual(realm.objects(CascadeToy.self).count, 0)
    }

    func testPlainLinksKeepRealmsBehaviour() throws {
        let realm = try open()
        let ann = CascadePerson(value: ["name": "Ann"])
        try realm.write {
            realm.add(ann)
            ann.bestFriend = dog("Rex")
        }
        try realm.write { realm.delete(ann) }
        XCTAssertEqual(realm.objects(CascadeDog.self).count, 1, "bestFriend does not cascade")
    }

    func testCyclesEnd() throws {
        let realm = try open()
        let a = CascadeNode(value: ["name": "a"]), b = CascadeNode(value: ["name": "b"])
        let root = CascadeNode(value: ["name": "root"]), kept = CascadeNode(value: ["name": "kept"])
        try realm.write {
            realm.add([a, b, root, kept])
            a.next = b
            b.next = a
            root.children.append(root) // itself
            root.children.append(a)
            b.children.append(root)
        }
        try realm.write { realm.delete(a) }
        XCTAssertTrue(a.isInvalidated)
        XCTAssertTrue(b.isInvalidated)
        XCTAssertTrue(root.isInvalidated, "b owned root, which only the cycle held")
        XCTAssertEqual(realm.objects(CascadeNode.self).map(\.name), ["kept"])
    }

    func testDeletingASequenceSkipsWhatAnEarlierCascadeTook() throws {
        let realm = try open()
        let ann = CascadePerson(value: ["name": "Ann"])
        ann.dogs.append(objectsIn: [dog("Rex"), dog("Fido")])
        try realm.write { realm.add(ann) }
        let everything: [Object] = [ann, ann.dogs[0], ann.dogs[1]]
        try realm.write { realm.delete(everything) }
        XCTAssertTrue(everything.allSatisfy(\.isInvalidated))
        XCTAssertEqual(realm.objects(CascadeDog.self).count, 0)

        // Deletes of filtered sequences and of Results cascade too.
        let people = (0..<3).map { index -> CascadePerson in
            let person = CascadePerson(value: ["name": "p\(index)"])
            person.dogs.append(dog("d\(index)"))
            return person
        }
        try realm.write { realm.add(people) }
        XCTAssertEqual(realm.objects(CascadeDog.self).count, 3)
        try realm.write { realm.delete(realm.objects(CascadePerson.self).filter { $0.name != "p0" }) }
        XCTAssertEqual(realm.objects(CascadeDog.self).map(\.name), ["d0"])
        try realm.write { realm.delete(realm.objects(CascadePerson.self)) }
        XCTAssertEqual(realm.objects(CascadeDog.self).count, 0)
    }
}
