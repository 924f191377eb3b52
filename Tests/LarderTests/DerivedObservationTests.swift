import Foundation
import XCTest
@testable import Larder

final class GapOwner: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<GapDog>
    @Persisted var dogSet: MutableSet<GapDog>
    @Persisted var numbers: List<Int>
    @Persisted var words: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var dogMap: Map<String, GapDog?>
    @Persisted var mixed: AnyRealmValue
}

final class GapDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var serial = 0
    @Persisted var toy: GapPart?
    @Persisted var friends: List<GapDog>
    @Persisted var buddy: AnyRealmValue
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<GapOwner>
}

final class GapPart: Object {
    @Persisted var name = ""
    @Persisted var size = 0
    @Persisted var inner: GapPart?
    @Persisted(originProperty: "toy") var dogs: LinkingObjects<GapDog>
}

/// A graph without mixed values: its notifications search the links backwards.
final class GapNode: Object {
    @Persisted var serial = 0
    @Persisted var size = 0
    @Persisted var next: GapNode?
    @Persisted var children: List<GapNode>
    @Persisted var named: Map<String, GapNode?>
    @Persisted var group: MutableSet<GapNode>
    @Persisted var badge: GapBadge?
}

final class GapBadge: EmbeddedObject {
    @Persisted var level = 0
}

/// Observing results derived from collections (`list.sorted(...)`, `set.filter(...)`,
/// `numbers.sorted()`), collections nested in AnyRealmValue, and Realm's rule that
/// collection notifications follow links.
final class DerivedObservationTests: RealmTestCase {
    static let types: [Object.Type] = [GapOwner.self, GapDog.self, GapPart.self, GapNode.self, GapBadge.self]

    func open() throws -> Realm { try openRealm(Self.types) }

    /// A new owner in realm, filled by fill in the same write.
    private func addOwner(_ realm: Realm, _ fill: (GapOwner) -> Void) throws -> GapOwner {
        let owner = GapOwner()
        try realm.write {
            realm.add(owner)
            fill(owner)
        }
        return owner
    }

    private func ownerWithDogs(_ realm: Realm, _ names: [String]) throws -> GapOwner {
        let owner = try addOwner(realm) { owner in
            for (index, name) in names.enumerated() {
                owner.dogs.append(GapDog(value: ["name": name, "age": index, "serial": index]))
            }
        }
        return owner
    }

    // MARK: Results of objects over a collection

    func testSortedListResultsReportIndicesInTheResults() throws {
        let realm = try open()
        let owner = try ownerWithDogs(realm, ["c", "a", "b"])
        let sorted = owner.dogs.sorted(byKeyPath: "name")
        var seen: [SeenChange] = []
        let token = sorted.observe { seen.append(SeenChange($0)) }
        realm.refresh()
        try realm.write { owner.dogs.append(GapDog(value: ["name": "aa"])) } // a, aa, b, c
        try realm.write { owner.dogs[0].age = 9 }                              // c modified, at 3
        try realm.write { owner.dogs.move(from: 0, to: 2) }                    // the list moves, the results do not
        try realm.write { realm.add(GapDog(value: ["name": "0"])) }            // not in the list
        try realm.write { owner.dogs.remove(at: 0) }                           // a
        XCTAssertEqual(seen, [.initial(3),
                              .update(deletions: [], insertions: [1], modifications: []),
                              .update(deletions: [], insertions: [], modifications: [3]),
                              .update(deletions: [0], insertions: [], modifications: [])])
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(seen.last, .update(deletions: [0, 1, 2], insertions: [], modifications: []))
        XCTAssertEqual(sorted.count, 0, "results of a deleted object's list are empty, as in Realm")
        try realm.write { realm.add(GapDog()) }
        XCTAssertEqual(seen.count, 5, "nothing more once the list is gone")
        token.invalidate()
    }

    func testDerivedResultsKeyPathsAndTypeErasure() throws {
        let realm = try open()
        let owner = try ownerWithDogs(realm, ["a", "b"])
        var ages: [SeenChange] = [], erased: [SeenChange] = []
        let tokens = [
            owner.dogs.sorted(byKeyPath: "name").observe(keyPaths: ["age"]) { ages.append(SeenChange($0)) },
            AnyRealmCollection(owner.dogs.filter("age >= 0")).observe { erased.append(SeenChange($0)) },
        ]
        realm.refresh()
        try realm.write { owner.dogs[1].serial = 7 }
        try realm.write { owner.dogs[1].age = 7 }
        XCTAssertEqual(ages, [.initial(2), .update(deletions: [], insertions: [], modifications: [1])])
        XCTAssertEqual(erased, [.initial(2), .update(deletions: [], insertions: [], modifications: [1]),
                                .update(deletions: [], insertions: [], modifications: [1])])
        tokens.forEach { $0.invalidate() }
    }

