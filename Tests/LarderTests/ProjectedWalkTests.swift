import Foundation
import XCTest
@testable import Larder

final class WalkItem: Object {
    @Persisted var n = 0
    @Persisted var ratio = 0.0
    @Persisted var name = ""
    @Persisted var note: String?
    @Persisted var count: Int?
    @Persisted var flag = false
    @Persisted var other: WalkItem?
}

final class KeyedWalkItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var score = 0
}

/// A walk of results decodes only the properties its loop reads (`ResultsWalker`'s
/// projection): whatever the loop reads, in whatever order, from whichever objects, it
/// reads each object's own values.
final class ProjectedWalkTests: RealmTestCase {
    private static let size = 300

    private func name(_ i: Int) -> String { "item \(i) " + String(repeating: "x", count: i % 23) }

    private func fill(_ realm: Realm) throws {
        try realm.write {
            var previous: WalkItem?
            for i in 0..<Self.size {
                let item = WalkItem()
                item.n = i
                item.ratio = Double(i) / 4
                item.name = name(i)
                item.note = i % 3 == 0 ? nil : "note \(i)"
                item.count = i % 5 == 0 ? nil : i * 2
                item.flag = i % 2 == 0
                item.other = previous
                realm.add(item)
                previous = item
            }
        }
    }

    private func open() throws -> Realm {
        let realm = try openRealm([WalkItem.self, KeyedWalkItem.self])
        try fill(realm)
        return realm
    }

    /// Every property of item, as one string to compare.
    private func describe(_ item: WalkItem) -> String {
        "\(item.n) \(item.ratio) \(item.name) \(item.note ?? "-") \(item.count.map(String.init) ?? "-") \(item.flag) " +
            "\(item.other?.n ?? -1)"
    }

    private func expected(_ i: Int) -> String {
        "\(i) \(Double(i) / 4) \(name(i)) \(i % 3 == 0 ? "-" : "note \(i)") \(i % 5 == 0 ? "-" : String(i * 2)) " +
            "\(i % 2 == 0) \(i - 1)"
    }

    func testALoopThatStartsReadingMorePropertiesReadsEachObjectsOwn() throws {
        let realm = try open()
        for round in 0..<3 { // later walks start from what earlier loops read
            var seen = 0
            for item in realm.objects(WalkItem.self) {
                let i = item.n
                XCTAssertEqual(seen, i)
                // The loop reads more properties as it goes, in varying order.
                if i >= 10 { XCTAssertEqual(item.name, name(i), "round \(round)") }
                if i >= 50 && i % 2 == 1 { XCTAssertEqual(item.count, i % 5 == 0 ? nil : i * 2) }
                if i >= 100 { XCTAssertEqual(describe(item), expected(i)) }
                seen += 1
            }
            XCTAssertEqual(seen, Self.size)
        }
    }

    func testNestedWalksOfOneClassReadTheirOwnObjects() throws {
        let realm = try open()
        let items = realm.objects(WalkItem.self)
        var outer = 0
        for a in items where a.n % 37 == 0 {
            var inner = 0
            for b in items.filter("n < 40") {
                XCTAssertEqual(b.name, name(inner))
                XCTAssertEqual(a.n % 37, 0, "the outer object after the inner walk stepped")
                XCTAssertEqual(a.ratio, Double(a.n) / 4)
                inner += 1
            }
            XCTAssertEqual(inner, 40)
            XCTAssertEqual(describe(a), expected(a.n))
            outer += 1
        }
        XCTAssertEqual(outer, (Self.size + 36) / 37)
    }

    /// Objects read in the loop body besides the walked one (through a link, by lookup,
    /// kept from earlier steps) come from their own rows.
    func testOtherObjectsReadInTheLoopKeepTheirValues() throws {
        let realm = try open()
        var kept: [WalkItem] = []
        for item in realm.objects(WalkItem.self).sorted(byKeyPath: "ratio", ascending: false) {
            let i = item.n
            XCTAssertEqual(item.other?.name, i == 0 ? nil : name(i - 1))
            XCTAssertEqual(item.n, i, "after reading the linked object of the same class")
            if let first = kept.first { XCTAssertEqual(first.n, 250) }
            XCTAssertEqual(item.ratio, Double(i) / 4)
            if i % 50 == 0 { kept.append(item) }
        }
        XCTAssertEqual(kept.map(\.n), [250, 200, 150, 100, 50, 0])
        XCTAssertEqual(kept.map(\.name), [250, 200, 150, 100, 50, 0].map(name))
    }

    func testAWalkInAWriteReadsWhatTheLoopWrote() throws {
        let realm = try open()
        try realm.write {
            for item in realm.objects(WalkItem.self).filter("n >= 100") {
                if item.isInvalidated { continue } // 151, deleted at 150: handed out as it was
                let before = item.count
                item.count = (before ?? 0) + 1
                item.name = "renamed \(item.n)"
                XCTAssertEqual(item.count, (before ?? 0) + 1)
                XCTAssertEqual(item.name, "renamed \(item.n)")
                if item.n == 150 { realm.delete(realm.objects(WalkItem.self).filter("n == 151")) }
            }
        }
        let names = realm.objects(WalkItem.self).map(\.name)
        XCTAssertEqual(names.count, Self.size - 1)
        XCTAssertEqual(Array(names.prefix(100)), (0..<100).map(name))
        XCTAssertEqual(Array(names.dropFirst(100)), (100..<Self.size).filter { $0 != 151 }.map { "renamed \($0)" })
        XCTAssertEqual(realm.objects(WalkItem.self).filter("n == 152").first?.count, 152 * 2 + 1)
    }

    func testAClassKeyedByItsIntPrimaryKeyWalksItsKeysAndValues() throws {
        let realm = try open()
        try realm.write {
            for id in (0..<50).reversed() { realm.add(KeyedWalkItem(value: ["id": id * 3, "label": "k\(id)", "score": id])) }
        }
        for _ in 0..<2 {
            var ids: [Int] = []
            for item in realm.objects(KeyedWalkItem.self) {
                ids.append(item.id)
                XCTAssertEqual(item.score * 3, item.id)
                if item.score > 25 { XCTAssertEqual(item.label, "k\(item.score)") }
            }
            XCTAssertEqual(ids, (0..<50).map { $0 * 3 })
        }
    }
}
