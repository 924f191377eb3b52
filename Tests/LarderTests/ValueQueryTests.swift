import Foundation
import XCTest
@testable import Larder

/// `where {}` and `filter` on lists, sets and maps of plain values, as Realm queries its
/// collections of primitives: `$0` (`self`) is the value; the C core tests each one.
final class ValueQueryTests: RealmTestCase {
    private func kennel(_ configure: (Kennel) -> Void) throws -> (Realm, Kennel) {
        let realm = try openRealm([Kennel.self, KennelDog.self])
        let kennel = Kennel()
        configure(kennel)
        try realm.write { realm.add(kennel) }
        return (realm, kennel)
    }

    func testAListOfIntsFiltersByDSLAndText() throws {
        let (_, kennel) = try kennel { $0.scores.append(objectsIn: [5, 1, 7, -3, 5]) }
        XCTAssertEqual(Array(kennel.scores.where { $0 > 4 }), [5, 7, 5])
        XCTAssertEqual(Array(kennel.scores.where { $0 == 5 || $0 < 0 }), [5, -3, 5])
        XCTAssertEqual(Array(kennel.scores.where { !($0 == 5) }), [1, 7, -3])
        XCTAssertEqual(Array(kennel.scores.where { $0.in([1, 7]) }), [1, 7])
        XCTAssertEqual(Array(kennel.scores.where { $0.contains(0...5) }), [5, 1, 5])
        XCTAssertEqual(Array(kennel.scores.filter("self > 4")), [5, 7, 5])
        XCTAssertEqual(Array(kennel.scores.filter("self BETWEEN {%@, %@}", -3, 1)), [1, -3])
        XCTAssertEqual(Array(kennel.scores.filter("self IN %@", [7, 5])), [5, 7, 5])
        XCTAssertEqual(Array(kennel.scores.filter("%K < 0", "self")), [-3])
        XCTAssertEqual(kennel.scores.where { $0 > 100 }.count, 0)
        XCTAssertEqual(kennel.scores.index(matching: { $0 > 5 }), 2)
        XCTAssertEqual(kennel.scores.index(matching: "self == %@", 5), 0)
        XCTAssertNil(kennel.scores.index(matching: "self > 100"))
        XCTAssertEqual(kennel.scores.sorted().index(matching: { $0 > 1 }), 2) // -3 1 5 5 7
    }

    func testFilteredValuesKeepTheOrderTheyAreSortedIn() throws {
        let (_, kennel) = try kennel { $0.scores.append(objectsIn: [5, 1, 7, -3]) }
        XCTAssertEqual(Array(kennel.scores.sorted().where { $0 > 0 }), [1, 5, 7])
        XCTAssertEqual(Array(kennel.scores.sorted(ascending: false).filter("self > 0")), [7, 5, 1])
        XCTAssertEqual(Array(kennel.scores.where { $0 > 0 }.sorted()), [1, 5, 7])
        XCTAssertEqual(Array(kennel.scores.where { $0 > 0 }.where { $0 < 7 }), [5, 1])
        XCTAssertEqual(kennel.scores.where { $0 > 0 }.sum(), 13)
        XCTAssertEqual(kennel.scores.where { $0 > 0 }.max(), 7)
    }

    func testStringsFilterWithTheirOptions() throws {
        let (_, kennel) = try kennel { $0.citiesVisited.append(objectsIn: ["Rome", "rome", "Róme", "Oslo", ""]) }
        let cities = kennel.citiesVisited
        XCTAssertEqual(Array(cities.where { $0 == "rome" }), ["rome"])
        XCTAssertEqual(Array(cities.where { $0.equals("rome", options: .caseInsensitive) }), ["Rome", "rome"])
        XCTAssertEqual(Array(cities.where { $0.starts(with: "r", options: [.caseInsensitive, .diacriticInsensitive]) }),
                       ["Rome", "rome", "Róme"])
        XCTAssertEqual(Array(cities.where { $0.contains("sl") }), ["Oslo"])
        XCTAssertEqual(Array(cities.filter("self ENDSWITH[c] 'ME'")), ["Rome", "rome", "Róme"])
        XCTAssertEqual(Array(cities.filter("self LIKE '?o*'")), ["Rome", "rome"])
        XCTAssertEqual(Array(cities.filter("self.@count == 0")), [""])
    }

