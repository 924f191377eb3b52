import Foundation
import XCTest
@testable import Larder

/// The seed pages' Todo, Company and Employee, as their samples use them.
enum QuerySeedModels {
    final class Todo: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var owner = ""
        @Persisted var status = ""
    }

    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
    }

    final class Employee: Object {
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
    }

    final class Company: Object {
        @Persisted var name = ""
        @Persisted var employees: List<Employee>
        @Persisted var dogs: List<Dog>
    }
}

/// Filtered Results: `where {}` and `filter(_:_:)` run in the C core, lazily, and
/// stay live; every query gives the objects a Swift filter over all of them gives.
final class QueryResultsTests: RealmTestCase {
    private var realm: Realm!
    private var owners: [QOwner] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
        try realm.write {
            owners = ["Jo", "Ann", "Bo"].map { realm.create(QOwner.self, value: ["name": $0, "address": ["city": $0 == "Jo" ? "Oslo" : "Rome"]]) }
            for i in 0..<30 {
                var value: [String: Any] = [:]
                value["name"] = ["Rex", "rex", "Wolfie", "Réx", "Fido"][i % 5]
                value["breed"] = i % 3 == 0 ? "Pug" : "Lab"
                value["age"] = i % 7
                value["legs"] = 3 + i % 2
                value["weight"] = i % 4 == 0 ? nil : Double(i) / 2
                value["alive"] = i % 2 == 0
                value["price"] = Decimal128(value: i)
                value["mood"] = i % 3 == 0 ? QMood.excited.rawValue : QMood.calm.rawValue
                value["nickname"] = i % 5 == 0 ? nil : "n\(i)"
                value["tags"] = (0..<(i % 4)).map { (n: Int) -> String in "t\(n)" }
                value["scores"] = Array(0..<(i % 5))
                value["attrs"] = i % 2 == 0 ? ["color": "red"] : ["size": "big"]
                value["extra"] = i % 3 == 0 ? AnyRealmValue.int(i) : AnyRealmValue.string("s\(i)")
                let dog = realm.create(QDog.self, value: value)
                if i % 3 != 2 { owners[i % 3].dogs.append(dog) }
                dog.owner = i % 4 == 3 ? nil : owners[i % 3]
            }
            let dogs = realm.objects(QDog.self)
            for (index, dog) in dogs.enumerated() where index % 2 == 0 {
                dog.friends.append(dogs[(index + 1) % 30])
                dog.friends.append(dogs[(index + 7) % 30])
            }
        }
    }

    /// The DSL query and the Swift predicate select the same objects, in the same order.
    private func check(_ isIncluded: (Query<QDog>) -> Query<Bool>, _ expected: (QDog) -> Bool,
                       file: StaticString = #filePath, line: UInt = #line) {
        let all = realm.objects(QDog.self)
        let filtered = all.where(isIncluded)
        let want = all.filter(expected).map(\.age)
        XCTAssertEqual(filtered.map(\.age), want, file: file, line: line)
        XCTAssertEqual(filtered.count, want.count, file: file, line: line)
        XCTAssertFalse(want.isEmpty && all.filter { !expected($0) }.isEmpty, "the check tells nothing", file: file, line: line)
    }

    func testDSLQueriesSelectWhatSwiftSelects() {
        check({ $0.name == "Rex" }, { $0.name == "Rex" })
        check({ $0.age < 2 }, { $0.age < 2 })
        check({ $0.age >= 2 && $0.age != 5 }, { $0.age >= 2 && $0.age != 5 })
        check({ $0.age == $0.legs }, { $0.age == $0.legs })
        check({ $0.weight == nil }, { $0.weight == nil })
        check({ $0.weight > 5 }, { ($0.weight ?? -1) > 5 })
        check({ $0.alive }, { $0.alive })
        check({ !$0.alive || $0.age == 3 }, { !$0.alive || $0.age == 3 })
        check({ $0.price >= Decimal128(value: 20) }, { $0.price >= Decimal128(value: 20) })
        check({ $0.name.contains("ex", options: .caseInsensitive) }, { $0.name.lowercased().contains("ex") })
        check({ $0.name.starts(with: "rex", options: [.caseInsensitive, .diacriticInsensitive]) },
              { ["Rex", "rex", "Réx"].contains($0.name) })
        check({ $0.name.ends(with: "ie") }, { $0.name.hasSuffix("ie") })
        check({ $0.name.like("?ex") }, { $0.name == "Rex" || $0.name == "rex" })
        check({ $0.name.equals("REX", options: .caseInsensitive) }, { $0.name.lowercased() == "rex" })
        check({ $0.nickname == nil }, { $0.nickname == nil })
        check({ $0.age.in([1, 3, 5]) }, { [1, 3, 5].contains($0.age) })
        check({ $0.age.contains(2...4) }, { (2...4).contains($0.age) })
        check({ $0.age.contains(2..<4) }, { (2..<4).contains($0.age) })
        check({ $0.weight.contains(2.0...6.0) }, { $0.weight.map { (2.0...6.0).contains($0) } ?? false })
        check({ $0.mood == .excited }, { $0.mood == .excited })
        check({ $0.mood.rawValue == 0 }, { $0.mood.rawValue == 0 })
        check({ $0.owner.name == "Jo" }, { $0.owner?.name == "Jo" })
        check({ $0.owner == nil }, { $0.owner == nil })
        check({ $0.owner.address.city == "Rome" }, { $0.owner?.address?.city == "Rome" })
        check({ $0.tags.contains("t2") }, { $0.tags.contains("t2") })
        check({ $0.tags.count > 1 }, { $0.tags.count > 1 })
        check({ $0.scores.containsAny(in: [3, 9]) }, { $0.scores.contains(3) || $0.scores.contains(9) })
        check({ $0.scores.max > 2 }, { ($0.scores.max() ?? -1) > 2 })
        check({ $0.scores.sum == 3 }, { $0.scores.sum() == 3 })
        check({ $0.scores.avg > 1 }, { ($0.scores.average() as Double? ?? -1) > 1 })
        check({ $0.friends.age > 4 }, { $0.friends.contains { $0.age > 4 } })
        check({ $0.friends.count == 0 }, { $0.friends.isEmpty })
        check({ ($0.friends.age > 2 && $0.friends.alive).count > 0 },
              { $0.friends.contains { $0.age > 2 && $0.alive } })
        check({ $0.attrs["color"] == "red" }, { $0.attrs["color"] == "red" })
        check({ $0.attrs.keys == "size" }, { $0.attrs.keys.contains("size") })
        check({ $0.attrs.values == "big" }, { $0.attrs.values.contains("big") })
        check({ $0.owners.name == "Ann" }, { $0.owners.contains { $0.name == "Ann" } })
        check({ $0.owners.count == 0 }, { $0.owners.isEmpty })
        check({ $0.extra == .int(3) }, { $0.extra == .int(3) })
        check({ $0.breed == "Pug" && $0.name != "Fido" }, { $0.breed == "Pug" && $0.name != "Fido" })
        let fido = realm.objects(QDog.self).where { $0.name == "Fido" }.first!
        check({ $0.friends.contains(fido) }, { $0.friends.contains { $0.isSameObject(as: fido) } })
        check({ $0.owner == self.owners[1] }, { $0.owner?.name == "Ann" })
        check({ $0.owner != self.owners[1] }, { $0.owner?.name != "Ann" })
    }

    func testFormatQueriesSelectWhatSwiftSelects() {
        let all = realm.objects(QDog.self)
        func check(_ format: String, _ args: Any..., expected: (QDog) -> Bool, file: StaticString = #filePath, line: UInt = #line) {
            let filtered = all.filter(format, arguments: args.map { $0 as Any? })
            XCTAssertEqual(filtered.map(\.age), all.filter(expected).map(\.age), format, file: file, line: line)
        }
        check("age < 2", expected: { $0.age < 2 })
        check("age < %@ AND name BEGINSWITH[c] %@", 4, "r", expected: { $0.age < 4 && $0.name.lowercased().hasPrefix("r") })
        check("%K == %@", "breed", "Pug", expected: { $0.breed == "Pug" })
        check("age IN %@", [1, 2], expected: { [1, 2].contains($0.age) })
        check("weight == %@", NSNull(), expected: { $0.weight == nil })
        check("owner == %@", owners[1], expected: { $0.owner?.name == "Ann" })
        check("ANY friends.name == 'Fido'", expected: { $0.friends.contains { $0.name == "Fido" } })
        check("SUBQUERY(friends, $f, $f.age > 3).@count > 1", expected: { $0.friends.filter { $0.age > 3 }.count > 1 })
        check("price > %@", Decimal128(value: 25), expected: { $0.price > Decimal128(value: 25) })
        check("nickname == $0", "n7", expected: { $0.nickname == "n7" })
        check("ANY owners.name == %@", "Ann", expected: { $0.owners.contains { $0.name == "Ann" } })
    }

    func testFilteredResultsAreLiveAndLazy() throws {
        let puppies = realm.objects(QDog.self).filter("age < 2")
        XCTAssertEqual(puppies.snapshotBuilds, 0, "nothing runs before a read")
        let before = puppies.count
        XCTAssertEqual(puppies.snapshotBuilds, 1)
        _ = puppies.first
        _ = puppies.map(\.name)
        XCTAssertEqual(puppies.snapshotBuilds, 1, "reads without a write reuse the run")
        try realm.write {
            realm.add(QDog(value: ["name": "Tiny", "age": 0]))
            XCTAssertEqual(puppies.count, before + 1, "live inside the write")
            puppies.first!.age = 5
            XCTAssertEqual(puppies.count, before, "a changed property moves the object out")
        }
        XCTAssertEqual(puppies.count, before)
        let names = realm.objects(QDog.self).where { $0.name == "Tiny" }
        XCTAssertEqual(names.count, 1)
        try realm.write { realm.delete(names) }
        XCTAssertEqual(names.count, 0)
    }

    func testFiltersChainWithSortsAndDistinct() {
        let all = realm.objects(QDog.self)
        let sorted = all.where { $0.age > 2 }.sorted(byKeyPath: "age", ascending: false)
        XCTAssertEqual(sorted.map(\.age), all.filter { $0.age > 2 }.map(\.age).sorted(by: >))
        let sortedFirst = all.sorted(byKeyPath: "age").where { $0.alive }
        XCTAssertEqual(sortedFirst.map(\.age), all.filter(\.alive).map(\.age).sorted())
        let both = all.where { $0.age > 1 }.filter("alive == true").where { $0.breed == "Lab" }
        XCTAssertEqual(both.map(\.age), all.filter { $0.age > 1 && $0.alive && $0.breed == "Lab" }.map(\.age))
        let distinct = all.where { $0.age > 3 }.distinct(by: ["age"])
        XCTAssertEqual(distinct.map(\.age), [4, 5, 6])
        XCTAssertEqual(all.index(matching: { $0.name == "Wolfie" }), 2)
        XCTAssertEqual(all.index(matching: "age == %@", 6), 6)
        XCTAssertNil(all.index(matching: { $0.age > 100 }))
    }

    /// A walk starts from the C result a query or sort kept, which holds the rows it read:
    /// after a write those rows are old, and the walk reads the objects as they are now.
    func testWalksOfKeptResultsReadTheCurrentValues() throws {
        let all = realm.objects(QDog.self)
        let sorted = all.sorted(byKeyPath: "age")
        let filtered = all.filter("age > 2")
        let sortedFilter = all.where { $0.age > 2 }.sorted(byKeyPath: "age", ascending: false)
        XCTAssertEqual(sorted.map(\.legs).count, 30) // run and walked in this version
        XCTAssertEqual(filtered.map(\.name).count, all.filter { $0.age > 2 }.count)
        _ = sortedFilter.count
        try realm.write { for dog in all { dog.legs += 10; dog.name += "!" } }
        XCTAssertEqual(sorted.map(\.legs), all.sorted { $0.age < $1.age }.map(\.legs))
        XCTAssertTrue(sorted.allSatisfy { $0.legs >= 13 })
        XCTAssertTrue(filtered.allSatisfy { $0.name.hasSuffix("!") })
        XCTAssertTrue(sortedFilter.allSatisfy { $0.legs >= 13 })
        var ages: [Int] = []
        for dog in sortedFilter {
            ages.append(dog.age)
            XCTAssertTrue(dog.name.hasSuffix("!"))
        }
        XCTAssertEqual(ages, all.filter { $0.age > 2 }.map(\.age).sorted(by: >))
    }

    func testCollectionsFilterInTheirOrder() throws {
        let jo = owners[0]
        let inList = jo.dogs.where { $0.alive }
        XCTAssertEqual(inList.map(\.age), jo.dogs.filter(\.alive).map(\.age))
        XCTAssertEqual(jo.dogs.filter("age > %@", 3).map(\.age), jo.dogs.filter { $0.age > 3 }.map(\.age))
        try realm.write { jo.dogs.move(from: jo.dogs.count - 1, to: 0) }
        XCTAssertEqual(inList.map(\.age), jo.dogs.filter(\.alive).map(\.age), "the list's new order")
        let dog = realm.objects(QDog.self).first!
        XCTAssertEqual(dog.owners.where { $0.name == "Jo" }.count, 1)
        XCTAssertEqual(jo.dogs.index(matching: { $0.age == jo.dogs[2].age && $0.name == jo.dogs[2].name }), 2)
        let any = AnyRealmCollection(jo.dogs)
        XCTAssertEqual(any.where { $0.age > 3 }.count, jo.dogs.filter { $0.age > 3 }.count)
    }

    /// A list's filters check the list's objects (C `lar_query_run_keys`), in its order,
    /// repeats kept, chained filters each on what the one before kept, live in a write.
    func testListFiltersKeepRepeatsAndChain() throws {
        let jo = owners[0]
        let first = jo.dogs[0], second = jo.dogs[1]
        try realm.write {
            first.age = 40
            second.age = 50
            jo.dogs.append(first)
            jo.dogs.insert(second, at: 0)
        }
        let old = jo.dogs.filter("age >= 40")
        XCTAssertEqual(old.map(\.age), jo.dogs.filter { $0.age >= 40 }.map(\.age))
        XCTAssertEqual(old.map(\.age), [50, 40, 50, 40], "in the list's order, each repeat kept")
        let chained = old.filter("age < %@", 45).where { $0.name == first.name }
        XCTAssertEqual(chained.count, 2)
        XCTAssertEqual(old.sorted(byKeyPath: "age").map(\.age), [40, 40, 50, 50])
        try realm.write {
            second.age = 41
            XCTAssertEqual(chained.count, 2)
            XCTAssertEqual(old.filter("age < 45").count, 4, "live in the write")
            jo.dogs.removeAll()
            XCTAssertEqual(old.count, 0)
        }
        XCTAssertEqual(realm.objects(QDog.self).filter("age >= 40").count, 2, "the objects stay")
    }

    // MARK: The seed pages, as written

    func testSeedQueries() async throws {
        typealias Dog = QuerySeedModels.Dog
        typealias Todo = QuerySeedModels.Todo
        let realm = try Realm(configuration: Realm.Configuration(
            fileURL: fileURL.appendingPathExtension("seed"),
            objectTypes: [Dog.self, Todo.self, QuerySeedModels.Employee.self, QuerySeedModels.Company.self]))
        try realm.write {
            realm.add(Dog(value: ["name": "Wolfie", "age": 1]))
            realm.add(Dog(value: ["name": "Rex", "age": 3]))
            realm.add(Todo(value: ["name": "Keep it safe", "owner": "Frodo", "status": "In Progress"]))
        }
        let puppies = realm.objects(Dog.self).filter("age < 2")
        XCTAssertEqual(puppies.map(\.name), ["Wolfie"])
        let wolfie = realm.objects(Dog.self).where {
            $0.name == "Wolfie"
        }.first!
        XCTAssertEqual(wolfie.age, 1)
        let rex = realm.objects(Dog.self).where {
            $0.name == "Rex"
        }.first!
        XCTAssertEqual(rex.age, 3)
        let name = "Keep it safe"
        let todo = realm.objects(Todo.self).where {
            $0.name == name
        }.first!
        XCTAssertEqual(todo.owner, "Frodo")
    }

    /// seeds/004: a company's employee and dog found with `where` on its lists.
    func testSeedExplicitWrite() throws {
        typealias Company = QuerySeedModels.Company
        let realm = try Realm(configuration: Realm.Configuration(
            fileURL: fileURL.appendingPathExtension("company"),
            objectTypes: [QuerySeedModels.Dog.self, QuerySeedModels.Employee.self, Company.self, QuerySeedModels.Todo.self]))
        try realm.write {
            realm.add(Company(value: ["name": "Acme", "employees": [["name": "Dachary"], ["name": "Ann"]],
                                      "dogs": [["name": "Maui"], ["name": "Rex"]]]))
        }
        let company = realm.objects(Company.self).first!
        func performAnExplicitWrite(company: Company, employeeName: String, dogName: String) {
            let realm = company.realm!
            let thisEmployee = company.employees.where { $0.name == employeeName }.first!
            let thisDog = company.dogs.where { $0.name == dogName }.first!
            try! realm.write {
                thisEmployee.dogs.append(thisDog)
            }
        }
        performAnExplicitWrite(company: company, employeeName: "Dachary", dogName: "Maui")
        XCTAssertEqual(company.employees[0].dogs.map(\.name), ["Maui"])
    }

    // MARK: Traps

    func testInvalidQueriesTrapWithTheCoresMessage() throws {
        let cases = [
            ("query-unknown-property", "unknown property 'agee' on class 'QDog' at column 1"),
            ("query-argument-type", "cannot compare int property 'age' with string \"x\" (argument 0) at column 1"),
            ("query-argument-count", "the query takes 2 arguments, 1 given"),
            ("query-subquery-without-collection", "Subqueries must contain a keypath starting with a collection."),
            ("query-unmanaged-object", "Only managed objects may be used in a query"),
        ]
        for (scenario, message) in cases {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, "\(scenario) did not trap")
            XCTAssertTrue(outcome.output.contains(message), "\(scenario) printed: \(outcome.output)")
        }
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario.hasPrefix("query-") else { return false }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path + "-" + scenario),
                                                                 objectTypes: [QDog.self, QOwner.self, QAddress.self]))
        let dogs = realm.objects(QDog.self)
        switch scenario {
        case "query-unknown-property": _ = dogs.filter("agee < 2").count
        case "query-argument-type": _ = dogs.filter("age < %@", "x").count
        case "query-argument-count": _ = dogs.filter("age < %@ AND name == %@", 1).count
        case "query-subquery-without-collection": _ = dogs.where { ($0.age > 1).count > 0 }.count
        case "query-unmanaged-object": _ = dogs.where { $0.owner == QOwner() }.count
        default: return false
        }
        return true
    }
}

