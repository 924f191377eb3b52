import Foundation
import Synchronization
import XCTest
@testable import Larder

/// A query asked again with other values reuses the C query resolved before
/// (QueryPool): each Results keeps its own values, across threads and schema changes.
final class QueryReuseTests: RealmTestCase {
    private static let names = ["Rex", "Wolfie", "Fido", "Nobody"]

    private func fill(_ realm: Realm) throws {
        try realm.write {
            for i in 0..<40 {
                realm.create(QDog.self, value: ["name": Self.names[i % 3], "age": i % 7, "owner": nil])
            }
        }
    }

    private func expectedCount(name: String) -> Int { name == "Nobody" ? 0 : (name == "Rex" ? 14 : 13) }
    private func expectedCount(ageBelow age: Int) -> Int { (0..<40).filter { $0 % 7 < age }.count }

    func testRepeatedWhereReusesItsQueryWithItsOwnValues() throws {
        let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try fill(realm)
        let pool = realm.instance.environment.queryPool
        let held = Self.names.map { name in realm.objects(QDog.self).where { $0.name == name } }
        for (name, results) in zip(Self.names, held) {
            XCTAssertEqual(results.count, expectedCount(name: name), name)
            XCTAssertTrue(results.allSatisfy { $0.name == name })
        }
        let before = pool.reuses
        for round in 0..<3 {
            for name in Self.names.reversed() {
                let results = realm.objects(QDog.self).where { $0.name == name }
                XCTAssertEqual(results.count, expectedCount(name: name), "round \(round): \(name)")
                XCTAssertEqual(results.first?.name, name == "Nobody" ? nil : name)
            }
        }
        XCTAssertGreaterThan(pool.reuses, before, "the same shape reuses its query")
        for (name, results) in zip(Self.names, held) {
            XCTAssertEqual(results.count, expectedCount(name: name), "results made first keep their values: \(name)")
        }
        let nilOwner = realm.objects(QDog.self).where { $0.owner == nil && $0.age == 3 }
        XCTAssertEqual(nilOwner.count, expectedCount(ageBelow: 4) - expectedCount(ageBelow: 3))
    }

    /// Shapes that take turns (the pool remembers the shape taken last) and key paths of one
    /// type that take turns (steps are remembered by key path) each keep their own query.
    func testAlternatingShapesAndKeyPathsKeepTheirOwnQueries() throws {
        let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try realm.write {
            for i in 0..<12 {
                realm.create(QDog.self, value: ["name": Self.names[i % 3], "breed": Self.names[(i + 1) % 3], "age": i % 4])
            }
        }
        for round in 0..<3 {
            for name in Self.names {
                XCTAssertEqual(realm.objects(QDog.self).where { $0.name == name }.count, name == "Nobody" ? 0 : 4, "\(round)")
                XCTAssertEqual(realm.objects(QDog.self).where { $0.breed == name }.map(\.breed), name == "Nobody" ? [] : Array(repeating: name, count: 4))
                XCTAssertEqual(realm.objects(QDog.self).where { $0.age < round }.count, 3 * round)
                XCTAssertEqual(realm.objects(QDog.self).where { $0.name == name && $0.age >= round }.count,
                               name == "Nobody" ? 0 : (0..<12).filter { $0 % 3 == Self.names.firstIndex(of: name)! && $0 % 4 >= round }.count)
            }
        }
    }

    /// A query of the shape taken last is matched against that shape's calls, values aside:
    /// nil in place of a value, or a value of another type, is another shape.
    func testNilAndValuesOfOtherTypesInTheSameKeyPathAreOtherShapes() throws {
        let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try realm.write {
            for i in 0..<12 { realm.create(QDog.self, value: ["name": "D\(i)", "age": i, "weight": i % 3 == 0 ? nil : Double(i % 3)]) }
        }
        let pool = realm.instance.environment.queryPool
        let before = pool.reuses
        let weights: [Double?] = [nil, 1, 1, nil, nil, 2, 1, nil]
        for round in 0..<2 {
            for weight in weights {
                XCTAssertEqual(realm.objects(QDog.self).where { $0.weight == weight }.count, 4, "round \(round): \(String(describing: weight))")
            }
        }
        XCTAssertGreaterThan(pool.reuses, before)
        for bound in [3, 5, 3, 5] {
            XCTAssertEqual(realm.objects(QDog.self).where { $0.age < bound }.count, bound)
            XCTAssertEqual(realm.objects(QDog.self).where { $0.weight < Double(bound) - 1.5 }.count, bound == 3 ? 4 : 8)
            XCTAssertEqual(realm.objects(QDog.self).where { $0.age < bound && $0.name != "D0" }.count, bound - 1)
            XCTAssertEqual(realm.objects(QDog.self).where { $0.age > bound || $0.name == "D0" }.count, 12 - bound)
        }
    }

