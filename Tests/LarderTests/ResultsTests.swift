import CLarder
import Foundation
import XCTest
@testable import Larder

/// Declared in one order; `testAFileStoringAnotherPropertyOrderReadsByName` stores it in another.
final class Reordered: Object {
    @Persisted var first = 0
    @Persisted var second = ""
    @Persisted var third = 0.0
}

final class ResultsTests: RealmTestCase {
    private func addDogs(_ realm: Realm, ages: [Int]) throws {
        try realm.write {
            for (index, age) in ages.enumerated() { realm.add(Dog(value: ["name": "dog\(index)", "age": age])) }
        }
    }

    func testAccessorsAndLiveness() throws {
        let realm = try openRealm()
        let dogs = realm.objects(Dog.self)
        XCTAssertTrue(dogs.isEmpty)
        XCTAssertNil(dogs.first)
        XCTAssertNil(dogs.last)
        try addDogs(realm, ages: [3, 1, 2])
        XCTAssertEqual(dogs.count, 3, "results are live")
        XCTAssertEqual(dogs.first?.name, "dog0")
        XCTAssertEqual(dogs.last?.name, "dog2")
        XCTAssertEqual(dogs[1].age, 1)
        XCTAssertEqual(dogs.map(\.age), [3, 1, 2], "iteration keeps creation order")
        XCTAssertEqual(dogs.index(of: dogs[2]), 2)
        XCTAssertNil(dogs.index(of: Dog()))
    }