final class QueryMapTests: RealmTestCase {
    final class Kennel: Object {
        @Persisted var dogs: Map<String, QDog?>
        @Persisted var set: MutableSet<QDog>
    }

    func testSetsFilterTheirObjects() throws {
        let realm = try openRealm([Kennel.self, QDog.self, QOwner.self, QAddress.self])
        let kennel = Kennel()
        try realm.write {
            realm.add(kennel)
            realm.add(QDog(value: ["name": "outside", "age": 9]))
            kennel.set.insert(objectsIn: [1, 5, 9].map { QDog(value: ["name": "d\($0)", "age": $0]) })
        }
        XCTAssertEqual(kennel.set.where { $0.age > 2 }.sorted(byKeyPath: "age").map(\.name), ["d5", "d9"])
        XCTAssertEqual(kennel.set.filter("name BEGINSWITH 'd'").count, 3)
        XCTAssertEqual(realm.objects(QDog.self).filter("age == 9").count, 2)
    }

    func testMapsFilterTheirObjects() throws {
        let realm = try openRealm([Kennel.self, QDog.self, QOwner.self, QAddress.self])
        let kennel = Kennel()
        try realm.write {
            realm.add(kennel)
            for (key, age) in [("a", 1), ("b", 5), ("c", 3), ("d", 5)] {
                kennel.dogs[key] = QDog(value: ["name": key, "age": age])
            }
            kennel.dogs["none"] = .some(nil)
        }
        let old = kennel.dogs.where { $0.age > 2 }
        XCTAssertEqual(old.map { $0!.name }, ["b", "c", "d"])
        XCTAssertEqual(kennel.dogs.filter("age == %@", 5).map { $0!.name }, ["b", "d"])
        XCTAssertEqual(old.sorted(byKeyPath: "age").map { $0!.name }, ["c", "b", "d"])
        try realm.write {
            kennel.dogs["b"]!!.age = 0
            XCTAssertEqual(old.map { $0!.name }, ["c", "d"], "live in the write: a property changed")
        }
        try realm.write { kennel.dogs["e"] = QDog(value: ["name": "e", "age": 9]) }
        XCTAssertEqual(old.map { $0!.name }, ["c", "d", "e"])
    }
}