    func testFilteredSetAndLinkingObjectsResults() throws {
        let realm = try open()
        let owner = GapOwner(), dog = GapDog(value: ["name": "Rex"])
        try realm.write {
            realm.add(owner)
            realm.add(dog)
            for age in [1, 5, 3] { owner.dogSet.insert(GapDog(value: ["age": age])) }
        }
        var setSeen: [SeenChange] = [], ownersSeen: [SeenChange] = []
        let setToken = owner.dogSet.filter("age > 2").observe { setSeen.append(SeenChange($0)) }
        let ownersToken = dog.owners.where { $0.name != "x" }.sorted(byKeyPath: "name", ascending: false)
            .observe { ownersSeen.append(SeenChange($0)) }
        realm.refresh()
        try realm.write {
            owner.dogSet.insert(GapDog(value: ["age": 4]))
            let other = GapOwner(value: ["name": "b"])
            realm.add(other)
            other.dogs.append(dog)
            owner.name = "a"
            owner.dogs.append(dog)
        }
        XCTAssertEqual(setSeen.count, 2)
        if case .update(let deletions, let insertions, let modifications)? = setSeen.last {
            XCTAssertEqual(deletions, [])
            XCTAssertEqual(insertions.count, 1)
            XCTAssertEqual(modifications, [])
        }
        XCTAssertEqual(ownersSeen, [.initial(0), .update(deletions: [], insertions: [0, 1], modifications: [])])
        try realm.write { dog.owners.first { $0.name == "a" }!.name = "aa" }
        XCTAssertEqual(ownersSeen.last, .update(deletions: [], insertions: [], modifications: [1]), "b, aa")
        try realm.write { dog.owners.first { $0.name == "aa" }!.name = "c" }
        XCTAssertEqual(ownersSeen.last, .update(deletions: [1], insertions: [0], modifications: []), "c, b: a move")
        let ownersOfRex = dog.owners.sorted(byKeyPath: "name")
        try realm.write { realm.delete(dog) }
        XCTAssertEqual(ownersSeen.last, .update(deletions: [0, 1], insertions: [], modifications: []))
        XCTAssertEqual(ownersOfRex.count, 0, "results of a deleted object's linking objects are empty")
        setToken.invalidate()
        ownersToken.invalidate()
    }