    func testSorting() throws {
        let realm = try openRealm()
        try addDogs(realm, ages: [3, 1, 2, 1])
        let byAge = realm.objects(Dog.self).sorted(byKeyPath: "age")
        XCTAssertEqual(byAge.map(\.age), [1, 1, 2, 3])
        XCTAssertEqual(byAge.map(\.name), ["dog1", "dog3", "dog2", "dog0"])
        let descending = realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false)
        XCTAssertEqual(descending.first?.age, 3)
        let twoKeys = realm.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)])
        XCTAssertEqual(twoKeys.map(\.name), ["dog3", "dog1", "dog2", "dog0"])
        try realm.write { realm.add(Dog(value: ["name": "puppy", "age": 0])) }
        XCTAssertEqual(byAge.first?.name, "puppy", "sorted results are live too")
    }

    func testValueForKeyAndBulkSetValue() throws {
        let realm = try openRealm()
        try addDogs(realm, ages: [1, 2])
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.value(forKey: "age") as? [Int], [1, 2])
        try realm.write { dogs.setValue(9, forKey: "age") }
        XCTAssertEqual(dogs.map(\.age), [9, 9])
    }

    func testPrimaryKeyLookupForEveryKeyType() throws {
        let realm = try openRealm()
        let person = Person(value: ["id": 42, "name": "Ann"])
        let typed = AllTypes()
        try realm.write {
            realm.add(person)
            realm.add(typed)
        }
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 42)?.name, "Ann")
        XCTAssertNil(realm.object(ofType: Person.self, forPrimaryKey: 43))
        XCTAssertNotNil(realm.object(ofType: AllTypes.self, forPrimaryKey: typed._id))
        XCTAssertNil(realm.object(ofType: AllTypes.self, forPrimaryKey: ObjectId.generate()))
    }

    /// A looked-up object keeps the stamp the lookup read: it stays valid while other
    /// writes move the version (a wrong stamp would read as replaced), and is invalidated
    /// once a new object takes its primary key.
    func testAnObjectLookedUpByPrimaryKeyKnowsWhenItIsReplaced() throws {
        let realm = try openRealm()
        try realm.write {
            realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            realm.create(Person.self, value: ["id": Int.min, "name": "Min"]) // not keyed by its primary key
        }
        let ann = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 1))
        let min = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: Int.min))
        try realm.write { realm.create(Person.self, value: ["id": 2, "name": "Bob"]) }
        XCTAssertEqual(ann.name, "Ann")
        XCTAssertEqual(min.name, "Min")
        XCTAssertFalse(ann.isInvalidated)
        try realm.write {
            realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 1)!)
            realm.create(Person.self, value: ["id": 1, "name": "New Ann"])
        }
        XCTAssertTrue(ann.isInvalidated)
        XCTAssertFalse(min.isInvalidated)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "New Ann")
    }

    func testWritingWhileIteratingResumesAfterTheLastObject() throws {
        let realm = try openRealm()
        try addDogs(realm, ages: Array(repeating: 1, count: 50))
        var seen = 0
        for dog in realm.objects(Dog.self) {
            try realm.write { dog.age += 1 }
            seen += 1
        }
        XCTAssertEqual(seen, 50)
        XCTAssertTrue(realm.objects(Dog.self).allSatisfy { $0.age == 2 })
    }

    func testKeptObjectsAreNotReusedByTheIterator() throws {
        let realm = try openRealm()
        try addDogs(realm, ages: [1, 2, 3])
        let kept = Array(realm.objects(Dog.self))
        XCTAssertEqual(kept.map(\.age), [1, 2, 3])
    }

    /// Values stay each object's own across nested walks of one class (which
    /// share its read cache) and after the walk that produced them ended.
    func testIterationKeepsEachObjectsValues() throws {
        let realm = try openRealm()
        let ages = Array(0..<300)
        try addDogs(realm, ages: ages)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.map(\.age), ages)
        XCTAssertEqual(dogs.map(\.name), ages.map { "dog\($0)" })

        var pairs = 0
        for outer in dogs.prefix(70) {
            for inner in dogs where inner.age % 50 == 0 {
                XCTAssertEqual(inner.name, "dog\(inner.age)")
                pairs += 1
            }
            XCTAssertEqual(outer.name, "dog\(outer.age)", "an inner walk must not change the outer object's values")
        }
        XCTAssertEqual(pairs, 70 * 6)

        var kept: [Dog] = []
        for dog in dogs where dog.age % 7 == 0 { kept.append(dog) }
        XCTAssertEqual(kept.map(\.age), ages.filter { $0 % 7 == 0 }, "objects read after their walk ended")
        XCTAssertEqual(dogs.first?.age, 0)
    }

    func testWritingOtherObjectsWhileIteratingIsSeenByLaterSteps() throws {
        let realm = try openRealm()
        try addDogs(realm, ages: Array(repeating: 0, count: 100))
        var seen: [Int] = []
        try realm.write {
            let dogs = realm.objects(Dog.self)
            for (index, dog) in dogs.enumerated() {
                seen.append(dog.age)
                if index == 10 { dogs.forEach { $0.age = 5 } } // objects the walk has read ahead
                if index == 20 { realm.delete(realm.objects(Dog.self).filter { $0.age == 5 }.suffix(50)) }
            }
        }
        XCTAssertEqual(seen.count, 50)
        XCTAssertEqual(seen.prefix(11), ArraySlice(repeating: 0, count: 11))
        XCTAssertEqual(seen.dropFirst(11), ArraySlice(repeating: 5, count: 39))
    }

    /// Another program may have stored the class's properties in another order:
    /// reads, iteration, sorting and writes still go by name.
    func testAFileStoringAnotherPropertyOrderReadsByName() throws {
        var env: OpaquePointer?
        XCTAssertEqual(lar_env_open(fileURL.path, nil, &env), LAR_OK)
        let names: [UnsafeMutablePointer<CChar>] = ["third", "first", "second"].map { (name: String) in strdup(name)! }
        defer { names.forEach { free($0) } }
        let props = [
            lar_property_def(name: UnsafePointer(names[0]), type: LAR_TYPE_DOUBLE, collection: LAR_COLLECTION_NONE, flags: 0,
                             target_class: nil, origin_property: nil),
            lar_property_def(name: UnsafePointer(names[1]), type: LAR_TYPE_INT, collection: LAR_COLLECTION_NONE, flags: 0,
                             target_class: nil, origin_property: nil),
            lar_property_def(name: UnsafePointer(names[2]), type: LAR_TYPE_STRING, collection: LAR_COLLECTION_NONE, flags: 0,
                             target_class: nil, origin_property: nil),
        ]
        "Reordered".withCString { className in
            props.withUnsafeBufferPointer { buffer in
                var def = lar_class_def(name: className, properties: buffer.baseAddress, property_count: 3, flags: 0)
                XCTAssertEqual(lar_schema_apply(env, &def, 1, 0), LAR_OK)
            }
        }
        XCTAssertEqual(lar_env_close(env), LAR_OK)

        let realm = try openRealm([Reordered.self])
        try realm.write {
            realm.add(Reordered(value: ["first": 2, "second": "two", "third": 2.5]))
            realm.add(Reordered(value: ["first": 1, "second": "one", "third": 1.5]))
        }
        let all = realm.objects(Reordered.self)
        XCTAssertEqual(all.map(\.first), [2, 1])
        XCTAssertEqual(all.map(\.second), ["two", "one"])
        XCTAssertEqual(all.map(\.third), [2.5, 1.5])
        let sorted = all.sorted(byKeyPath: "second")
        XCTAssertEqual(sorted.map(\.first), [1, 2])
        try realm.write { all.first!.second = "deux" }
        XCTAssertEqual(all.first?.second, "deux")
        XCTAssertEqual(all.first?.first, 2)
    }

    func testIteratingAMillionObjectsKeepsMemoryFlat() throws {
        let realm = try openRealm()
        let total = 1_000_000
        try realm.write {
            for index in 0..<total { realm.add(Dog(value: ["name": "d", "age": index])) }
        }
        let before = heapBytes()
        var sum = 0
        var peak = before
        var kept: [String] = []
        for (index, dog) in realm.objects(Dog.self).enumerated() {
            sum &+= dog.age
            if index % 100_000 == 0 {
                peak = max(peak, heapBytes())
                kept.append(dog.name)
            }
        }
        XCTAssertEqual(sum, total * (total - 1) / 2)
        XCTAssertEqual(kept.count, 10)
        // A million accessors would take well over 100 MB; the walk must hold about one.
        XCTAssertLessThan(peak - before, 4 << 20, "iteration should not hold the objects it visited")
    }

    /// Anonymous resident memory: the heap, not the pages of the mapped database file.
    private func heapBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }
}

