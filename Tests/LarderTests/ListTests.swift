import Foundation
import XCTest
@testable import Larder

/// `List<T>` properties, unmanaged and managed.
final class ListTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: linkConfiguration(fileURL)) }

    func testUnmanagedListsWorkInMemoryAndAreCopiedInOnAdd() throws {
        let realm = try open()
        let owner = Owner()
        let list = owner.numbers
        list.append(1)
        list.append(contentsOf: [2, 3])
        list.insert(0, at: 0)
        XCTAssertEqual(Array(owner.numbers), [0, 1, 2, 3])
        owner.pets.append(Pet(value: ["name": "Rex"]))
        XCTAssertNil(owner.numbers.realm)
        try realm.write { realm.add(owner) }
        XCTAssertEqual(Array(owner.numbers), [0, 1, 2, 3])
        XCTAssertEqual(owner.pets.first?.name, "Rex")
        XCTAssertEqual(realm.objects(Pet.self).count, 1, "objects in the list were added")
        XCTAssertEqual(list.realm, realm, "the unmanaged list itself became managed")
        try realm.write { list.append(4) }
        XCTAssertEqual(owner.numbers.count, 5)
    }

    func testManagedListMutations() throws {
        let realm = try open()
        let owner = Owner()
        try realm.write { realm.add(owner) }
        let numbers = owner.numbers
        try realm.write {
            numbers.append(contentsOf: [1, 2, 3, 4, 5])
            numbers[0] = 10
            numbers.insert(7, at: 2)        // 10 2 7 3 4 5
            numbers.remove(at: 1)           // 10 7 3 4 5
            numbers.move(from: 0, to: 4)    // 7 3 4 5 10
            numbers.swapAt(0, 1)            // 3 7 4 5 10
            numbers.replace(index: 2, object: 40) // 3 7 40 5 10
            numbers.removeFirst()           // 7 40 5 10
            numbers.removeLast(2)           // 7 40
        }
        XCTAssertEqual(Array(numbers), [7, 40])
        XCTAssertEqual(numbers.first, 7)
        XCTAssertEqual(numbers.last, 40)
        XCTAssertEqual(numbers.index(of: 40), 1)
        XCTAssertNil(numbers.index(of: 3))
        XCTAssertEqual(numbers.min(), 7)
        XCTAssertEqual(numbers.max(), 40)
        XCTAssertEqual(numbers.sum(), 47)
        XCTAssertEqual(numbers.average(), 23.5)
        XCTAssertEqual(Array(numbers.sorted(ascending: false)), [40, 7])
        XCTAssertEqual(numbers.value(forKey: "self") as? [Int], [7, 40])
        try realm.write { numbers.removeAll() }
        XCTAssertTrue(owner.numbers.isEmpty)
        XCTAssertNil(numbers.min())
        XCTAssertNil(numbers.average() as Double?)
    }

    func testRangeMutations() throws {
        let realm = try open()
        let owner = Owner(value: ["numbers": [1, 2, 3, 4, 5]])
        owner.numbers.removeSubrange(1..<3)
        XCTAssertEqual(Array(owner.numbers), [1, 4, 5], "unmanaged")
        try realm.write { realm.add(owner) }
        try realm.write {
            owner.numbers.insert(contentsOf: [7, 8], at: 1)     // 1 7 8 4 5
            owner.numbers.replaceSubrange(3..<5, with: [9])     // 1 7 8 9
            owner.numbers.remove(atOffsets: IndexSet([0, 2]))   // 7 9
        }
        XCTAssertEqual(Array(owner.numbers), [7, 9])
        XCTAssertEqual(Array(owner.numbers[0..<1]), [7])
    }

    func testKeyPathsThroughLinksAndLists() throws {
        let realm = try open()
        let owner = Owner(value: ["pets": [["name": "a", "toy": ["name": "ball"]], ["name": "b"]]])
        try realm.write { realm.add(owner) }
        XCTAssertEqual(owner.pets.value(forKeyPath: "toy.name") as? [String?], ["ball", nil])
        XCTAssertEqual(realm.objects(Owner.self).value(forKeyPath: "pets.name") as? [[String?]], [["a", "b"]])
        XCTAssertEqual(owner.pets[0].value(forKeyPath: "toy.name") as? String, "ball")
    }

    func testOptionalElements() throws {
        let realm = try open()
        let owner = Owner()
        owner.names.append(contentsOf: ["a", nil, "c"])
        try realm.write { realm.add(owner) }
        XCTAssertEqual(Array(owner.names), ["a", nil, "c"])
        try realm.write { owner.names[0] = nil }
        XCTAssertEqual(Array(owner.names), [nil, nil, "c"])
    }

    func testEveryElementTypeRoundTrips() throws {
        let realm = try open()
        let all = EveryList()
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let id = ObjectId.generate(), uuid = UUID(), decimal = Decimal128(number: 12)
        all.int.append(-1); all.int8.append(8); all.int16.append(16); all.int32.append(32); all.int64.append(64)
        all.bool.append(true); all.float.append(1.5); all.double.append(2.5); all.string.append("s")
        all.data.append(Data([1, 2])); all.date.append(date); all.objectId.append(id); all.uuid.append(uuid)
        all.decimal.append(decimal)
        all.optInt.append(contentsOf: [1, nil]); all.optBool.append(contentsOf: [false, nil])
        all.optFloat.append(contentsOf: [1, nil]); all.optDouble.append(contentsOf: [2, nil])
        all.optString.append(contentsOf: ["o", nil]); all.optData.append(contentsOf: [Data([3]), nil])
        all.optDate.append(contentsOf: [date, nil]); all.optObjectId.append(contentsOf: [id, nil])
        all.optUUID.append(contentsOf: [uuid, nil]); all.optDecimal.append(contentsOf: [decimal, nil])
        try realm.write { realm.add(all) }
        let read = realm.objects(EveryList.self).first!
        XCTAssertEqual(Array(read.int), [-1]); XCTAssertEqual(Array(read.int8), [8])
        XCTAssertEqual(Array(read.int16), [16]); XCTAssertEqual(Array(read.int32), [32])
        XCTAssertEqual(Array(read.int64), [64]); XCTAssertEqual(Array(read.bool), [true])
        XCTAssertEqual(Array(read.float), [1.5]); XCTAssertEqual(Array(read.double), [2.5])
        XCTAssertEqual(Array(read.string), ["s"]); XCTAssertEqual(Array(read.data), [Data([1, 2])])
        XCTAssertEqual(read.date[0].timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertEqual(Array(read.objectId), [id]); XCTAssertEqual(Array(read.uuid), [uuid])
        XCTAssertEqual(Array(read.decimal), [decimal])
        XCTAssertEqual(Array(read.optInt), [1, nil]); XCTAssertEqual(Array(read.optBool), [false, nil])
        XCTAssertEqual(Array(read.optFloat), [1, nil]); XCTAssertEqual(Array(read.optDouble), [2, nil])
        XCTAssertEqual(Array(read.optString), ["o", nil]); XCTAssertEqual(Array(read.optData), [Data([3]), nil])
        XCTAssertEqual(read.optDate.count, 2); XCTAssertNil(read.optDate[1])
        XCTAssertEqual(Array(read.optObjectId), [id, nil]); XCTAssertEqual(Array(read.optUUID), [uuid, nil])
        XCTAssertEqual(Array(read.optDecimal), [decimal, nil])
    }

    func testObjectListsAddObjectsAndSortAsResults() throws {
        let realm = try open()
        let owner = Owner()
        try realm.write {
            realm.add(owner)
            owner.pets.append(Pet(value: ["name": "b"]))  // unmanaged: added
            owner.pets.append(objectsIn: [Pet(value: ["name": "c"]), Pet(value: ["name": "a"])])
        }
        XCTAssertEqual(realm.objects(Pet.self).count, 3)
        let sorted: Results<Pet> = owner.pets.sorted(byKeyPath: "name")
        XCTAssertEqual(sorted.map(\.name), ["a", "b", "c"])
        XCTAssertEqual(owner.pets.sorted(byKeyPath: "name", ascending: false).first?.name, "c")
        XCTAssertEqual(owner.pets.value(forKey: "name") as? [String?], ["b", "c", "a"])
        try realm.write { owner.pets.setValue("z", forKey: "name") }
        XCTAssertEqual(owner.pets.map(\.name), ["z", "z", "z"])
        let any = AnyRealmCollection(owner.pets)
        XCTAssertEqual(any.count, 3)
        XCTAssertEqual(owner.pets.index(of: owner.pets[2]), 2)
        // Live: a sorted view follows the list.
        try realm.write { owner.pets.remove(at: 0) }
        XCTAssertEqual(sorted.count, 2)
    }

    func testDeletingAnObjectRemovesItFromLists() throws {
        let realm = try open()
        let owner = Owner()
        owner.pets.append(objectsIn: [Pet(value: ["name": "a"]), Pet(value: ["name": "b"])])
        try realm.write { realm.add(owner) }
        try realm.write { realm.delete(owner.pets[0]) }
        XCTAssertEqual(owner.pets.map(\.name), ["b"])
    }

    func testDeletingAListDeletesItsObjects() throws {
        let realm = try open()
        let owner = Owner()
        owner.pets.append(objectsIn: [Pet(), Pet()])
        realm.beginWrite()
        realm.add(owner)
        realm.add(Pet())
        realm.delete(owner.pets)
        try realm.commitWrite()
        XCTAssertEqual(owner.pets.count, 0)
        XCTAssertEqual(realm.objects(Pet.self).count, 1)
    }

    func testAListStaysWithTheObjectItWasTakenFrom() throws {
        let realm = try open()
        try realm.write {
            realm.add(Owner(value: ["name": "a", "numbers": [1]]))
            realm.add(Owner(value: ["name": "b", "numbers": [2, 2]]))
        }
        var lists: [List<Int>] = []
        for owner in realm.objects(Owner.self) { lists.append(owner.numbers) }
        XCTAssertEqual(lists.map { Array($0) }, [[1], [2, 2]])
    }

    func testAssigningAListReplacesItsElements() throws {
        let realm = try open()
        let a = Owner(value: ["numbers": [1, 2]]), b = Owner(value: ["numbers": [3]])
        try realm.write { realm.add([a, b]) }
        try realm.write { a.numbers = b.numbers }
        XCTAssertEqual(Array(a.numbers), [3])
        let fresh = List<Int>()
        fresh.append(contentsOf: [5, 6])
        try realm.write { b.numbers = fresh }
        XCTAssertEqual(Array(b.numbers), [5, 6])
        XCTAssertEqual(a.value(forKey: "numbers").map { Array($0 as! List<Int>) }, [3])
    }

    func testValuesAndUpdatePoliciesFillLists() throws {
        let realm = try open()
        let created = try realm.write {
            realm.create(KeyedOwner.self, value: ["id": 1, "numbers": [1, 2, 3], "toys": [["id": 1, "name": "a"]]])
        }
        XCTAssertEqual(Array(created.numbers), [1, 2, 3])
        XCTAssertEqual(created.toys.first?.name, "a")
        try realm.write { realm.create(KeyedOwner.self, value: ["id": 1, "numbers": [1, 9]], update: .modified) }
        XCTAssertEqual(Array(created.numbers), [1, 9], "modified sets differing positions and truncates")
        XCTAssertEqual(created.toys.count, 1, "an unnamed list is kept")
        try realm.write { realm.add(KeyedOwner(value: ["id": 1, "numbers": [4]]), update: .all) }
        XCTAssertEqual(Array(created.numbers), [4])
        XCTAssertEqual(created.toys.count, 0, ".all writes every property")
        let unmanaged = Owner(value: ["numbers": [1, 2], "pets": [["name": "x"]]])
        XCTAssertEqual(Array(unmanaged.numbers), [1, 2])
        XCTAssertEqual(unmanaged.pets.first?.name, "x")
    }

    func testAListIsInvalidatedWithItsOwner() throws {
        let realm = try open()
        let owner = Owner()
        try realm.write { realm.add(owner) }
        let list = owner.numbers
        XCTAssertFalse(list.isInvalidated)
        try realm.write { realm.delete(owner) }
        XCTAssertTrue(list.isInvalidated)
        XCTAssertTrue(owner.description.contains("[invalid object]"))
    }

    func testACycleThroughAListIsAddedAndPrints() throws {
        let realm = try open()
        let root = Node(value: ["name": "root"])
        root.children.append(root)
        root.children.append(Node(value: ["name": "leaf"]))
        try realm.write { realm.add(root) }
        XCTAssertEqual(realm.objects(Node.self).count, 2)
        XCTAssertTrue(root.children[0].isSameObject(as: root))
        XCTAssertTrue(root.description.contains("<Maximum depth exceeded>"))
        XCTAssertTrue(root.description.contains("name = \"leaf\";"))
    }

    func testListMisuseTraps() throws {
        let cases = [
            ("list-append-outside-write", "Cannot modify List outside of a write transaction."),
            ("list-index-out-of-bounds", "Index 5 is out of bounds (must be less than 3)."),
            ("list-negative-index", "Cannot pass a negative value for 'index'."),
            ("list-insert-past-end", "Index 4 is out of bounds (must be less than 4)."),
            ("unmanaged-list-out-of-bounds", "Index 0 is out of bounds (must be less than 0)."),
            // The iterator checks when it reads its next batch.
            ("list-iterate-owner-deleted", "Object has been deleted or invalidated."),
            ("list-iterate-owner-deleted-in-write", "Object has been deleted or invalidated."),
            ("list-iterate-invalidated", "Object has been deleted or invalidated."),
            ("list-iterate-other-thread", "Realm accessed from incorrect thread."),
        ]
        for (scenario, message) in cases {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains(message), "\(scenario): \(outcome.output)")
        }
    }
}

