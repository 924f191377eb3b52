import Foundation
import XCTest
@testable import Larder

/// `Map<String, V>` properties, unmanaged and managed.
final class MapTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: linkConfiguration(fileURL)) }

    func testUnmanagedMapsAreCopiedIn() throws {
        let realm = try open()
        let atlas = Atlas()
        atlas.parks["Oslo"] = "Frogner"
        atlas.parks["Bergen"] = "Nordnes"
        atlas.parks["Rome"] = "Borghese"
        atlas.parks["Rome"] = nil
        XCTAssertEqual(atlas.parks.count, 2)
        try realm.write { realm.add(atlas) }
        XCTAssertEqual(atlas.parks.realm, realm)
        XCTAssertEqual(atlas.parks.keys, ["Bergen", "Oslo"])
        XCTAssertEqual(atlas.parks.values, ["Nordnes", "Frogner"])
        XCTAssertEqual(atlas.parks["Oslo"], "Frogner")
        XCTAssertNil(atlas.parks["Rome"])
    }

    func testManagedMapMutations() throws {
        let realm = try open()
        let atlas = Atlas()
        try realm.write { realm.add(atlas) }
        let parks = atlas.parks
        try realm.write {
            parks["b"] = "2"
            parks["a"] = "1"
            parks.updateValue("3", forKey: "c")
            parks["b"] = "two"
            parks.removeObject(for: "c")
        }
        XCTAssertEqual(parks.map { "\($0.key)=\($0.value)" }, ["a=1", "b=two"])
        var pairs: [String] = []
        for (key, value) in parks { pairs.append(key + value) }
        XCTAssertEqual(pairs, ["a1", "btwo"])
        XCTAssertEqual(parks.value(forKey: "a") as? String, "1")
        try realm.write { parks["a"] = nil }
        XCTAssertEqual(parks.count, 1)
        try realm.write { parks.setValue("9", forKey: "z"); parks.merge([("z", "1")], uniquingKeysWith: +) }
        XCTAssertEqual(parks["z"], "91")
        try realm.write { parks.removeAll() }
        XCTAssertTrue(parks.isEmpty)
    }

    func testMapsOfOptionalsFollowRealm() throws {
        let realm = try open()
        let atlas = Atlas()
        try realm.write { realm.add(atlas) }
        try realm.write {
            atlas.counts["one"] = 1
            atlas.counts["none"] = .some(nil)   // a key with a nil value
            atlas.counts.updateValue(nil, forKey: "also")
        }
        XCTAssertEqual(atlas.counts.count, 3)
        XCTAssertEqual(atlas.counts["one"], .some(1))
        XCTAssertEqual(atlas.counts["none"], .some(nil))
        XCTAssertTrue(atlas.counts["missing"] == Int??.none, "a missing key reads nil, not a nil value")
        try realm.write { atlas.counts["none"] = nil }  // nil removes the key
        XCTAssertEqual(atlas.counts.keys, ["also", "one"])
    }

    func testAssigningAMapReplacesItsEntries() throws {
        let realm = try open()
        let a = Atlas(value: ["id": 1, "parks": ["x": "1"]]), b = Atlas(value: ["id": 2, "parks": ["y": "2", "z": "3"]])
        try realm.write { realm.add([a, b]) }
        try realm.write { a.parks = b.parks }
        XCTAssertEqual(a.parks.keys, ["y", "z"])
        XCTAssertEqual(a.parks.values, ["2", "3"])
        let copy = Atlas(value: a)
        XCTAssertNil(copy.parks.realm)
        XCTAssertEqual(copy.parks.keys, ["y", "z"], "an object value copies a managed map")
    }

    func testManyEntriesIterateAcrossBatches() throws {
        let realm = try open()
        let atlas = Atlas()
        let keys = (0..<200).map { String(format: "k%03d", $0) }
        try realm.write {
            realm.add(atlas)
            for key in keys.reversed() { atlas.counts[key] = 1 }
        }
        XCTAssertEqual(atlas.counts.keys, keys)
    }

    func testDeletingAnObjectLeavesItsKeyWithNil() throws {
        let realm = try open()
        let atlas = Atlas()
        atlas.toys["ball"] = Toy(value: ["name": "Ball"])
        try realm.write { realm.add(atlas) }
        XCTAssertEqual(realm.objects(Toy.self).count, 1, "objects in the map were added")
        XCTAssertEqual(atlas.toys["ball"]??.name, "Ball")
        try realm.write { realm.delete(realm.objects(Toy.self)) }
        XCTAssertEqual(atlas.toys.keys, ["ball"])
        XCTAssertEqual(atlas.toys["ball"], .some(nil))
    }

    func testValuesAndPoliciesFillMaps() throws {
        let realm = try open()
        let created = try realm.write { realm.create(Atlas.self, value: ["id": 1, "parks": ["a": "1", "b": "2"]]) }
        XCTAssertEqual(created.parks.keys, ["a", "b"])
        try realm.write { realm.create(Atlas.self, value: ["id": 1, "parks": ["c": "3"]], update: .modified) }
        XCTAssertEqual(created.parks.keys, ["a", "b", "c"], ".modified merges maps, as Realm")
        try realm.write { realm.create(Atlas.self, value: ["id": 1, "parks": ["c": "3"]], update: .all) }
        XCTAssertEqual(created.parks.keys, ["c"])
    }

    func testBadKeysAndWritesOutsideATransactionTrap() throws {
        let cases = [
            ("map-dollar-key", "Dictionary::insert: key must not start with '$'"),
            ("map-dot-key", "Dictionary::insert: key must not contain '.'"),
            ("map-add-dot-key", "Dictionary::insert: key must not contain '.'"),
            ("map-put-outside-write", "Cannot modify Dictionary outside of a write transaction."),
            ("map-dollar-combining-key", "Dictionary::insert: key must not start with '$'"),
        ]
        for (scenario, message) in cases {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains(message), "\(scenario): \(outcome.output)")
        }
    }

    func testKeysAreCheckedByTheirBytes() throws {
        let realm = try open()
        let atlas = Atlas()
        try realm.write { realm.add(atlas) }
        try realm.write {
            atlas.counts["a$"] = 1          // '$' only matters first
            atlas.counts["é"] = 2
            atlas.counts["\u{2024}"] = 3    // ONE DOT LEADER is not '.'
            atlas.counts[""] = 4
        }
        XCTAssertEqual(atlas.counts.keys, ["", "a$", "é", "\u{2024}"])
        XCTAssertEqual(atlas.counts.values, [4, 1, 2, 3])
    }

    func testEveryValueKindIsPut() throws {
        let realm = try open()
        let atlas = Atlas()
        try realm.write { realm.add(atlas) }
        let toy = Toy(value: ["name": "Ball"])
        try realm.write {
            atlas.parks["s"] = "string"
            atlas.parks[""] = ""
            atlas.counts["n"] = 5
            atlas.counts["nil"] = .some(nil)
            atlas.toys["t"] = toy           // an unmanaged object is added
            atlas.toys["none"] = .some(nil)
        }
        XCTAssertEqual(atlas.parks["s"], "string")
        XCTAssertEqual(atlas.parks[""], "")
        XCTAssertEqual(atlas.counts["n"], .some(5))
        XCTAssertEqual(atlas.counts["nil"], .some(nil))
        XCTAssertEqual(toy.realm, realm)
        XCTAssertEqual(atlas.toys["t"]??.name, "Ball")
        XCTAssertEqual(atlas.toys["none"], .some(nil))
        XCTAssertEqual(realm.objects(Toy.self).count, 1)
    }
}
