import Foundation
import XCTest
@testable import Larder

final class Kennel: Object {
    @Persisted var name = ""
    @Persisted var scores: List<Int>
    @Persisted var maybeScores: List<Int?>
    @Persisted var citiesVisited: List<String>
    @Persisted var weights: List<Double>
    @Persisted var tags: List<AnyRealmValue>
    @Persisted var badges: MutableSet<Int>
    @Persisted var towns: MutableSet<String>
    @Persisted var ratings: Map<String, Int?>
    @Persisted var dogs: Map<String, KennelDog?>
}

final class KennelDog: Object {
    @Persisted var name = ""
    @Persisted var age: Int?
}

/// `sorted(ascending:)` and `distinct()` on collections of values give live
/// `Results` of values, as in Realm; so does sorting a map of objects by a property.
final class ValueResultsTests: RealmTestCase {
    private func open() throws -> Realm {
        try openRealm([Kennel.self, KennelDog.self])
    }

    private func addKennel(_ realm: Realm, _ configure: (Kennel) -> Void) throws -> Kennel {
        let kennel = Kennel()
        configure(kennel)
        try realm.write { realm.add(kennel) }
        return kennel
    }

    func testAListOfIntsSortsIntoLiveResults() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.scores.append(objectsIn: [5, 1, 3]) }
        let sorted: Results<Int> = kennel.scores.sorted()
        let unannotated = kennel.scores.sorted() // the List's method, not Sequence's array-returning one
        XCTAssertTrue(type(of: unannotated) == Results<Int>.self)
        let descending = kennel.scores.sorted(ascending: false)
        XCTAssertEqual(Array(sorted), [1, 3, 5])
        XCTAssertEqual(Array(descending), [5, 3, 1])
        XCTAssertEqual(sorted.count, 3)
        XCTAssertFalse(sorted.isEmpty)
        XCTAssertEqual(sorted[0], 1)
        XCTAssertEqual(sorted[2], 5)
        XCTAssertEqual(sorted.first, 1)
        XCTAssertEqual(sorted.last, 5)
        XCTAssertEqual(sorted.index(of: 5), 2)
        XCTAssertNil(sorted.index(of: 4))
        XCTAssertEqual(sorted.objects(at: IndexSet([0, 2])), [1, 5])
        XCTAssertNotNil(sorted.realm)
        XCTAssertFalse(sorted.isInvalidated)
        XCTAssertEqual(sorted.map { $0 * 10 }, [10, 30, 50])

        // The list changes in a write: the results taken before see it, inside the write and after.
        try realm.write {
            kennel.scores.append(0)
            kennel.scores[0] = 9
            XCTAssertEqual(Array(sorted), [0, 1, 3, 9], "live inside the write")
        }
        XCTAssertEqual(Array(sorted), [0, 1, 3, 9])
        XCTAssertEqual(sorted.count, 4)
        XCTAssertEqual(Array(descending), [9, 3, 1, 0])
        try realm.write { kennel.scores.removeAll() }
        XCTAssertTrue(sorted.isEmpty)
        XCTAssertNil(sorted.first)
        XCTAssertNil(sorted.max())
    }

    func testValuesAreReadOncePerVersionAndAgainAfterAnyCollectionWrite() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.scores.append(objectsIn: [2, 1]) }
        let sorted = kennel.scores.sorted()
        XCTAssertEqual(sorted.count, 2)
        XCTAssertEqual(sorted[0] + sorted[1], 3)
        XCTAssertEqual(Array(sorted), [1, 2])
        XCTAssertEqual(sorted.snapshotBuilds, 1, "reads at one version share one snapshot")
        realm.beginWrite()
        kennel.scores.append(0)
        XCTAssertEqual(Array(sorted), [0, 1, 2], "an append")
        kennel.scores.move(from: 0, to: 2)
        kennel.scores[0] = 7
        XCTAssertEqual(Array(sorted), [0, 2, 7], "a set")
        kennel.setValue([5, 4], forKey: "scores")
        XCTAssertEqual(Array(sorted), [4, 5], "a whole list assigned")
        kennel.maybeScores.append(1)
        let builds = sorted.snapshotBuilds
        XCTAssertEqual(sorted.count, 2)
        XCTAssertEqual(sorted.snapshotBuilds, builds + 1, "a write to another collection re-reads: the counter is per Realm")
        XCTAssertEqual(sorted.first, 4)
        XCTAssertEqual(sorted.snapshotBuilds, builds + 1)
        try realm.commitWrite()
        XCTAssertEqual(Array(sorted), [4, 5])
    }

    func testResultsSeeWritesOfAnotherInstance() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.citiesVisited.append(objectsIn: ["Oslo", "Bern"]) }
        let cities: Results<String> = kennel.citiesVisited.sorted()
        XCTAssertEqual(Array(cities), ["Bern", "Oslo"])
        let path = fileURL.path
        onAnotherThread {
            let other = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                   objectTypes: [Kennel.self, KennelDog.self]))
            let there = other.objects(Kennel.self).first!
            try other.write { there.citiesVisited.append("Athens") }
        }
        realm.refresh()
        XCTAssertEqual(Array(cities), ["Athens", "Bern", "Oslo"])
    }

    func testOptionalValuesSortNilFirstAndDistinctKeepsFirstPositions() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.maybeScores.append(objectsIn: [3, nil, 1, 3, nil, 2]) }
        let sorted: Results<Int?> = kennel.maybeScores.sorted()
        XCTAssertEqual(Array(sorted), [nil, nil, 1, 2, 3, 3])
        XCTAssertEqual(Array(kennel.maybeScores.sorted(ascending: false)), [3, 3, 2, 1, nil, nil])
        let distinct: Results<Int?> = kennel.maybeScores.distinct()
        XCTAssertEqual(Array(distinct), [3, nil, 1, 2])
        XCTAssertEqual(distinct.index(of: nil), 1)
        XCTAssertEqual(distinct.min(), 1)
        XCTAssertEqual(distinct.max(), 3)
        XCTAssertEqual(distinct.sum(), 6)
        XCTAssertEqual(distinct.average(), 2.0)
    }

    func testChainingSortsAndDistincts() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.scores.append(objectsIn: [4, 2, 4, 8, 2, 6]) }
        XCTAssertEqual(Array(kennel.scores.distinct().sorted(ascending: false)), [8, 6, 4, 2])
        XCTAssertEqual(Array(kennel.scores.sorted().distinct()), [2, 4, 6, 8])
        XCTAssertEqual(Array(kennel.scores.sorted().sorted(ascending: false)), [8, 6, 4, 4, 2, 2], "the later sort decides")
        let chained = kennel.scores.distinct().sorted()
        try realm.write { kennel.scores.append(objectsIn: [1, 8]) }
        XCTAssertEqual(Array(chained), [1, 2, 4, 6, 8], "chained results are live too")
    }

    func testAggregatesOfDoubles() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.weights.append(objectsIn: [2.5, 10, 0.5]) }
        let weights: Results<Double> = kennel.weights.sorted()
        XCTAssertEqual(weights.min(), 0.5)
        XCTAssertEqual(weights.max(), 10)
        XCTAssertEqual(weights.sum(), 13)
        XCTAssertEqual(weights.average(), 13.0 / 3)
        try realm.write { kennel.weights.append(20) }
        XCTAssertEqual(weights.max(), 20, "aggregates read the list as it is now")
        XCTAssertEqual(weights.sum(), 33)
    }

    func testAnyRealmValuesSortInRealmsMixedOrder() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.tags.append(objectsIn: [.string("b"), .int(3), .none, .double(1.5), .string("a"), .int(3)]) }
        let sorted: Results<AnyRealmValue> = kennel.tags.sorted()
        XCTAssertEqual(Array(sorted), [.none, .double(1.5), .int(3), .int(3), .string("a"), .string("b")])
        XCTAssertEqual(Array(kennel.tags.distinct()), [.string("b"), .int(3), .none, .double(1.5), .string("a")])
    }

    func testSetsSortIntoResults() throws {
        let realm = try open()
        let kennel = try addKennel(realm) {
            $0.badges.insert(objectsIn: [30, 10, 20])
            $0.towns.insert(objectsIn: ["Zug", "Aarau"])
        }
        let badges: Results<Int> = kennel.badges.sorted()
        XCTAssertEqual(Array(badges), [10, 20, 30])
        XCTAssertEqual(Array(kennel.badges.sorted(ascending: false)), [30, 20, 10])
        XCTAssertEqual(kennel.badges.distinct().count, 3)
        XCTAssertEqual(Array(kennel.towns.sorted()), ["Aarau", "Zug"])
        try realm.write { kennel.badges.remove(20) }
        XCTAssertEqual(Array(badges), [10, 30])
        XCTAssertEqual(badges.sum(), 40)
    }

    func testMapsOfValuesSortTheirValues() throws {
        let realm = try open()
        let kennel = try addKennel(realm) {
            $0.ratings["a"] = 7
            $0.ratings["b"] = .some(nil)
            $0.ratings["c"] = 2
        }
        let ratings: Results<Int?> = kennel.ratings.sorted()
        XCTAssertEqual(Array(ratings), [nil, 2, 7])
        XCTAssertEqual(Array(kennel.ratings.sorted(ascending: false)), [7, 2, nil])
        try realm.write { kennel.ratings["d"] = 5 }
        XCTAssertEqual(Array(ratings), [nil, 2, 5, 7])
        XCTAssertEqual(ratings.sum(), 14)
    }

    func testAMapOfObjectsSortsByAPropertyIntoResultsOfOptionalObjects() throws {
        let realm = try open()
        let kennel = try addKennel(realm) {
            $0.dogs["rex"] = KennelDog(value: ["name": "Rex", "age": 7])
            $0.dogs["fido"] = KennelDog(value: ["name": "Fido", "age": 3])
            $0.dogs["none"] = .some(nil)
            $0.dogs["old"] = KennelDog(value: ["name": "Old", "age": 12])
        }
        let byAge: Results<KennelDog?> = kennel.dogs.sorted(byKeyPath: "age")
        XCTAssertEqual(byAge.map { $0?.name }, [nil, "Fido", "Rex", "Old"])
        XCTAssertEqual(kennel.dogs.sorted(byKeyPath: "age", ascending: false).map { $0?.name }, ["Old", "Rex", "Fido", nil])
        XCTAssertEqual(kennel.dogs.sorted(by: [SortDescriptor(keyPath: "name")]).map { $0?.name }, [nil, "Fido", "Old", "Rex"])
        XCTAssertEqual(byAge.count, 4)
        XCTAssertTrue(byAge[1]!.isSameObject(as: kennel.dogs["fido"]!))
        try realm.write { kennel.dogs["fido"]!!.age = 20 }
        XCTAssertEqual(byAge.map { $0?.name }, [nil, "Rex", "Old", "Fido"], "a sort key written: re-sorted")
    }

    /// Generic code over any Realm collection of ints.
    private func total(_ collection: some RealmCollection<Int>) -> Int {
        collection.reduce(0, +)
    }

    func testResultsOfValuesAreRealmCollectionsAndAnyRealmCollectionTakesThem() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.scores.append(objectsIn: [5, 1, 3]) }
        XCTAssertEqual(total(kennel.scores.sorted()), 9)
        let any = AnyRealmCollection(kennel.scores.sorted())
        XCTAssertEqual(Array(any), [1, 3, 5])
        XCTAssertEqual(any.count, 3)
        XCTAssertEqual(any[1], 3)
        XCTAssertEqual(any.first, 1)
        XCTAssertEqual(any.last, 5)
        XCTAssertEqual(any.index(of: 5), 2)
        XCTAssertNotNil(any.realm)
        XCTAssertEqual(Array(any.sorted(byKeyPath: "self", ascending: false)), [5, 3, 1])
        XCTAssertEqual(any.value(forKey: "self") as? [Int], [1, 3, 5])
        XCTAssertTrue(any.description.hasPrefix("Results<Int> <3>"))
        try realm.write { kennel.scores.append(2) }
        XCTAssertEqual(Array(any), [1, 2, 3, 5], "live through the eraser")
    }

    func testResultsOfAMapsObjectsSortAgainAndReadTheirProperties() throws {
        let realm = try open()
        let kennel = try addKennel(realm) {
            $0.dogs["a"] = KennelDog(value: ["name": "Bo", "age": 3])
            $0.dogs["b"] = KennelDog(value: ["name": "Al", "age": 3])
            $0.dogs["c"] = KennelDog(value: ["name": "Cy", "age": 1])
        }
        let byAge = kennel.dogs.sorted(byKeyPath: "age")
        XCTAssertEqual(byAge.map { $0?.name }, ["Cy", "Bo", "Al"], "ties keep the map's key order")
        XCTAssertEqual(byAge.sorted(byKeyPath: "name").map { $0?.name }, ["Al", "Bo", "Cy"])
        XCTAssertEqual(byAge.value(forKey: "name") as? [String], ["Cy", "Bo", "Al"])
        try realm.write { byAge.setValue(9, forKey: "age") }
        XCTAssertEqual(kennel.dogs.values.map { $0?.age }, [9, 9, 9])
    }

    func testResultsOfADeletedOwnersListAreInvalidated() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.scores.append(1) }
        let sorted = kennel.scores.sorted()
        XCTAssertFalse(sorted.isInvalidated)
        try realm.write { realm.delete(kennel) }
        XCTAssertTrue(sorted.isInvalidated)
    }

    func testDescriptionListsTheValues() throws {
        let realm = try open()
        let kennel = try addKennel(realm) { $0.citiesVisited.append(objectsIn: ["Oslo", "Bern"]) }
        XCTAssertEqual(kennel.citiesVisited.sorted().description, "Results<String> <2> (\n\t[0] \"Bern\",\n\t[1] \"Oslo\"\n)",
                       "as a list of strings describes them")
    }

    func testObjectResultsStillSortAndTheirIteratorStillStreams() throws {
        let realm = try open()
        try realm.write {
            for (name, age) in [("b", 2), ("a", 1), ("c", 3)] { realm.add(KennelDog(value: ["name": name, "age": age])) }
        }
        let all = realm.objects(KennelDog.self)
        XCTAssertEqual(all.map(\.name), ["b", "a", "c"])
        XCTAssertEqual(all.sorted(byKeyPath: "name").map(\.name), ["a", "b", "c"])
        XCTAssertEqual(all.index(of: all[2]), 2)
        XCTAssertEqual(all.objects(at: IndexSet([0, 1])).map(\.name), ["b", "a"])
    }

    func testOutOfRangeSubscriptsTrapWithRealmsMessages() throws {
        for (scenario, message) in [("value-results-past-end", "Index 3 is out of bounds (must be less than 3)."),
                                    ("value-results-negative", "Cannot pass a negative value for 'index'."),
                                    ("value-results-objects-at", "Indexes for collection are out of bounds."),
                                    ("value-results-unmanaged-list",
                                     "This method may only be called on RLMArray instances retrieved from an RLMRealm"),
                                    ("value-results-unmanaged-set",
                                     "This method may only be called on RLMSet instances retrieved from an RLMRealm"),
                                    ("value-results-unmanaged-map",
                                     "This method may only be called on RLMDictionary instances retrieved from an RLMRealm"),
                                    ("value-results-map-of-values-by-key-path",
                                     "sorted(byKeyPath:) needs a map of objects"),
                                    ("value-results-values-by-property",
                                     "Cannot sort on key path 'age': results of Int sort only on 'self'."),
                                    ("value-results-map-unknown-key-path",
                                     "Cannot sort on key path 'weight': property 'KennelDog.weight' does not exist.")] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains(message), "\(scenario): \(outcome.output)")
        }
    }
}