extension ListTests {
    func testLongListsReadInBatches() throws {
        let realm = try Realm(configuration: linkConfiguration(fileURL))
        let owner = Owner()
        try realm.write {
            realm.add(owner)
            owner.numbers.append(contentsOf: 0..<1000)
        }
        XCTAssertEqual(Array(owner.numbers), Array(0..<1000))
        XCTAssertEqual(owner.numbers.map { $0 * 2 }.last, 1998)
        var seen = 0
        for number in owner.numbers { XCTAssertEqual(number, seen); seen += 1 }
        XCTAssertEqual(seen, 1000)
        XCTAssertEqual(owner.numbers.index(of: 999), 999)
        XCTAssertEqual(owner.numbers[500], 500)
    }

    func testIterationCrossesBatchesForEveryKindOfElement() throws {
        let realm = try Realm(configuration: linkConfiguration(fileURL))
        let size = 2 * ListIterator<Int>.batchSize + 3
        let owner = Owner()
        let names: [String?] = (0..<size).map { $0 % 3 == 0 ? nil : "name \($0)" }
        try realm.write {
            realm.add(owner)
            owner.numbers.append(objectsIn: 0..<size)
            owner.names.append(objectsIn: names)
            owner.pets.append(objectsIn: (0..<size).map { Pet(value: ["name": "pet \($0)"]) })
        }
        var numbers: [Int] = []
        for number in owner.numbers { numbers.append(number) }
        XCTAssertEqual(numbers, Array(0..<size))
        XCTAssertEqual(owner.numbers.sum(), size * (size - 1) / 2)
        XCTAssertEqual(Array(owner.names), names)
        var petNames: [String] = []
        for pet in owner.pets { petNames.append(pet.name) }
        XCTAssertEqual(petNames, (0..<size).map { "pet \($0)" })
        // Strings read in a write stay valid after the batch that read them.
        try realm.write {
            var iterator = owner.names.makeIterator()
            var read: [String?] = []
            while let name = iterator.next() {
                read.append(name)
                if read.count == 1 { owner.names.append("late") }
            }
            XCTAssertEqual(read, names + ["late"])
        }
    }

