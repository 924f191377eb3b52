import Foundation
import XCTest
@testable import Larder

final class FrozenDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<FrozenOwner>
}

final class FrozenOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<FrozenDog>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

let frozenTypes: [Object.Type] = [FrozenDog.self, FrozenOwner.self]

/// Freezing (issue 14 point 5): frozen Realms read one version forever, from any thread.
final class FreezeTests: RealmTestCase {
    private func seeded() throws -> (Realm, FrozenOwner) {
        let realm = try openRealm(frozenTypes)
        let owner = FrozenOwner(value: ["id": 1, "name": "Ann"])
        try realm.write {
            realm.add(owner)
            owner.dogs.append(objectsIn: [FrozenDog(value: ["name": "Rex", "age": 3]), FrozenDog(value: ["name": "Bo", "age": 1])])
            owner.tags.insert("a")
            owner.scores["x"] = 7
        }
        return (realm, owner)
    }

    func testAFrozenRealmReadsTheVersionItWasFrozenAt() throws {
        let (realm, owner) = try seeded()
        let frozen = realm.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(realm.isFrozen)
        XCTAssertEqual(frozen, realm.freeze(), "one frozen Realm per version")
        try realm.write {
            owner.name = "Bea"
            realm.add(FrozenOwner(value: ["id": 2]))
            owner.dogs.removeAll()
        }
        XCTAssertEqual(frozen.objects(FrozenOwner.self).count, 1)
        let frozenOwner = frozen.object(ofType: FrozenOwner.self, forPrimaryKey: 1)!
        XCTAssertEqual(frozenOwner.name, "Ann")
        XCTAssertEqual(frozenOwner.dogs.map(\.name), ["Rex", "Bo"])
        XCTAssertTrue(frozenOwner.isFrozen && frozenOwner.dogs.isFrozen && frozenOwner.dogs[0].isFrozen)
        XCTAssertEqual(realm.objects(FrozenOwner.self).count, 2)
        XCTAssertEqual(owner.name, "Bea")
        XCTAssertFalse(frozen.refresh())
        XCTAssertNotEqual(realm.freeze(), frozen, "a new version freezes anew")
    }

    func testAFrozenRealmOfARealmBehindTheNewestVersionReadsItsVersion() throws {
        let (realm, owner) = try seeded()
        XCTAssertEqual(owner.name, "Ann") // a read at this version
        onAnotherThread {
            let other = try Realm(configuration: self.configuration(frozenTypes))
            try other.write { other.object(ofType: FrozenOwner.self, forPrimaryKey: 1)!.name = "Cy" }
        }
        XCTAssertEqual(owner.name, "Ann")
        let frozenOwner = owner.freeze()
        XCTAssertEqual(frozenOwner.name, "Ann")
        realm.refresh()
        XCTAssertEqual(owner.name, "Cy")
        XCTAssertEqual(frozenOwner.name, "Ann")
    }

    func testEverythingReadFromAFrozenObjectIsFrozen() throws {
        let (_, owner) = try seeded()
        let frozen = owner.freeze()
        XCTAssertTrue(frozen.realm!.isFrozen)
        XCTAssertTrue(frozen.dogs.first!.owners.isFrozen)
        XCTAssertEqual(frozen.dogs.first!.owners.first!.name, "Ann")
        XCTAssertTrue(frozen.tags.isFrozen)
        XCTAssertEqual(Array(frozen.tags), ["a"])
        XCTAssertTrue(frozen.scores.isFrozen)
        XCTAssertEqual(frozen.scores["x"], 7)
        XCTAssertTrue(frozen.dogs.sorted(byKeyPath: "age").isFrozen)
        XCTAssertEqual(frozen.dogs.sorted(byKeyPath: "age").map(\.name), ["Bo", "Rex"])
        XCTAssertEqual(frozen.dogs.filter("age > 2").map(\.name), ["Rex"])
        XCTAssertFalse(owner.isFrozen)
        XCTAssertFalse(FrozenOwner().isFrozen)
    }