/// The trap scenarios of this file's tests, run in a child process (see ChildScenarios).
enum ValueResultsScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        guard scenario.hasPrefix("value-results-") else { return false }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                               objectTypes: [Kennel.self, KennelDog.self]))
        let kennel = Kennel()
        kennel.scores.append(objectsIn: [3, 1, 2])
        kennel.dogs["rex"] = KennelDog()
        try realm.write { realm.add(kennel) }
        switch scenario {
        case "value-results-unmanaged-list": print(Kennel().scores.sorted())
        case "value-results-unmanaged-set": print(Kennel().badges.distinct())
        case "value-results-unmanaged-map": print(Kennel().ratings.sorted())
        case "value-results-map-of-values-by-key-path": print(kennel.ratings.sorted(byKeyPath: "self"))
        default: break
        }
        let sorted = kennel.scores.sorted()
        switch scenario {
        case "value-results-values-by-property": print(sorted.sorted(byKeyPath: "age"))
        case "value-results-past-end": print(sorted[3])
        case "value-results-negative": print(sorted[-1])
        case "value-results-objects-at": print(sorted.objects(at: IndexSet([1, 3])))
        case "value-results-map-unknown-key-path": print(kennel.dogs.sorted(byKeyPath: "weight"))
        default: return false
        }
        return true
    }
}