    func testFilteredSortedListResultsMatchABruteForceDiff() throws {
        let realm = try open()
        var generator = SeededGenerator(seed: 20)
        let owner = GapOwner()
        var serial = 0
        func newDog() -> GapDog {
            serial += 1
            return GapDog(value: ["name": "d\(Int.random(in: 0..<30, using: &generator))", "serial": serial,
                                  "age": Int.random(in: 0..<20, using: &generator)])
        }
        try realm.write {
            realm.add(owner)
            for _ in 0..<20 { owner.dogs.append(newDog()) }
        }
        let results = owner.dogs.filter("age >= 5").sorted(by: [SortDescriptor(keyPath: "age"),
                                                                SortDescriptor(keyPath: "name")])
        var last: RealmCollectionChange<Results<GapDog>>?
        let token = results.observe { last = $0 }
        realm.refresh()
        var old = results.map(\.serial)
        for round in 0..<100 {
            var modified = Set<Int>()
            try realm.write {
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let count = owner.dogs.count
                    switch Int.random(in: 0..<6, using: &generator) {
                    case 0: owner.dogs.insert(newDog(), at: Int.random(in: 0...count, using: &generator))
                    case 1 where count > 0: owner.dogs.remove(at: Int.random(in: 0..<count, using: &generator))
                    case 2 where count > 0:
                        let dog = owner.dogs[Int.random(in: 0..<count, using: &generator)]
                        dog.age = Int.random(in: 0..<20, using: &generator)
                        modified.insert(dog.serial)
                    case 3 where count > 0:
                        let dog = owner.dogs[Int.random(in: 0..<count, using: &generator)]
                        dog.name += "+"
                        modified.insert(dog.serial)
                    case 4 where count > 1:
                        owner.dogs.move(from: Int.random(in: 0..<count, using: &generator),
                                        to: Int.random(in: 0..<count, using: &generator))
                    case 5 where count > 0: realm.delete(owner.dogs[Int.random(in: 0..<count, using: &generator)])
                    default: realm.add(newDog())
                    }
                }
            }
            let new = results.map(\.serial)
            BruteForceDiff.check(old: old, new: new, delivered: &last, modified: modified, round: round)
            old = new
        }
        token.invalidate()
    }

    // MARK: Results of values

    func testResultsOfValuesOfAListSetAndMap() throws {
        let realm = try open()
        let owner = try addOwner(realm) { owner in
            owner.numbers.append(objectsIn: [5, 1, 3])
            owner.words.insert(objectsIn: ["b", "a"])
            owner.scores["x"] = 2
            owner.scores["y"] = 1
        }
        var numbers: [SeenChange] = [], words: [SeenChange] = [], scores: [SeenChange] = []
        let tokens = [
            owner.numbers.sorted().observe { numbers.append(SeenChange($0)) },
            owner.words.sorted(ascending: false).observe { words.append(SeenChange($0)) },
            owner.scores.sorted().observe { scores.append(SeenChange($0)) },
        ]
        realm.refresh()
        try realm.write {
            owner.numbers.append(2)          // 1 2 3 5
            owner.words.insert("c")          // c b a
            owner.scores["z"] = 0            // 0 1 2
        }
        XCTAssertEqual(numbers.last, .update(deletions: [], insertions: [1], modifications: []))
        XCTAssertEqual(words.last, .update(deletions: [], insertions: [0], modifications: []))
        XCTAssertEqual(scores.last, .update(deletions: [], insertions: [0], modifications: []))
        try realm.write {
            owner.numbers[0] = 5             // set: the 5 it held is modified, in place
            owner.scores["x"] = 7            // 0 1 7: x stays last, modified
        }
        XCTAssertEqual(numbers.last, .update(deletions: [], insertions: [], modifications: [3]))
        XCTAssertEqual(scores.last, .update(deletions: [], insertions: [], modifications: [2]))
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(numbers.last, .update(deletions: [0, 1, 2, 3], insertions: [], modifications: []))
        XCTAssertEqual(words.last, .update(deletions: [0, 1, 2], insertions: [], modifications: []))
        XCTAssertEqual(scores.last, .update(deletions: [0, 1, 2], insertions: [], modifications: []))
        tokens.forEach { $0.invalidate() }
    }

    func testSortedDistinctValuesUnderRandomOperations() throws {
        let realm = try open()
        var generator = SeededGenerator(seed: 21)
        let owner = GapOwner()
        try realm.write { realm.add(owner) }
        for distinct in [false, true] {
            let results = distinct ? owner.numbers.distinct().sorted(ascending: false) : owner.numbers.sorted()
            var last: RealmCollectionChange<Results<Int>>?
            let token = results.observe { last = $0 }
            realm.refresh()
            var old = Array(results)
            for round in 0..<100 {
                try realm.write {
                    let count = owner.numbers.count
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0, 1: owner.numbers.insert(Int.random(in: 0..<8, using: &generator),
                                                    at: Int.random(in: 0...count, using: &generator))
                    case 2 where count > 0: owner.numbers.remove(at: Int.random(in: 0..<count, using: &generator))
                    case 3 where count > 0: owner.numbers[Int.random(in: 0..<count, using: &generator)] =
                        Int.random(in: 0..<8, using: &generator)
                    default: owner.numbers.append(1)
                    }
                }
                let new = Array(results)
                checkValueChanges(old: old, new: new, delivered: &last, round: round)
                old = new
            }
            token.invalidate()
        }
    }

    // MARK: Delivery elsewhere

    @MainActor
    func testDerivedResultsOnAQueueAndAsAnAsyncSequence() async throws {
        let realm = try await Realm(configuration: configuration(Self.types))
        let owner = GapOwner()
        try realm.write { realm.add(owner) }
        let queue = DispatchQueue(label: "derived")
        let updated = expectation(description: "update")
        nonisolated(unsafe) var onQueue: [SeenChange] = []
        let token = owner.numbers.sorted().observe(on: queue) { change in
            onQueue.append(SeenChange(change))
            if case .update(let results, _, _, _) = change { XCTAssertEqual(Array(results), [4]) }
            if onQueue.count == 2 { updated.fulfill() }
        }
        queue.sync {}
        var seen: [SeenChange] = []
        for await change in owner.dogs.sorted(byKeyPath: "name").changes {
            seen.append(SeenChange(change))
            if seen.count == 1 { try realm.write { owner.dogs.append(GapDog()); owner.numbers.append(4) } }
            if seen.count == 2 { break }
        }
        XCTAssertEqual(seen, [.initial(0), .update(deletions: [], insertions: [0], modifications: [])])
        await fulfillment(of: [updated], timeout: 10)
        queue.sync { XCTAssertEqual(onQueue.last, .update(deletions: [], insertions: [0], modifications: [])) }
        token.invalidate()
    }

    @MainActor
    func testDerivedResultsOnAnActor() async throws {
        let realm = try await Realm(configuration: configuration(Self.types))
        try realm.write { realm.add(GapOwner()) }
        let observer = GapObserver()
        try await observer.open(configuration(Self.types))
        await observer.observeNumbers()
        try realm.write { realm.objects(GapOwner.self).first!.numbers.append(objectsIn: [3, 1]) }
        await observer.wait { $0.seen.count >= 2 }
        let seen = await observer.seen, values = await observer.values
        XCTAssertEqual(seen, [.initial(0), .update(deletions: [], insertions: [0, 1], modifications: [])])
        XCTAssertEqual(values, [[], [1, 3]])
        await observer.invalidate()
    }
}