    func testAnIteratorOfAnUnmanagedListFollowsIt() throws {
        let realm = try Realm(configuration: linkConfiguration(fileURL))
        let owner = Owner()
        owner.numbers.append(objectsIn: [1, 2, 3])
        var iterator = owner.numbers.makeIterator()
        XCTAssertEqual(iterator.next(), 1)
        owner.numbers.append(4)
        try realm.write { realm.add(owner) }  // the list becomes managed while iterated
        XCTAssertEqual(IteratorSequence(iterator).map { $0 }, [2, 3, 4])
        var empty = List<Int>().makeIterator()
        XCTAssertNil(empty.next())
    }

    /// Each kind of value through a managed list's own append (in place, or through an arena for bytes).
    func testEveryElementTypeAppendsToAManagedList() throws {
        let realm = try open()
        let all = EveryList()
        try realm.write { realm.add(all) }
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let id = ObjectId.generate(), uuid = UUID(), decimal = Decimal128(number: 12)
        try realm.write {
            all.int.append(-1); all.int8.append(8); all.int16.append(16); all.int32.append(32)
            all.int64.append(64); all.bool.append(true); all.float.append(1.5); all.double.append(2.5)
            all.string.append(objectsIn: ["s", ""]); all.data.append(objectsIn: [Data([1, 2]), Data()])
            all.date.append(date); all.objectId.append(id); all.uuid.append(uuid); all.decimal.append(decimal)
            all.optInt.append(contentsOf: [1, nil]); all.optString.append(contentsOf: ["o", nil])
            all.optDate.append(contentsOf: [date, nil]); all.optDecimal.append(contentsOf: [decimal, nil])
        }
        XCTAssertEqual(Array(all.int), [-1]); XCTAssertEqual(Array(all.int8), [8])
        XCTAssertEqual(Array(all.int16), [16]); XCTAssertEqual(Array(all.int32), [32])
        XCTAssertEqual(Array(all.int64), [64]); XCTAssertEqual(Array(all.bool), [true])
        XCTAssertEqual(Array(all.float), [1.5]); XCTAssertEqual(Array(all.double), [2.5])
        XCTAssertEqual(Array(all.string), ["s", ""]); XCTAssertEqual(Array(all.data), [Data([1, 2]), Data()])
        XCTAssertEqual(all.date[0].timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertEqual(Array(all.objectId), [id]); XCTAssertEqual(Array(all.uuid), [uuid])
        XCTAssertEqual(Array(all.decimal), [decimal])
        XCTAssertEqual(Array(all.optInt), [1, nil]); XCTAssertEqual(Array(all.optString), ["o", nil])
        XCTAssertEqual(all.optDate.count, 2); XCTAssertNil(all.optDate[1])
        XCTAssertEqual(Array(all.optDecimal), [decimal, nil])
    }
}
