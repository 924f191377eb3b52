import Foundation
import XCTest
@testable import Larder

/// The `where {}` DSL builds the C core's AST: each query describes (lar_query_describe)
/// as the canonical text of the same query written in Realm's query language.
final class QueryDSLTests: RealmTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try openRealm([QDog.self, QOwner.self, QAddress.self])
    }

    private func check(_ isIncluded: (Query<QDog>) -> Query<Bool>, _ expected: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(realm._queryDescription(QDog.self, isIncluded), expected, file: file, line: line)
    }

    func testComparisons() {
        check({ $0.name == "Wolfie" }, "name == \"Wolfie\"")
        check({ $0.breed != "Pug" }, "breed != \"Pug\"")
        check({ $0.age < 2 }, "age < 2")
        check({ $0.legs <= 3 }, "legs <= 3")
        check({ $0.age > 2 }, "age > 2")
        check({ $0.age >= 2 }, "age >= 2")
        check({ $0.weight > 1.5 }, "weight > 1.5")
        check({ $0.weight == nil }, "weight == NULL")
        check({ $0.nickname != nil }, "nickname != NULL")
        check({ $0.alive == false }, "alive == false")
        check({ $0.alive }, "alive == true")
        check({ !$0.alive }, "NOT alive == true")
        check({ $0.born > Date(timeIntervalSince1970: 10) }, "born > T10:0")
        check({ $0.price > Decimal128(value: 2) }, "price > decimal128(2)")
        check({ $0.age == $0.legs }, "age == legs")
        check({ $0.age < $0.legs }, "age < legs")
        let oid = ObjectId("507f1f77bcf86cd799439011")
        check({ $0.oid == oid }, "oid == oid(507f1f77bcf86cd799439011)")
        let uid = UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!
        check({ $0.uid == uid }, "uid == uuid(3b241101-e2bb-4255-8caf-4136c566a962)")
        check({ $0.data == Data([0, 1]) }, "data == B64\"AAE=\"")
    }

    func testStringsNeedNoQuoting() {
        check({ $0.name == "it's \"quoted\" \\ AND age > 1" }, "name == \"it's \\\"quoted\\\" \\\\ AND age > 1\"")
        check({ $0.name.contains("ex") }, "name CONTAINS \"ex\"")
        check({ $0.name.contains("ex", options: .caseInsensitive) }, "name CONTAINS[c] \"ex\"")
        check({ $0.name.starts(with: "R", options: [.caseInsensitive, .diacriticInsensitive]) }, "name BEGINSWITH[cd] \"R\"")
        check({ $0.name.ends(with: "x", options: .diacriticInsensitive) }, "name ENDSWITH[d] \"x\"")
        check({ $0.name.like("R?x*") }, "name LIKE \"R?x*\"")
        check({ $0.name.like("r*", caseInsensitive: true) }, "name LIKE[c] \"r*\"")
        check({ $0.name.equals("rex", options: .caseInsensitive) }, "name ==[c] \"rex\"")
        check({ $0.name.notEquals("rex", options: .caseInsensitive) }, "name !=[c] \"rex\"")
        check({ $0.nickname.contains("x") }, "nickname CONTAINS \"x\"")
        check({ $0.data.contains(Data([1])) }, "data CONTAINS B64\"AQ==\"")
    }

    func testLogic() {
        check({ $0.age > 2 && $0.name.starts(with: "R") }, "age > 2 AND name BEGINSWITH \"R\"")
        check({ $0.age < 1 || $0.age > 5 || $0.age == 3 }, "age < 1 OR age > 5 OR age == 3")
        check({ ($0.age < 1 || $0.age > 5) && $0.alive }, "(age < 1 OR age > 5) AND alive == true")
        check({ !($0.age < 1 || $0.age > 5) }, "NOT (age < 1 OR age > 5)")
    }

    func testMembershipAndRanges() {
        check({ $0.age.in([1, 2, 3]) }, "age IN {1, 2, 3}")
        check({ $0.name.in(["a", "b"]) }, "name IN {\"a\", \"b\"}")
        check({ $0.age.contains(1...5) }, "age BETWEEN {1, 5}")
        check({ $0.age.contains(1..<5) }, "age >= 1 AND age < 5")
        check({ $0.weight.contains(1.0...2.5) }, "weight BETWEEN {1.0, 2.5}")
    }

    func testLinksAndCollections() throws {
        check({ $0.owner.name == "Jo" }, "owner.name == \"Jo\"")
        check({ $0.owner.address.city == "Oslo" }, "owner.address.city == \"Oslo\"")
        check({ $0.friends.age > 2 }, "friends.age > 2")
        check({ $0.friends.owner.name == "Jo" }, "friends.owner.name == \"Jo\"")
        check({ $0.tags.contains("x") }, "\"x\" IN tags")
        check({ $0.tags == "x" }, "tags == \"x\"")
        check({ $0.scores.contains(3) }, "3 IN scores")
        check({ $0.tags.containsAny(in: ["a", "b"]) }, "ANY tags IN {\"a\", \"b\"}")
        check({ $0.tags.count > 2 }, "tags.@count > 2")
        check({ $0.friends.count == 0 }, "friends.@count == 0")
        check({ $0.scores.min > 1 }, "scores.@min > 1")
        check({ $0.scores.max < 9 }, "scores.@max < 9")
        check({ $0.scores.sum == 10 }, "scores.@sum == 10")
        check({ $0.scores.avg > 2 }, "scores.@avg > 2")
        check({ $0.owners.name == "Jo" }, "@links.QOwner.dogs.name == \"Jo\"")
        check({ $0.owners.count > 0 }, "@links.QOwner.dogs.@count > 0")
        let owner = QOwner()
        try realm.write { realm.add(owner) }
        XCTAssertTrue(realm._queryDescription(QDog.self, { $0.owner == owner }).hasPrefix("owner == obj(\"QOwner\""))
    }

    func testMaps() {
        check({ $0.attrs["color"] == "red" }, "attrs[\"color\"] == \"red\"")
        check({ $0.attrs["it's"] == nil }, "attrs[\"it's\"] == NULL")
        check({ $0.attrs.keys == "color" }, "attrs.@keys == \"color\"")
        check({ $0.attrs.values == "red" }, "attrs.@values == \"red\"")
        check({ $0.attrs.values.contains("e") }, "attrs.@values CONTAINS \"e\"")
        check({ $0.attrs.count == 1 }, "attrs.@count == 1")
    }

    func testSubqueries() {
        check({ ($0.friends.age > 1 && $0.friends.name == "Rex").count > 0 },
              "SUBQUERY(friends, $col1, $col1.age > 1 AND $col1.name == \"Rex\").@count > 0")
        check({ ($0.friends.name.starts(with: "R")).count == 2 },
              "SUBQUERY(friends, $col1, $col1.name BEGINSWITH \"R\").@count == 2")
        check({ ($0.friends.age > 1 && $0.age > 3).count > 0 },
              "SUBQUERY(friends, $col1, $col1.age > 1 AND age > 3).@count > 0")
    }

    func testEnumsAndMixed() {
        check({ $0.mood == .excited }, "mood == 1")
        check({ $0.mood.rawValue == 1 }, "mood == 1")
        check({ $0.optMood == nil }, "optMood == NULL")
        check({ $0.optMood.rawValue == 0 }, "optMood == 0")
        check({ $0.extra == .int(3) }, "extra == 3")
        check({ $0.extra == .string("x") }, "extra == \"x\"")
        check({ $0.extra == .none }, "extra == NULL")
        check({ $0.extra > .double(1.5) }, "extra > 1.5")
    }

    func testKeyPathsOfOneTypeAreTold() {
        // name and breed are both String, age and legs both Int: the probe tells them apart.
        check({ $0.breed == "a" && $0.name == "b" }, "breed == \"a\" AND name == \"b\"")
        check({ $0.legs == 1 && $0.age == 2 }, "legs == 1 AND age == 2")
        check({ $0.walker.name == "a" && $0.owner.name == "b" }, "walker.name == \"a\" AND owner.name == \"b\"")
        check({ $0.rivals.count == 1 && $0.friends.count == 2 }, "rivals.@count == 1 AND friends.@count == 2")
        let schema = QDog.schema
        XCTAssertEqual(schema.propertyName(ofAny: \QDog.rivals, root: QDog.self, for: "distinct(by:)"), "rivals")
        XCTAssertEqual(schema.propertyName(ofAny: \QDog.walker, root: QDog.self, for: "distinct(by:)"), "walker")
    }

    func testFilterFormatBindsValues() {
        func check(_ format: String, _ args: Any?..., expected: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(realm._queryDescription(QDog.self, format, args), expected, file: file, line: line)
        }
        check("age < 2", expected: "age < 2")
        check("name == %@", "it's", expected: "name == $0")
        check("age > %@ AND name BEGINSWITH[c] %@", 2, "r", expected: "age > $0 AND name BEGINSWITH[c] $1")
        check("%K == %@", "name", "x", expected: "name == $1")
        check("name == '%K' AND age IN %@", [1, 2], expected: "name == \"%K\" AND age IN $0")
        check("weight == %@", nil, expected: "weight == $0")
        check("age BETWEEN %@", [1, 5], expected: "age BETWEEN $0")
        check("oid == $0", ObjectId("507f1f77bcf86cd799439011"), expected: "oid == $0")
        // LinkingObjects live in Swift's schema, not the core's: the text names their backlinks.
        check("ANY owners.name == 'owners' AND %K == 1 AND SUBQUERY(owners, $o, $o.name == \"x\").@count > 0",
              "owners.@count",
              expected: "ANY @links.QOwner.dogs.name == \"owners\" AND @links.QOwner.dogs.@count == 1 AND " +
                  "SUBQUERY(@links.QOwner.dogs, $o, $o.name == \"x\").@count > 0")
        let linking = QDog.schema.linkingObjects
        XCTAssertEqual(QueryArgument.naming(linking, in: "owner.owners == 'owners' OR $owners.x == 1 OR owners(1)"),
                       "owner.owners == 'owners' OR $owners.x == 1 OR owners(1)")
        XCTAssertEqual(QueryArgument.naming(linking, in: "!owners.@count>0"), "!@links.QOwner.dogs.@count>0")
    }

    func testFilterArgumentsBindAsTheirValues() throws {
        func check(_ format: String, _ args: Any?..., expected: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(realm._queryDescription(QDog.self, format, args, values: true), expected, file: file, line: line)
        }
        check("age == %@", 3, expected: "age == 3")
        check("age == %@", Int8(-3), expected: "age == -3")
        check("weight > %@", 1.5, expected: "weight > 1.5")
        check("weight > %@", Float(0.5), expected: "weight > 0.5f")
        check("alive == %@", true, expected: "alive == true")
        check("name == %@", "a\"b", expected: "name == \"a\\\"b\"")
        check("data == %@", Data([0, 1]), expected: "data == B64\"AAE=\"")
        check("born == %@", Date(timeIntervalSince1970: 10.5), expected: "born == T10:500000000")
        check("oid == %@", ObjectId("507f1f77bcf86cd799439011"), expected: "oid == oid(507f1f77bcf86cd799439011)")
        check("uid == %@", UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!,
              expected: "uid == uuid(3b241101-e2bb-4255-8caf-4136c566a962)")
        check("price == %@", Decimal128(value: 2), expected: "price == decimal128(2)")
        check("mood == %@", QMood.excited, expected: "mood == 1")
        check("extra == %@", AnyRealmValue.string("x"), expected: "extra == \"x\"")
        check("nickname == %@", nil, expected: "nickname == NULL")
        check("nickname == %@", Optional<String>.none as Any, expected: "nickname == NULL")
        check("nickname == %@", Optional("n") as Any, expected: "nickname == \"n\"")
        check("age == %@", NSNumber(value: 3), expected: "age == 3") // from JSONSerialization
        check("weight > %@", NSNumber(value: 1.5), expected: "weight > 1.5")
        check("alive == %@", NSNumber(value: true), expected: "alive == true")
        check("age IN %@", [1, 2], expected: "age IN {1, 2}")
        check("age IN %@", Set([7]), expected: "age IN {7}")
        check("age BETWEEN %@", [1, 5], expected: "age BETWEEN {1, 5}")
        check("%K BEGINSWITH %@", "owner.name", "J", expected: "owner.name BEGINSWITH \"J\"")
        let owner = QOwner()
        try realm.write { realm.add(owner) }
        XCTAssertTrue(realm._queryDescription(QDog.self, "owner == %@", [owner], values: true).hasPrefix("owner == obj(\"QOwner\""))
        XCTAssertTrue(realm._queryDescription(QDog.self, "owner IN %@", [[owner]], values: true).hasPrefix("owner IN {obj("))
    }

    func testFormatKeyPathPositions() {
        XCTAssertEqual(QueryArgument.keyPathPositions(in: "%K == %@ AND name == '%K' AND \"%@\" == x AND %K IN %@"),
                       [true, false, true, false])
        XCTAssertEqual(QueryArgument.keyPathPositions(in: "name == 'a\\'%K' AND %@"), [false])
    }
}