    /// A query's values are not kept with the pooled query: an object in one holds no Realm open.
    func testAReusedQueryKeepsNoObjectOfItsValues() throws {
        do {
            let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
            let owners = try realm.write { (0..<2).map { realm.create(QOwner.self, value: ["name": "O\($0)"]) } }
            try realm.write {
                for i in 0..<6 { realm.create(QDog.self, value: ["name": "D\(i)", "owner": owners[i % 2]]) }
            }
            for _ in 0..<3 {
                for owner in owners { XCTAssertEqual(realm.objects(QDog.self).where { $0.owner == owner }.count, 3) }
            }
        }
        XCTAssertFalse(Environment.isOpen(at: fileURL.path), "the pool holds no object, and so no Realm")
    }

    /// A filtered Results' count and first read the C result, not its keys: they follow writes,
    /// the sort, and a walk that read the keys in between.
    func testFilteredCountAndFirstFollowWritesAndSorts() throws {
        let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try fill(realm)
        let rexes = realm.objects(QDog.self).where { $0.name == "Rex" }
        let byAge = rexes.sorted(byKeyPath: "age", ascending: false)
        XCTAssertEqual(rexes.count, 14)
        XCTAssertEqual(rexes.first?.age, 0)
        XCTAssertEqual(byAge.first?.age, 6)
        XCTAssertEqual(byAge.count, 14)
        try realm.write { realm.create(QDog.self, value: ["name": "Rex", "age": 9]) }
        XCTAssertEqual(rexes.count, 15)
        XCTAssertEqual(byAge.first?.age, 9)
        XCTAssertEqual(Array(byAge).map(\.age).first, 9, "a walk reads the keys")
        try realm.write { realm.delete(rexes.first!) }
        XCTAssertEqual(rexes.count, 14)
        XCTAssertEqual(rexes.first?.age, 3, "the next Rex in key order")
        try realm.write { realm.delete(realm.objects(QDog.self).where { $0.name == "Rex" }) }
        XCTAssertEqual(rexes.count, 0)
        XCTAssertNil(rexes.first)
        XCTAssertNil(byAge.first)
        XCTAssertNil(byAge.last)
    }

    func testRepeatedFilterReusesItsQueryWithItsOwnArguments() throws {
        let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try fill(realm)
        let pool = realm.instance.environment.queryPool
        let held = (0..<8).map { realm.objects(QDog.self).filter("age < %@", $0) }
        for age in 0..<8 { XCTAssertEqual(held[age].count, expectedCount(ageBelow: age)) }
        let before = pool.reuses
        for age in (0..<8).reversed() {
            XCTAssertEqual(realm.objects(QDog.self).filter("age < %@", age).count, expectedCount(ageBelow: age))
            XCTAssertEqual(realm.objects(QDog.self).filter("age < %@", Double(age) - 0.5).count,
                           expectedCount(ageBelow: age), "another type of argument rebinds too")
        }
        XCTAssertGreaterThan(pool.reuses, before)
        try realm.write { realm.create(QDog.self, value: ["name": "Tiny", "age": 0]) }
        for age in 1..<8 { XCTAssertEqual(held[age].count, expectedCount(ageBelow: age) + 1, "still live") }
    }

    func testReusedQueriesSurviveASchemaChange() throws {
        let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try fill(realm)
        XCTAssertEqual(realm.objects(QDog.self).where { $0.name == "Rex" }.count, 14)
        XCTAssertEqual(realm.objects(QDog.self).filter("name == %@", "Rex").count, 14)
        // Another class declared in the same file: the kept queries still resolve against it.
        let wider = try openRealm([QDog.self, QOwner.self, QAddress.self, Dog.self, Person.self])
        try wider.write { wider.create(Dog.self, value: ["name": "Rex"]) }
        XCTAssertEqual(wider.objects(QDog.self).where { $0.name == "Rex" }.count, 14)
        XCTAssertEqual(realm.objects(QDog.self).where { $0.name == "Fido" }.count, 13)
        XCTAssertEqual(wider.objects(QDog.self).filter("name == %@", "Fido").count, 13)
        XCTAssertEqual(wider.objects(Dog.self).where { $0.name == "Rex" }.count, 1)
    }

    func testQueriesOfOneShapeOnManyThreads() throws {
        try fill(try openRealm([QDog.self, QOwner.self, QAddress.self]))
        let configuration = configuration([QDog.self, QOwner.self, QAddress.self])
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            guard let realm = try? Realm(configuration: configuration) else {
                failures.withLock { $0 += 1 }
                return
            }
            for i in 0..<200 {
                let name = Self.names[(i + thread) % Self.names.count]
                let age = (i + thread) % 8
                let byName = realm.objects(QDog.self).where { $0.name == name }.count
                let byAge = realm.objects(QDog.self).filter("age < %@", age).count
                if byName != expectedCount(name: name) || byAge != expectedCount(ageBelow: age) {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
    }

    func testKeptQueriesLetTheFileClose() throws {
        do {
            let realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
            try fill(realm)
            XCTAssertEqual(realm.objects(QDog.self).where { $0.name == "Rex" }.count, 14)
            XCTAssertEqual(realm.objects(QDog.self).filter("age < %@", 1).count, expectedCount(ageBelow: 1))
        }
        XCTAssertFalse(Environment.isOpen(at: fileURL.path), "the pool holds no Realm open")
    }
}
