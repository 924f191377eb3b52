import CLarder
import Foundation
import XCTest
@testable import Larder

final class OrdPerson: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var pets: List<OrdPet>
}

final class OrdPet: Object {
    @Persisted var name = ""
    @Persisted var rank = 0
    @Persisted var weight = 0.0
    @Persisted var owner: OrdPerson?
}

/// Sorts, distincts and aggregates of Results of objects run in the C core
/// (lar_results_sort, lar_results_distinct, lar_results_aggregate): key paths through
/// links, nil links, several descriptors, chains of filters and sorts, and Lists.
final class CoreOrderingTests: RealmTestCase {
    private var realm: Realm!
    private var people: [OrdPerson] = []

    /// Three people (Bo 40, Ann 30, Cy 20) and 24 pets; every fourth pet has no owner.
    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try openRealm([OrdPerson.self, OrdPet.self])
        try realm.write {
            people = [("Bo", 40), ("Ann", 30), ("Cy", 20)].map { realm.create(OrdPerson.self, value: ["name": $0.0, "age": $0.1]) }
            for i in 0..<24 {
                let pet = realm.create(OrdPet.self, value: ["name": ["rex", "Rex", "émile", "Émile", "fido", ""][i % 6],
                                                             "rank": (i * 7) % 5, "weight": Double(i % 9) / 2])
                if i % 4 != 3 {
                    pet.owner = people[i % 3]
                    people[i % 3].pets.append(pet)
                }
            }
        }
    }

    /// Every pet, in creation order.
    private var allPets: [OrdPet] { Array(realm.objects(OrdPet.self)) }

    /// The pets' object keys: two accessors of one object are different instances.
    private func keys(_ pets: some Sequence<OrdPet>) -> [lar_objkey] { pets.map(\.core.key) }

    private func names(_ pets: some Sequence<OrdPet>) -> [String] { pets.map { "\($0.name)/\($0.rank)/\($0.owner?.name ?? "-")" } }

    /// A stable sort of pets by less (ties keep the order given).
    private func stableSorted(_ pets: [OrdPet], _ less: (OrdPet, OrdPet) -> Bool?) -> [OrdPet] {
        pets.enumerated().sorted { a, b in less(a.element, b.element) ?? (a.offset < b.offset) }.map(\.element)
    }

    /// Realm's order of owners' names ascending: names by code point, then pets without an owner.
    private func ownerLess(_ a: OrdPet, _ b: OrdPet, ascending: Bool) -> Bool? {
        switch (a.owner?.name, b.owner?.name) {
        case (nil, nil): return nil
        case (nil, _): return !ascending
        case (_, nil): return ascending
        case let (x?, y?): return x == y ? nil : (ascending ? Array(x.unicodeScalars.map(\.value)).lexicographicallyPrecedes(y.unicodeScalars.map(\.value))
                                                         : Array(y.unicodeScalars.map(\.value)).lexicographicallyPrecedes(x.unicodeScalars.map(\.value)))
        }
    }

    func testSortThroughALinkPutsNilLinksAfterEveryValueAscending() {
        let ascending = realm.objects(OrdPet.self).sorted(byKeyPath: "owner.name")
        XCTAssertEqual(names(ascending), names(stableSorted(allPets) { ownerLess($0, $1, ascending: true) }))
        XCTAssertEqual(ascending.last?.owner, nil)
        XCTAssertEqual(ascending.first?.owner?.name, "Ann")
        let descending = realm.objects(OrdPet.self).sorted(byKeyPath: "owner.name", ascending: false)
        XCTAssertEqual(names(descending), names(stableSorted(allPets) { ownerLess($0, $1, ascending: false) }))
        XCTAssertEqual(descending.first?.owner, nil)
        XCTAssertEqual(realm.objects(OrdPet.self).sorted(by: [SortDescriptor(keyPath: "owner.age")]).first?.owner?.name, "Cy")
    }

    func testStringsSortByCodePoint() {
        let sorted = realm.objects(OrdPet.self).distinct(by: ["name"]).sorted(byKeyPath: "name")
        XCTAssertEqual(sorted.map(\.name), ["", "Rex", "fido", "rex", "Émile", "émile"])
    }

    func testSeveralDescriptorsAndChainedSorts() {
        let byRankThenOwner = realm.objects(OrdPet.self).sorted(by: [SortDescriptor(keyPath: "rank", ascending: false),
                                                                      SortDescriptor(keyPath: "owner.name")])
        let expected = stableSorted(allPets) { a, b in
            a.rank != b.rank ? a.rank > b.rank : ownerLess(a, b, ascending: true)
        }
        XCTAssertEqual(names(byRankThenOwner), names(expected))
        // A later sort decides first; the earlier one breaks its ties (Realm's rule).
        let chained = realm.objects(OrdPet.self).sorted(byKeyPath: "owner.name").sorted(byKeyPath: "rank", ascending: false)
        XCTAssertEqual(names(chained), names(expected))
    }

    func testDistinctThroughALinkDropsNilLinks() {
        let distinct = realm.objects(OrdPet.self).distinct(by: ["owner.name"])
        XCTAssertEqual(distinct.map { $0.owner!.name }, ["Bo", "Ann", "Cy"])
        XCTAssertEqual(keys(distinct), keys(allPets[0..<3]))
        let sortedThenDistinct = realm.objects(OrdPet.self).sorted(byKeyPath: "rank", ascending: false).distinct(by: ["owner.name"])
        let firstPerOwner = stableSorted(allPets) { $0.rank == $1.rank ? nil : $0.rank > $1.rank }
            .filter { $0.owner != nil }
            .reduce(into: [OrdPet]()) { kept, pet in if !kept.contains(where: { $0.owner?.core.key == pet.owner?.core.key }) { kept.append(pet) } }
        XCTAssertEqual(keys(sortedThenDistinct), keys(firstPerOwner))
    }

    func testFilterSortFilterChains() {
        let chained = realm.objects(OrdPet.self).filter("weight > 1").sorted(byKeyPath: "owner.name").filter("rank < 3")
        let expected = stableSorted(allPets.filter { $0.weight > 1 && $0.rank < 3 }) { ownerLess($0, $1, ascending: true) }
        XCTAssertEqual(names(chained), names(expected))
        XCTAssertFalse(expected.isEmpty)
        let whereChain = realm.objects(OrdPet.self).where { $0.rank < 4 }.distinct(by: ["owner.name"]).where { $0.weight > 0 }
        let left = allPets.filter { $0.rank < 4 && $0.weight > 0 }
            .filter { $0.owner != nil }
            .reduce(into: [OrdPet]()) { kept, pet in if !kept.contains(where: { $0.owner?.core.key == pet.owner?.core.key }) { kept.append(pet) } }
        XCTAssertEqual(keys(whereChain), keys(left), "filters apply before the distinct, as Realm's query does")
    }

    func testSortedResultsFollowWritesToLinkedObjects() throws {
        let sorted = realm.objects(OrdPet.self).sorted(byKeyPath: "owner.name")
        XCTAssertEqual(sorted.first?.owner?.name, "Ann")
        try realm.write { people[1].name = "Zed" }
        XCTAssertEqual(sorted.first?.owner?.name, "Bo")
        try realm.write { realm.delete(people[0]) }
        XCTAssertEqual(sorted.first?.owner?.name, "Cy")
        XCTAssertEqual(sorted.count, 24)
        try realm.write {
            XCTAssertEqual(sorted.first?.owner?.name, "Cy")
            people[2].name = "Zz" // in one write: only the linked class's write moves the snapshot
            XCTAssertEqual(sorted.first?.owner?.name, "Zed")
            sorted.last!.owner = people[2]
            XCTAssertEqual(sorted.filter("owner == nil").count, 6 + 6 - 1, "the write is seen inside it")
        }
    }

    func testIteratingSortedResultsReadsEachRowOnce() throws {
        let sorted = realm.objects(OrdPet.self).sorted(byKeyPath: "rank")
        XCTAssertEqual(sorted.map(\.rank), allPets.map(\.rank).sorted())
        XCTAssertEqual(sorted.map(\.weight), stableSorted(allPets) { $0.rank == $1.rank ? nil : $0.rank < $1.rank }.map(\.weight))
        // Writes in the loop end transactions: the walk goes on over its snapshot, reading the new version.
        let before = allPets.reduce(0) { $0 + $1.weight }
        var walked = 0
        for pet in realm.objects(OrdPet.self).sorted(byKeyPath: "name") {
            let weight = pet.weight
            try realm.write { pet.weight = weight + 1 }
            XCTAssertEqual(pet.weight, weight + 1)
            walked += 1
        }
        XCTAssertEqual(walked, 24)
        XCTAssertEqual(allPets.reduce(0) { $0 + $1.weight }, before + 24)
        // An object deleted ahead of the walk still comes, invalidated; the others read their rows.
        try realm.write {
            let snapshot = realm.objects(OrdPet.self).sorted(byKeyPath: "rank")
            let doomed = snapshot[3].core.key
            var ranks: [Int] = []
            var invalidated = 0
            for (index, pet) in snapshot.enumerated() {
                if index == 1 { realm.delete(realm.objects(OrdPet.self).first { $0.core.key == doomed }!) }
                if pet.isInvalidated { invalidated += 1 } else { ranks.append(pet.rank) }
            }
            XCTAssertEqual(invalidated, 1)
            XCTAssertEqual(ranks.count, 23)
            XCTAssertEqual(ranks, ranks.sorted())
        }
    }

    func testSortingAListKeepsListOrderForTies() {
        let pets = people[0].pets
        let sorted = pets.sorted(byKeyPath: "rank")
        XCTAssertEqual(keys(sorted), keys(stableSorted(Array(pets)) { $0.rank == $1.rank ? nil : $0.rank < $1.rank }))
        let throughLink = pets.sorted(byKeyPath: "owner.age")
        XCTAssertEqual(keys(throughLink), keys(pets), "one owner: list order")
        XCTAssertEqual(pets.filter("rank > 0").sorted(byKeyPath: "weight").map(\.weight),
                       Array(pets).filter { $0.rank > 0 }.map(\.weight).sorted())
    }

    func testAggregatesRunInTheCore() {
        let pets = realm.objects(OrdPet.self)
        XCTAssertEqual(pets.sum(ofProperty: "rank") as Int, allPets.reduce(0) { $0 + $1.rank })
        XCTAssertEqual(pets.max(of: \.weight), 4)
        XCTAssertEqual(pets.average(ofProperty: "weight") as Double?, allPets.reduce(0) { $0 + $1.weight } / 24)
        let heavy = pets.filter("weight >= 3")
        XCTAssertEqual(heavy.min(ofProperty: "rank") as Int?, allPets.filter { $0.weight >= 3 }.map(\.rank).min())
        // Through a link: nil links are skipped.
        XCTAssertEqual(pets.sum(ofProperty: "owner.age") as Int, allPets.compactMap { $0.owner?.age }.reduce(0, +))
        XCTAssertEqual(pets.min(ofProperty: "owner.age") as Int?, 20)
        XCTAssertEqual(pets.average(ofProperty: "owner.age") as Double?,
                       Double(allPets.compactMap { $0.owner?.age }.reduce(0, +)) / 18)
        XCTAssertEqual(people[0].pets.max(ofProperty: "owner.age") as Int?, 40)
    }

    func testAggregatesOfAnEmptyResult() {
        let none = realm.objects(OrdPet.self).filter("rank > 100")
        XCTAssertEqual(none.sum(ofProperty: "rank") as Int, 0)
        XCTAssertEqual(none.sum(of: \.weight), 0)
        XCTAssertNil(none.min(ofProperty: "rank") as Int?)
        XCTAssertNil(none.max(of: \.weight))
        XCTAssertNil(none.average(ofProperty: "weight") as Double?)
        XCTAssertNil(none.average(ofProperty: "owner.age") as Double?)
        XCTAssertEqual(none.sum(ofProperty: "owner.age") as Int, 0)
        XCTAssertNil(realm.objects(OrdPet.self).filter("owner == nil").max(ofProperty: "owner.age") as Int?)
    }

    func testBadKeyPathsTrapWithRealmsMessages() throws {
        try assertChildTraps("ordering-unknown-linked-property",
                             message: "Cannot sort on key path 'owner.nme': property 'OrdPerson.nme' does not exist.")
        try assertChildTraps("ordering-through-a-list",
                             message: "Cannot sort on key path 'pets.name': property 'OrdPerson.pets' is of unsupported type 'array'.")
        try assertChildTraps("ordering-through-a-non-link",
                             message: "Cannot sort on key path 'name.x': property 'OrdPet.name' of type 'string' may only be the final property in the key path.")
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario.hasPrefix("ordering-") else { return false }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path + "-" + scenario),
                                                                 objectTypes: [OrdPerson.self, OrdPet.self]))
        switch scenario {
        case "ordering-unknown-linked-property": _ = realm.objects(OrdPet.self).sorted(byKeyPath: "owner.nme")
        case "ordering-through-a-list": _ = realm.objects(OrdPerson.self).distinct(by: ["pets.name"])
        case "ordering-through-a-non-link": _ = realm.objects(OrdPet.self).sorted(byKeyPath: "name.x")
        default: return false
        }
        return true
    }
}