extension DerivedObservationTests {
    // MARK: Collections nested in AnyRealmValue

    func testNestedListChangesAndItsOwnersDeletion() throws {
        let realm = try open()
        let owner = try addOwner(realm) { owner in
            owner.mixed = .fromArray([.int(1), .string("a"), .fromArray([.int(2)])])
        }
        let list = owner.mixed.listValue!
        var seen: [SeenChange] = []
        let token = list.observe { seen.append(SeenChange($0)) }
        realm.refresh()
        try realm.write { list.append(.bool(true)) }
        try realm.write { list[0] = .int(5) }
        try realm.write { list[2].listValue!.append(.int(3)) }  // inside the nested list: its element changed
        try realm.write { owner.name = "other property" }
        try realm.write { list.remove(at: 1) }
        XCTAssertEqual(seen, [.initial(3),
                              .update(deletions: [], insertions: [3], modifications: []),
                              .update(deletions: [], insertions: [], modifications: [0]),
                              .update(deletions: [], insertions: [], modifications: [2]),
                              .update(deletions: [1], insertions: [], modifications: [])])
        try realm.write { owner.mixed = .fromArray([.int(1)]) }  // replaced: this list is gone
        XCTAssertEqual(seen.last, .update(deletions: [0, 1, 2], insertions: [], modifications: []))
        try realm.write { owner.mixed.listValue!.append(.int(2)) }
        XCTAssertEqual(seen.count, 6, "nothing more once the list is gone")
        token.invalidate()
    }