    func testCollectionsAndResultsFreezeAndThaw() throws {
        let (realm, owner) = try seeded()
        let results = realm.objects(FrozenDog.self).filter("age > 0").sorted(byKeyPath: "age")
        let frozenResults = results.freeze()
        let frozenList = owner.dogs.freeze()
        let frozenSet = owner.tags.freeze()
        let frozenMap = owner.scores.freeze()
        let frozenLinking = owner.dogs[0].owners.freeze()
        let frozenAny = AnyRealmCollection(owner.dogs).freeze()
        let frozenValues = owner.tags.sorted().freeze()
        try realm.write {
            realm.add(FrozenDog(value: ["name": "Zed", "age": 9]))
            owner.dogs.append(FrozenDog(value: ["name": "Al", "age": 5]))
            owner.tags.insert("b")
            owner.scores["y"] = 1
            owner.dogs[0].owners.first!.name = "Changed"
        }
        XCTAssertEqual(frozenResults.map(\.name), ["Bo", "Rex"])
        XCTAssertEqual(frozenList.count, 2)
        XCTAssertEqual(frozenSet.count, 1)
        XCTAssertEqual(frozenMap.count, 1)
        XCTAssertEqual(frozenLinking.first?.name, "Ann")
        XCTAssertEqual(frozenAny.count, 2)
        XCTAssertTrue(frozenAny.isFrozen)
        XCTAssertEqual(Array(frozenValues), ["a"])

        XCTAssertEqual(frozenResults.thaw()!.map(\.name), ["Bo", "Rex", "Al", "Zed"])
        XCTAssertFalse(frozenResults.thaw()!.isFrozen)
        XCTAssertEqual(frozenList.thaw()!.count, 3)
        XCTAssertEqual(frozenSet.thaw()!.count, 2)
        XCTAssertEqual(frozenMap.thaw()!.count, 2)
        XCTAssertEqual(frozenLinking.thaw()!.first?.name, "Changed")
        XCTAssertEqual(frozenAny.thaw()!.count, 3)
        XCTAssertEqual(Array(frozenValues.thaw()!), ["a", "b"])
        XCTAssertTrue(owner.dogs.thaw()! === owner.dogs || owner.dogs.thaw()! == owner.dogs)
    }

    func testThawGivesTheLiveObjectOrNilOnceDeleted() throws {
        let (realm, owner) = try seeded()
        let frozen = owner.freeze()
        XCTAssertTrue(frozen.thaw()!.isSameObject(as: owner))
        XCTAssertEqual(realm.thaw(), realm)
        XCTAssertEqual(frozen.realm!.thaw(), realm)
        let frozenList = owner.dogs.freeze()
        try realm.write { realm.delete(owner) }
        XCTAssertNil(frozen.thaw())
        XCTAssertNil(frozenList.thaw())
        XCTAssertEqual(frozen.name, "Ann", "the frozen object stays readable")
    }