    func testOptionalsMixedValuesSetsAndMaps() throws {
        let (_, kennel) = try kennel {
            $0.maybeScores.append(objectsIn: [3, nil, 8])
            $0.tags.append(objectsIn: [.int(3), .string("3"), .double(3), .none, .bool(true)])
            $0.badges.insert(objectsIn: [4, 9, 2])
            $0.towns.insert(objectsIn: ["Bergen", "Bari"])
            $0.ratings["a"] = 10
            $0.ratings["b"] = .some(nil)
            $0.ratings["c"] = 2
        }
        XCTAssertEqual(Array(kennel.maybeScores.where { $0 == nil }), [nil])
        XCTAssertEqual(Array(kennel.maybeScores.filter("self != nil AND self > 4")), [8])
        XCTAssertEqual(Array(kennel.tags.where { $0 == .int(3) }), [.int(3), .double(3)])
        XCTAssertEqual(Array(kennel.tags.filter("self.@type == 'string'")), [.string("3")])
        XCTAssertEqual(Array(kennel.tags.filter("self == nil")), [.none])
        XCTAssertEqual(Set(kennel.badges.where { $0 > 3 }), [4, 9])
        XCTAssertEqual(Array(kennel.towns.filter("self BEGINSWITH 'Ba'")), ["Bari"])
        XCTAssertEqual(Array(kennel.ratings.where { $0 > 5 }), [10])
        XCTAssertEqual(Array(kennel.ratings.filter("self == nil")), [nil])
    }

    func testFilteredValuesAreLive() throws {
        let (realm, kennel) = try kennel { $0.scores.append(objectsIn: [1, 9]) }
        let big = kennel.scores.where { $0 > 5 }
        XCTAssertEqual(Array(big), [9])
        try realm.write {
            kennel.scores.append(20)
            XCTAssertEqual(Array(big), [9, 20]) // inside the write
            kennel.scores.remove(at: 1)
        }
        XCTAssertEqual(Array(big), [20])
    }

    func testFilteredValuesAreObservedAndFreeze() throws {
        let (realm, kennel) = try kennel { $0.scores.append(objectsIn: [1, 9]) }
        let big = kennel.scores.where { $0 > 5 }
        var changes: [RealmCollectionChange<Results<Int>>] = []
        let token = big.observe { changes.append($0) }
        realm.refresh()
        try realm.write { kennel.scores.append(objectsIn: [3, 7]) } // 1 9 3 7: big is 9 7
        guard case .update(let results, let deletions, let insertions, let modifications)? = changes.last else {
            return XCTFail("no update: \(changes)")
        }
        XCTAssertEqual(Array(results), [9, 7])
        XCTAssertEqual(deletions, [])
        XCTAssertEqual(insertions, [1])
        XCTAssertEqual(modifications, [])
        token.invalidate()

        let frozen = big.freeze()
        try realm.write { kennel.scores.removeAll() }
        XCTAssertEqual(Array(frozen), [9, 7])
        XCTAssertEqual(Array(big), [])
        XCTAssertEqual(Array(kennel.freeze().scores.filter("self < 0")), [])
    }

    func testListsAndSetsOfObjectsKeepTheirObjectQueries() throws {
        let realm = try openRealm([Owner.self, Pet.self, Toy.self, KeyedToy.self])
        let owner = Owner()
        try realm.write {
            realm.add(owner)
            owner.pets.append(objectsIn: ["Rex", "Fido"].map { Pet(value: ["name": $0]) })
        }
        XCTAssertEqual(owner.pets.where { $0.name == "Rex" }.map(\.name), ["Rex"])
        XCTAssertEqual(owner.pets.filter("name BEGINSWITH 'F'").map(\.name), ["Fido"])
        XCTAssertEqual(owner.pets.index(matching: { $0.name == "Fido" }), 1)
        XCTAssertEqual(owner.pets.index(matching: "name == %@", "Rex"), 0)
    }

    func testAnInvalidQueryTrapsWithTheCoresMessage() throws {
        try assertChildTraps("query-values-unknown-key-path", message: "a query over values names each value 'self'")
        try assertChildTraps("query-values-wrong-type", message: "cannot compare int property 'self'")
        try assertChildTraps("query-values-unmanaged", message: "This method may only be called on RLMArray instances")
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario.hasPrefix("query-values-") else { return false }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path + "-" + scenario),
                                                                 objectTypes: [Kennel.self, KennelDog.self]))
        let kennel = Kennel()
        try realm.write { realm.add(kennel) }
        switch scenario {
        case "query-values-unknown-key-path": _ = kennel.scores.filter("age > 3").count
        case "query-values-wrong-type": _ = kennel.scores.filter("self == 'x'").count
        case "query-values-unmanaged": _ = Kennel().scores.where { $0 > 1 }.count
        default: return false
        }
        return true
    }
}