    func testNestedDictionaryChanges() throws {
        let realm = try open()
        let owner = try addOwner(realm) { owner in
            owner.mixed = .fromArray([.fromDictionary(["a": .int(1), "b": .fromArray([])])])
        }
        let map = owner.mixed.listValue![0].dictionaryValue!
        var seen: [String] = []
        let token = map.observe { change in
            switch change {
            case .initial(let map): seen.append("initial \(map.count)")
            case .update(_, let deletions, let insertions, let modifications):
                seen.append("-\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): XCTFail("\(error)")
            }
        }
        realm.refresh()
        try realm.write { map["c"] = .string("x") }
        try realm.write { map["a"] = .int(2) }
        try realm.write { map["b"]!.listValue!.append(.none) }
        try realm.write { map["c"] = nil }
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(seen, ["initial 2", "-[] +[\"c\"] ~[]", "-[] +[] ~[\"a\"]", "-[] +[] ~[\"b\"]",
                              "-[\"c\"] +[] ~[]", "-[\"a\", \"b\"] +[] ~[]"])
        token.invalidate()
    }

    func testNestedCollectionsFreezeThawAndObserveOnAQueue() throws {
        let realm = try open()
        let owner = try addOwner(realm) { owner in
            owner.mixed = .fromDictionary(["list": .fromArray([.int(1)])])
        }
        let map = owner.mixed.dictionaryValue!
        let list = map["list"]!.listValue!
        XCTAssertFalse(list.isFrozen)
        let frozenList = list.freeze(), frozenMap = map.freeze()
        XCTAssertTrue(frozenList.isFrozen)
        XCTAssertTrue(frozenMap.isFrozen)
        let queue = DispatchQueue(label: "nested")
        let updated = expectation(description: "update")
        var onQueue: [SeenChange] = []
        let token = list.observe(on: queue) { change in
            onQueue.append(SeenChange(change))
            if case .update(let list, _, _, _) = change { XCTAssertEqual(Array(list), [.int(1), .int(2)]) }
            if onQueue.count == 2 { updated.fulfill() }
        }
        queue.sync {}
        try realm.write { list.append(.int(2)) }
        XCTAssertEqual(Array(frozenList), [.int(1)], "the frozen list keeps its version")
        XCTAssertEqual(Array(frozenList.thaw()!), [.int(1), .int(2)])
        XCTAssertEqual(frozenMap.thaw()!["list"]!.listValue!.count, 2)
        XCTAssertEqual(Frozen(frozenList).value.count, 1)
        let reader = Thread { XCTAssertEqual(frozenList.first, .int(1)) }
        reader.start()
        wait(for: [updated], timeout: 10)
        queue.sync { XCTAssertEqual(onQueue.last, .update(deletions: [], insertions: [1], modifications: [])) }
        token.invalidate()
        try realm.write { owner.mixed = .none }
        XCTAssertNil(frozenList.thaw(), "the list is gone in the live Realm")
        XCTAssertEqual(frozenList.count, 1)
    }

    func testNestedListUnderRandomOperations() throws {
        let realm = try open()
        var generator = SeededGenerator(seed: 22)
        let owner = try addOwner(realm) { owner in
            owner.mixed = .fromArray([])
        }
        let list = owner.mixed.listValue!
        var last: RealmCollectionChange<List<AnyRealmValue>>?
        let token = list.observe { last = $0 }
        realm.refresh()
        var old = list.map { NestedTree($0) }
        for round in 0..<100 {
            try realm.write {
                let count = list.count
                let value: AnyRealmValue = Int.random(in: 0..<5, using: &generator) == 0
                    ? .fromArray([.int(Int.random(in: 0..<3, using: &generator))])
                    : .int(Int.random(in: 0..<4, using: &generator))
                switch Int.random(in: 0..<5, using: &generator) {
                case 0, 1: list.insert(value, at: Int.random(in: 0...count, using: &generator))
                case 2 where count > 0: list.remove(at: Int.random(in: 0..<count, using: &generator))
                case 3 where count > 0: list[Int.random(in: 0..<count, using: &generator)] = value
                case 4 where count > 1: list.move(from: Int.random(in: 0..<count, using: &generator),
                                                   to: Int.random(in: 0..<count, using: &generator))
                default: list.append(value)
                }
                if let inner = list.first(where: { $0.listValue != nil })?.listValue,
                   Int.random(in: 0..<3, using: &generator) == 0 { inner.append(.int(9)) }
            }
            let new = list.map { NestedTree($0) }
            checkValueChanges(old: old, new: new, delivered: &last, round: round)
            old = new
        }
        token.invalidate()
    }

    func testANestedListPassesToAnotherThread() throws {
        let realm = try open()
        let owner = try addOwner(realm) { owner in
            owner.mixed = .fromArray([.int(4)])
        }
        let reference = ThreadSafeReference(to: owner.mixed.listValue!)
        let configuration = configuration(Self.types)
        let done = expectation(description: "resolved")
        Thread {
            let other = try! Realm(configuration: configuration)
            XCTAssertEqual(other.resolve(reference).map { Array($0) }, [.int(4)])
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 10)
    }

    func testSortedAndFilteredMapOfObjects() throws {
        let realm = try open()
        let owner = try addOwner(realm) { owner in
            owner.dogMap["a"] = GapDog(value: ["name": "Rex", "age": 3])
            owner.dogMap["b"] = GapDog(value: ["name": "Ace", "age": 1])
        }
        var sorted: [SeenChange] = [], filtered: [SeenChange] = []
        let tokens = [
            owner.dogMap.sorted(byKeyPath: "name").observe { sorted.append(SeenChange($0)) },
            owner.dogMap.where { $0.age > 2 }.observe { filtered.append(SeenChange($0)) },
        ]
        realm.refresh()
        try realm.write { owner.dogMap["c"] = GapDog(value: ["name": "Bo", "age": 5]) }   // Ace Bo Rex; Rex Bo
        try realm.write { owner.dogMap["a"]!!.age = 4 }
        XCTAssertEqual(sorted, [.initial(2), .update(deletions: [], insertions: [1], modifications: []),
                                .update(deletions: [], insertions: [], modifications: [2])])
        XCTAssertEqual(filtered, [.initial(1), .update(deletions: [], insertions: [1], modifications: []),
                                  .update(deletions: [], insertions: [], modifications: [0])])
        tokens.forEach { $0.invalidate() }
    }

    // MARK: Following links without key paths

    func testCollectionsReportChangesOfLinkedObjectsUpToFourLevels() throws {
        let realm = try open()
        let owner = GapOwner()
        let parts = (0..<4).map { GapPart(value: ["name": "p\($0)"]) }
        let dog = GapDog(value: ["name": "Rex"]), other = GapDog(value: ["name": "Ace"])
        try realm.write {
            for index in 0..<3 { parts[index].inner = parts[index + 1] }
            dog.toy = parts[0]                    // dog -> p0 -> p1 -> p2 -> p3
            realm.add([dog, other])
            owner.dogs.append(objectsIn: [other, dog])
            owner.dogSet.insert(dog)
            owner.dogMap["rex"] = dog
            realm.add(owner)
        }
        var results: [SeenChange] = [], list: [SeenChange] = [], set: [SeenChange] = [], map: [String] = []
        var owners: [SeenChange] = [], object = 0
        let tokens = [
            realm.objects(GapDog.self).sorted(byKeyPath: "name").observe { results.append(SeenChange($0)) },
            owner.dogs.observe { list.append(SeenChange($0)) },
            owner.dogSet.observe { set.append(SeenChange($0)) },
            owner.dogMap.observe { change in
                if case .update(_, _, _, let modifications) = change { map.append(modifications.joined()) }
            },
            dog.owners.observe { owners.append(SeenChange($0)) },
            dog.observe { (_: ObjectChange<GapDog>) in object += 1 },
        ]
        realm.refresh()
        for level in 0..<4 {
            try realm.write { parts[level].size += 1 }
        }
        let node = GapNode(value: ["badge": GapBadge()])
        try realm.write { realm.add(node) }
        try realm.write { node.badge!.level = 2 } // an embedded object of a class no dog reaches but by a mixed value
        let seenOnce: SeenChange = .update(deletions: [], insertions: [], modifications: [1])
        XCTAssertEqual(results, [.initial(2), seenOnce, seenOnce, seenOnce], "Rex is second by name; p3 is too deep")
        XCTAssertEqual(list, [.initial(2), seenOnce, seenOnce, seenOnce])
        XCTAssertEqual(set.count, 4)
        XCTAssertEqual(map, ["rex", "rex", "rex"])
        XCTAssertEqual(owners, [.initial(1), .update(deletions: [], insertions: [], modifications: [0]),
                                .update(deletions: [], insertions: [], modifications: [0])],
                       "owner -> dogs -> p0 -> p1 are the four levels")
        XCTAssertEqual(object, 0, "an object's own notifications are of its own properties, as in Realm")
        tokens.forEach { $0.invalidate() }
    }

    func testCyclesMixedLinksAndLinkingObjects() throws {
        let realm = try open()
        let rex = GapDog(value: ["name": "Rex"]), ace = GapDog(value: ["name": "Ace"])
        let part = GapPart(value: ["name": "ball"])
        try realm.write {
            realm.add([rex, ace, part])
            rex.friends.append(ace)
            ace.friends.append(rex)
            rex.friends.append(rex)
            ace.buddy = .object(part)             // a mixed value's link is followed
        }
        var dogs: [SeenChange] = [], parts: [SeenChange] = []
        let tokens = [
            realm.objects(GapDog.self).sorted(byKeyPath: "name").observe { dogs.append(SeenChange($0)) },
            realm.objects(GapPart.self).observe { parts.append(SeenChange($0)) },
        ]
        realm.refresh()
        try realm.write { part.size = 3 }  // Ace through buddy; Rex through friends -> Ace -> buddy
        try realm.write { realm.add(GapPart()) }
        try realm.write { rex.toy = part }   // Rex, and Ace whose friend he is; part's LinkingObjects, not followed
        XCTAssertEqual(dogs, [.initial(2), .update(deletions: [], insertions: [], modifications: [0, 1]),
                              .update(deletions: [], insertions: [], modifications: [0, 1])])
        XCTAssertEqual(parts, [.initial(1), .update(deletions: [], insertions: [], modifications: [0]),
                               .update(deletions: [], insertions: [1], modifications: [])])
        tokens.forEach { $0.invalidate() }
    }

    func testLinkedChangesMatchABruteForceSearch() throws {
        // With the classes named, links in mixed values are followed backwards; without, forwards.
        try checkLinkedChanges(in: open())
        let unnamed = directory.appendingPathComponent("unnamed.realm")
        try checkLinkedChanges(in: Realm(configuration: Realm.Configuration(fileURL: unnamed)))
    }

    private func checkLinkedChanges(in realm: Realm) throws {
        var generator = SeededGenerator(seed: 23)
        try realm.write {
            for serial in 0..<8 { realm.add(GapDog(value: ["serial": serial])) }
            for index in 0..<6 { realm.add(GapPart(value: ["name": "p\(index)"])) }
        }
        let dogs = realm.objects(GapDog.self).sorted(byKeyPath: "serial"), parts = realm.objects(GapPart.self)
        var last: RealmCollectionChange<Results<GapDog>>?
        let token = dogs.observe { last = $0 }
        realm.refresh()
        for round in 0..<150 {
            var written = Set<String>()  // "d<serial>" or "p<name>"
            try realm.write {
                for _ in 0..<Int.random(in: 1...2, using: &generator) {
                    let dog = dogs[Int.random(in: 0..<dogs.count, using: &generator)]
                    let part = parts[Int.random(in: 0..<parts.count, using: &generator)]
                    switch Int.random(in: 0..<6, using: &generator) {
                    case 0: dog.toy = Bool.random(using: &generator) ? part : nil; written.insert("d\(dog.serial)")
                    case 1:
                        let friend = dogs[Int.random(in: 0..<dogs.count, using: &generator)]
                        if dog.friends.count > 2 { dog.friends.removeAll() } else { dog.friends.append(friend) }
                        written.insert("d\(dog.serial)")
                    case 2: part.inner = Bool.random(using: &generator) ? parts.randomElement(using: &generator) : nil
                            written.insert("p\(part.name)")
                    case 3: // a link in a list nested in the mixed value is not followed
                        dog.buddy = Bool.random(using: &generator) ? .object(part) : .fromArray([.object(part)])
                        written.insert("d\(dog.serial)")
                    case 4: part.size += 1; written.insert("p\(part.name)")
                    default: dog.age += 1; written.insert("d\(dog.serial)")
                    }
                }
            }
            // Realm's rule, searched by brute force at the new version.
            func reaches(_ object: Object, _ depth: Int) -> Bool {
                let name = (object as? GapDog).map { "d\($0.serial)" } ?? "p\((object as! GapPart).name)"
                if depth > 0 && written.contains(name) { return true }
                if depth == 3 { return false }
                var next: [Object] = []
                if let dog = object as? GapDog {
                    next = Array(dog.friends) + [dog.toy].compactMap { $0 } + [dog.buddy.object(GapPart.self)].compactMap { $0 }
                } else if let inner = (object as! GapPart).inner { next = [inner] }
                return next.contains { reaches($0, depth + 1) }
            }
            let expected = dogs.indices.filter { written.contains("d\(dogs[$0].serial)") || reaches(dogs[$0], 0) }
            checkModificationsOnly(expected, delivered: &last, round: round)
        }
        token.invalidate()
    }
}

extension DerivedObservationTests {
    func testLinkedChangesWithoutMixedValuesMatchABruteForceSearch() throws {
        let realm = try open()
        var generator = SeededGenerator(seed: 24)
        try realm.write {
            for serial in 0..<12 { realm.add(GapNode(value: ["serial": serial])) }
        }
        let nodes = realm.objects(GapNode.self).sorted(byKeyPath: "serial")
        let owner = GapOwner()
        try realm.write { realm.add(owner) }
        var last: RealmCollectionChange<Results<GapNode>>?
        let token = nodes.observe { last = $0 }
        realm.refresh()
        for round in 0..<200 {
            var written = Set<Int>(), badgesWritten = Set<Int>() // nodes' serials
            try realm.write {
                for _ in 0..<Int.random(in: 1...2, using: &generator) {
                    let node = nodes[Int.random(in: 0..<nodes.count, using: &generator)]
                    let other = nodes[Int.random(in: 0..<nodes.count, using: &generator)]
                    switch Int.random(in: 0..<8, using: &generator) {
                    case 0: node.next = Bool.random(using: &generator) ? other : nil
                    case 1: if node.children.count > 2 { node.children.removeAll() } else { node.children.append(other) }
                    case 2: node.named["k\(Int.random(in: 0..<2, using: &generator))"] = other
                    case 3: if node.group.count > 2 { node.group.removeAll() } else { node.group.insert(other) }
                    case 4: node.badge = GapBadge()
                    case 5:
                        if let badge = node.badge {
                            badge.level += 1  // the embedded object is modified, not its node
                            badgesWritten.insert(node.serial)
                            continue
                        }
                        node.size += 1
                    default: node.size += 1
                    }
                    written.insert(node.serial)
                }
            }
            // Realm's rule by brute force at the new version; an embedded badge is an object on the way.
            func reaches(_ node: GapNode, _ depth: Int) -> Bool {
                if depth > 0 && written.contains(node.serial) { return true }
                if depth == 3 { return false }
                if badgesWritten.contains(node.serial) { return true } // the badge, one level down
                var next = Array(node.children) + Array(node.group) + node.named.values.compactMap { $0 }
                if let linked = node.next { next.append(linked) }
                return next.contains { reaches($0, depth + 1) }
            }
            let expected = nodes.indices.filter { written.contains(nodes[$0].serial) || reaches(nodes[$0], 0) }
            checkModificationsOnly(expected, delivered: &last, round: round)
        }
        token.invalidate()
    }
}

/// Checks that the change delivered (which it forgets) modifies exactly expected
/// (indices), and nothing else; none delivered: expected is empty.
func checkModificationsOnly<C>(_ expected: [Int], delivered: inout RealmCollectionChange<C>?, round: Int,
                               file: StaticString = #filePath, line: UInt = #line) {
    defer { delivered = nil }
    guard case .update(_, let deletions, let insertions, let modifications)? = delivered else {
        return XCTAssertEqual(expected, [], "round \(round)", file: file, line: line)
    }
    XCTAssertEqual(deletions + insertions, [], "round \(round)", file: file, line: line)
    XCTAssertEqual(modifications, expected, "round \(round)", file: file, line: line)
}

/// Checks the change set delivered (and forgets it; none: nothing changed) of
/// elements compared by value, which may be modified in place: sorted parts; what
/// stays pairs, in order, with the new positions not inserted, and one whose value
/// differs there is reported modified.
func checkValueChanges<T: Equatable, C>(old: [T], new: [T], delivered: inout RealmCollectionChange<C>?, round: Int,
                                        file: StaticString = #filePath, line: UInt = #line) {
    defer { delivered = nil }
    guard case .update(_, let deletions, let insertions, let modifications)? = delivered else {
        return XCTAssertEqual(old, new, "round \(round): no update, so nothing changed", file: file, line: line)
    }
    let context = "round \(round): \(old) -> \(new): -\(deletions) +\(insertions) ~\(modifications)"
    for part in [deletions, insertions, modifications] { XCTAssertEqual(part, part.sorted(), context, file: file, line: line) }
    let deleted = Set(deletions), inserted = Set(insertions)
    let stays = old.indices.filter { !deleted.contains($0) }
    let places = new.indices.filter { !inserted.contains($0) }
    XCTAssertEqual(stays.count, places.count, context, file: file, line: line)
    for (oldIndex, newIndex) in zip(stays, places) where old[oldIndex] != new[newIndex] {
        XCTAssertTrue(modifications.contains(oldIndex), context, file: file, line: line)
    }
    XCTAssertTrue(Set(modifications).isSubset(of: Set(stays)), context, file: file, line: line)
}

/// An actor observing sorted numbers of the first owner.
actor GapObserver {
    private var realm: Realm!
    private var token: NotificationToken?
    private(set) var seen: [SeenChange] = []
    private(set) var values: [[Int]] = []

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func observeNumbers() async {
        let numbers = realm.objects(GapOwner.self).first!.numbers.sorted()
        token = await numbers.observe(on: self) { actor, change in
            actor.seen.append(SeenChange(change))
            switch change {
            case .initial(let results), .update(let results, _, _, _): actor.values.append(Array(results))
            case .error(let error): XCTFail("\(error)")
            }
        }
    }

    func invalidate() { token?.invalidate() }

    func wait(until done: (isolated GapObserver) -> Bool) async {
        let deadline = Date().addingTimeInterval(10)
        while !done(self) && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
    }
}