    func testFrozenObjectsAreEqualByRowAndHashAlike() throws {
        let realm = try openRealm(frozenTypes)
        let dog = FrozenDog()
        try realm.write { realm.add(dog) }
        let a = dog.freeze(), b = realm.freeze().objects(FrozenDog.self).first!
        XCTAssertFalse(a === b)
        XCTAssertEqual(a, b, "frozen objects without a primary key compare by row")
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b]).count, 1)
        XCTAssertNotEqual(dog, realm.objects(FrozenDog.self).first!, "live ones without a primary key do not")
    }

    func testFreezingInAWriteFreezesTheVersionTheWriteBeganOn() throws {
        let (realm, owner) = try seeded()
        realm.beginWrite()
        owner.name = "Inside"
        let frozen = owner.freeze()
        realm.cancelWrite()
        XCTAssertEqual(frozen.name, "Ann")
    }

    func testFrozenObjectsAreReadFromManyThreadsAtOnce() throws {
        let realm = try openRealm(frozenTypes)
        try realm.write {
            for id in 0..<50 {
                let owner = realm.create(FrozenOwner.self, value: ["id": id, "name": "owner \(id)"])
                owner.dogs.append(objectsIn: (0..<4).map { FrozenDog(value: ["name": "dog \(id)-\($0)", "age": $0]) })
                owner.scores["n"] = id
            }
        }
        let frozen = realm.freeze()
        let owners = frozen.objects(FrozenOwner.self).sorted(byKeyPath: "id")
        let firstDog = owners.first!.dogs.first!
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<20 {
                var ages = 0
                for owner in owners where owner.name != "owner \(owner.id)" || owner.scores["n"] != owner.id {
                    failures.add()
                }
                let owner = owners[(worker * 7 + round) % owners.count]
                for dog in owner.dogs { ages += dog.age }
                if ages != 6 || owner.dogs.count != 4 || owner.dogs.filter("age > 1").count != 2 { failures.add() }
                if firstDog.name != "dog 0-0" || firstDog.owners.first?.id != 0 { failures.add() }
                if frozen.objects(FrozenDog.self).count != 200 { failures.add() }
                if owners.sum(ofProperty: "id") as Int != 1225 || owners.max(ofProperty: "id") as Int? != 49 { failures.add() }
                if !owner.tags.isEmpty || owner.tags.contains("x") || Array(owner.scores).count != 1 { failures.add() }
                if owner.dogs.first!.owners.isInvalidated || owner.dogs.sorted(byKeyPath: "age").last?.age != 3 {
                    failures.add()
                }
                if owners.filter("name BEGINSWITH 'owner 1'").count != 11 || owners[worker].id != worker { failures.add() }
            }
        }
        XCTAssertEqual(failures.value, 0)
    }

    /// Realm's seed page (004, "Perform an explicit write" / "create with update: .modified"):
    /// frozen objects thawed, their lists queried, and written through the thawed Realm.
    func testTheSeedPagesThawSamplesRunAsShown() throws {
        let realm = try Realm(configuration: configuration([QuickWriteCompany.self, QuickWriteEmployee.self,
                                                            QuickWriteDog.self, QuickWriteToy.self, QuickWritePerson.self]))
        try realm.write {
            let company = realm.create(QuickWriteCompany.self, value: ["companyName": "Acme"])
            company.employees.append(QuickWriteEmployee(value: ["name": "Dachary"]))
            company.dogs.append(QuickWriteDog(value: ["name": "Maui"]))
            realm.add(QuickWritePerson(value: ["name": "Ann"]))
            realm.add(QuickWriteToy(value: ["name": "Wubba"]))
        }
        let frozenCompany = realm.objects(QuickWriteCompany.self).first!.freeze()
        performAnExplicitWrite(company: frozenCompany, employeeName: "Dachary", dogName: "Maui")
        XCTAssertEqual(realm.objects(QuickWriteEmployee.self).first!.dogs.map(\.name), ["Maui"])
        XCTAssertTrue(frozenCompany.employees.first!.dogs.isEmpty, "the frozen company keeps its version")

        let frozenPerson = realm.objects(QuickWritePerson.self).first!.freeze()
        let person = frozenPerson.thaw()!
        let wubba = realm.objects(QuickWriteToy.self).first!
        // When working with an `@ObservedRealmObject` `Person`, this is a frozen object.
        // Thaw the object and get its realm to perform the write to append the new dog.
        let thawedPersonRealm = frozenPerson.thaw()!.realm!
        try! thawedPersonRealm.write {
            // Use the .create method with `update: .modified` to copy the
            // existing object into the realm
            let dog = thawedPersonRealm.create(QuickWriteDog.self, value: ["name": "Maui", "favoriteToy": wubba],
                                               update: .modified)
            person.dogs.append(dog)
        }
        XCTAssertEqual(person.dogs.first?.favoriteToy?.name, "Wubba")
    }

    // The seed's function, as the page shows it.
    func performAnExplicitWrite(company: QuickWriteCompany, employeeName: String, dogName: String) {
        // Get the realm that is managing the `Company` object you passed in.
        // Thaw the realm so you can write to it.
        let realm = company.realm!.thaw()
        // Thawing the `Company` object that you passed in also thaws the objects in its List properties.
        // This lets you append the `Dog` to the `Employee` without individually thawing both of them.
        let thawedCompany = company.thaw()!
        let thisEmployee = thawedCompany.employees.where { $0.name == employeeName }.first!
        let thisDog = thawedCompany.dogs.where { $0.name == dogName }.first!
        try! realm.write {
            thisEmployee.dogs.append(thisDog)
        }
    }

    // MARK: Traps (in child processes)

    func testWritingToFrozenThingsTrapsWithRealmsMessages() throws {
        try assertChildTraps("freeze-set-property", message: "Attempting to modify a frozen object - call thaw on the Object instance first.")
        try assertChildTraps("freeze-begin-write", message: "Can't perform transactions on a frozen Realm")
        try assertChildTraps("freeze-append-list", message: "Cannot modify List outside of a write transaction.")
        try assertChildTraps("freeze-unmanaged", message: "Unmanaged objects cannot be frozen.")
    }
}

final class QuickWriteToy: Object {
    @Persisted var name = ""
}

final class QuickWriteDog: Object {
    @Persisted(primaryKey: true) var _id: UUID
    @Persisted var name = ""
    @Persisted var favoriteToy: QuickWriteToy?
}

final class QuickWriteEmployee: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<QuickWriteDog>
}

final class QuickWriteCompany: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var companyName = ""
    @Persisted var employees: List<QuickWriteEmployee>
    @Persisted var dogs: List<QuickWriteDog>
}

final class QuickWritePerson: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<QuickWriteDog>
}

/// A count several threads add to.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// The child-process side of the trap tests of freezing and threads.
enum FreezeScenarios {
    static func run(_ scenario: String, path: String) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: frozenTypes))
        let owner = FrozenOwner(value: ["id": 1])
        try realm.write { realm.add(owner, update: .modified) }
        switch scenario {
        case "freeze-set-property":
            let frozen = owner.freeze()
            try realm.write { frozen.name = "x" }
        case "freeze-begin-write":
            realm.freeze().beginWrite()
        case "freeze-append-list":
            let list = owner.freeze().dogs
            try realm.write { list.append(FrozenDog()) }
        case "freeze-unmanaged":
            _ = FrozenDog().freeze()
        case "freeze-resolve-twice":
            let reference = ThreadSafeReference(to: owner)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        case "freeze-reference-unmanaged":
            _ = ThreadSafeReference(to: FrozenDog())
        case "freeze-live-object-other-thread":
            let thread = Thread { print(owner.name) }
            thread.start()
            Thread.sleep(forTimeInterval: 5)
        default:
            print("unknown scenario \(scenario)")
        }
    }
}