/// Results in write transactions: loops see the objects there were when they began,
/// and property writes keep the key snapshot that positional access uses.
final class ResultsSnapshotTests: RealmTestCase {
    private func addDogs(_ realm: Realm, _ count: Int) throws {
        try realm.write {
            for index in 0..<count { realm.add(Dog(value: ["name": "dog\(index)", "age": index])) }
        }
    }

    func testAddingInsideAForInLoopInAWriteVisitsOnlyTheObjectsThereAtTheStart() throws {
        let realm = try openRealm()
        try addDogs(realm, 3)
        var visited: [String] = []
        try realm.write {
            for dog in realm.objects(Dog.self) {
                visited.append(dog.name)
                realm.add(Dog(value: ["name": "puppy"]))
                if visited.count == 100 { break } // today's endless loop stops here and fails below
            }
        }
        XCTAssertEqual(visited, ["dog0", "dog1", "dog2"])
        XCTAssertEqual(realm.objects(Dog.self).count, 6)
    }

    func testAWritePerIterationVisitsOnlyTheObjectsThereAtTheStart() throws {
        let realm = try openRealm()
        try addDogs(realm, 3)
        var visited: [String] = []
        for dog in realm.objects(Dog.self) {
            visited.append(dog.name)
            try realm.write { realm.add(Dog(value: ["name": "puppy"])) }
            if visited.count == 100 { break }
        }
        XCTAssertEqual(visited, ["dog0", "dog1", "dog2"])
    }

    func testDeletingInsideAForInLoopVisitsTheRest() throws {
        let realm = try openRealm()
        try addDogs(realm, 4)
        var visited: [String] = []
        try realm.write {
            for dog in realm.objects(Dog.self) {
                visited.append(dog.name)
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, ["dog0", "dog1", "dog2", "dog3"])
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
    }

    func testReadingTheLastVisitedObjectAfterTheLoopStoppedAtANewOne() throws {
        let realm = try openRealm()
        try addDogs(realm, 2)
        var last: Dog?
        var steps = 0
        try realm.write {
            for dog in realm.objects(Dog.self) {
                last = dog
                realm.add(Dog(value: ["name": "puppy", "age": 99]))
                steps += 1
                if steps == 100 { break }
            }
            XCTAssertEqual(steps, 2)
            // The walk decoded the first puppy's row before stopping; dog1 still reads its own.
            XCTAssertEqual(last?.name, "dog1")
            XCTAssertEqual(last?.age, 1)
        }
    }

    func testPropertyWritesInAnIndexLoopKeepTheSnapshot() throws {
        let realm = try openRealm()
        try addDogs(realm, 20_000)
        let dogs = realm.objects(Dog.self)
        try realm.write {
            for index in 0..<dogs.count { dogs[index].age = -1 }
        }
        XCTAssertEqual(dogs.snapshotBuilds, 1)
        XCTAssertEqual(dogs.filter { $0.age == -1 }.count, 20_000)
    }

    func testSortedResultsResortOnlyWhenASortKeyIsWritten() throws {
        let realm = try openRealm()
        try addDogs(realm, 100)
        let byName = realm.objects(Dog.self).sorted(byKeyPath: "name")
        try realm.write {
            for index in 0..<byName.count { byName[index].age = index }
        }
        XCTAssertEqual(byName.snapshotBuilds, 1)
        try realm.write {
            let first = byName[0] // a new transaction: one more build
            XCTAssertEqual(byName.snapshotBuilds, 2)
            first.name = "zzz"
            XCTAssertEqual(byName.last?.name, "zzz")
            XCTAssertEqual(byName.snapshotBuilds, 3)
        }
    }

    func testAddsAndDeletesUpdatePositionalAccessInAWrite() throws {
        let realm = try openRealm()
        try addDogs(realm, 2)
        let dogs = realm.objects(Dog.self)
        try realm.write {
            XCTAssertEqual(dogs.count, 2)
            realm.add(Dog(value: ["name": "new"]))
            XCTAssertEqual(dogs[2].name, "new")
            realm.delete(dogs[0])
            XCTAssertEqual(dogs[0].name, "dog1")
            realm.deleteAll()
            XCTAssertEqual(dogs.last?.name, nil)
        }
    }
}
