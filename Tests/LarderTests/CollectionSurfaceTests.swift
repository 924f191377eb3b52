import Foundation
import XCTest
@testable import Larder

/// SwiftUI's `move(fromOffsets:toOffset:)`, written out for comparison: the
/// elements at offsets leave, then go, in order, before the element that was at destination.
private func swiftUIMove(_ elements: [Int], _ offsets: IndexSet, _ destination: Int) -> [Int] {
    let moving = offsets.map { elements[$0] }
    let before = elements[..<destination].indices.filter { !offsets.contains($0) }.map { elements[$0] }
    let after = elements[destination...].indices.filter { !offsets.contains($0) }.map { elements[$0] }
    return before + moving + after
}

/// Positional access, range and offset mutations, key-value coding and Map members of the collections.
final class CollectionSurfaceTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: surfaceConfiguration(fileURL)) }

    func testObjectsAtIndexes() throws {
        let realm = try open()
        let station = Station()
        let measures = makeMeasures()
        station.measures.append(objectsIn: measures)
        station.measureSet.insert(objectsIn: measures)
        XCTAssertEqual(station.measures.objects(at: [2, 0]).map(\.int), [1, 3], "ascending order of index")
        XCTAssertEqual(station.measures.objects(at: []).count, 0)
        XCTAssertEqual(station.measureSet.objects(at: [0, 1, 2]).map(\.int).sorted(), [1, 2, 3])
        try realm.write {
            realm.add(station)
            for measure in measures { measure.station = station }
        }
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.objects(at: [0, 2]).map(\.int), [1, 3])
        XCTAssertEqual(all.sorted(byKeyPath: "int", ascending: false).objects(at: [1, 2]).map(\.int), [2, 1])
        XCTAssertEqual(station.measures.objects(at: [1]).map(\.int), [2])
        XCTAssertTrue(station.measures.objects(at: [1])[0].isSameObject(as: measures[1]))
        XCTAssertEqual(Set(station.measureSet.objects(at: [0, 2]).map(\.int)).count, 2)
        XCTAssertEqual(station.measuredBy.objects(at: [0, 1, 2]).map(\.int), [1, 2, 3])
        XCTAssertEqual(AnyRealmCollection(all).objects(at: [1]).map(\.int), [2])
        XCTAssertEqual(all.objects(at: IndexSet()).count, 0)
        try realm.write { station.numbers.append(objectsIn: [5, nil, 7]) }
        XCTAssertEqual(station.numbers.objects(at: [1, 2]), [nil, 7])
    }

    func testMoveFromOffsetsFollowsSwiftUI() throws {
        let realm = try open()
        let station = Station()
        let start: [Int?] = [0, 1, 2, 3, 4]
        // Known answers.
        let known: [(IndexSet, Int, [Int])] = [
            ([1, 3], 0, [1, 3, 0, 2, 4]), ([0], 5, [1, 2, 3, 4, 0]), ([0, 2], 4, [1, 3, 0, 2, 4]),
            ([4], 0, [4, 0, 1, 2, 3]), ([1], 2, [0, 1, 2, 3, 4]), ([1, 2], 2, [0, 1, 2, 3, 4]),
            ([1], 4, [0, 2, 3, 1, 4]), ([], 3, [0, 1, 2, 3, 4]), ([0, 1, 2, 3, 4], 5, [0, 1, 2, 3, 4]),
        ]
        for (offsets, destination, expected) in known {
            XCTAssertEqual(swiftUIMove([0, 1, 2, 3, 4], offsets, destination), expected, "reference \(Array(offsets))")
            station.numbers.removeAll()
            station.numbers.append(objectsIn: start)
            station.numbers.move(fromOffsets: offsets, toOffset: destination)
            XCTAssertEqual(Array(station.numbers), expected, "unmanaged \(Array(offsets)) to \(destination)")
        }
        try realm.write { realm.add(station) }
        // Every set of offsets and every destination, managed, in one write.
        try realm.write {
            for mask in 0..<32 {
                let offsets = IndexSet((0..<5).filter { mask & (1 << $0) != 0 })
                for destination in 0...5 {
                    station.numbers.removeAll()
                    station.numbers.append(objectsIn: start)
                    station.numbers.move(fromOffsets: offsets, toOffset: destination)
                    XCTAssertEqual(Array(station.numbers).map { $0! }, swiftUIMove([0, 1, 2, 3, 4], offsets, destination),
                                   "managed \(Array(offsets)) to \(destination)")
                }
            }
        }
        // Objects move as themselves.
        let measures = makeMeasures()
        try realm.write {
            station.measures.append(objectsIn: measures)
            station.measures.move(fromOffsets: [2], toOffset: 0)
        }
        XCTAssertEqual(station.measures.map(\.int), [3, 1, 2])
        XCTAssertTrue(station.measures[0].isSameObject(as: measures[2]))
        XCTAssertEqual(realm.objects(Measure.self).count, 3)
    }

    func testRangesOfAList() throws {
        let realm = try open()
        let station = Station()
        for managed in [false, true] {
            if managed { try realm.write { realm.add(station) } }
            if managed { realm.beginWrite() }
            var numbers = station.numbers // var: a range is assigned through MutableCollection
            numbers.removeAll()
            numbers.append(objectsIn: [0, 1, 2, 3, 4, 5, 6])
            XCTAssertEqual(Array(numbers[2..<4]), [2, 3], "managed: \(managed)")
            XCTAssertEqual(numbers[2..<4].count, 2)
            XCTAssertEqual(Array(numbers[5...]), [5, 6])
            numbers.removeSubrange(1...2)                  // 0 3 4 5 6
            numbers.removeSubrange(4...)                   // 0 3 4 5
            numbers.replaceSubrange(..<1, with: [9, 8])    // 9 8 3 4 5
            numbers.replaceSubrange(2..<2, with: [7])      // 9 8 7 3 4 5
            numbers.replaceSubrange(3..<6, with: [1])      // 9 8 7 1
            numbers.insert(contentsOf: [5, 5], at: 4)      // 9 8 7 1 5 5
            numbers.remove(atOffsets: [0, 2, 5])           // 8 1 5
            numbers.removeFirst(0)
            numbers.removeLast(3)
            XCTAssertTrue(numbers.isEmpty, "managed: \(managed)")
            numbers.append(objectsIn: [1, 2, 3])
            numbers[0..<2] = numbers[1..<3]                // 2 3 3
            XCTAssertEqual(Array(numbers), [2, 3, 3], "managed: \(managed)")
            if managed { try realm.commitWrite() }
        }
        XCTAssertEqual(Array(station.numbers), [2, 3, 3])
    }

    func testFirstLastAndDescriptionOfEveryCollection() throws {
        let realm = try open()
        let station = Station(value: ["name": "North"])
        let measures = makeMeasures()
        station.measures.append(objectsIn: measures)
        station.measureMap["a"] = measures[0]
        try realm.write {
            realm.add(station)
            for measure in measures { measure.station = station }
        }
        XCTAssertEqual(station.measures.first?.int, 1)
        XCTAssertEqual(station.measures.last?.int, 3)
        XCTAssertEqual(station.measuredBy.first?.int, 1)
        XCTAssertEqual(station.measuredBy.last?.int, 3)
        XCTAssertEqual(AnyRealmCollection(station.measuredBy).last?.int, 3)
        XCTAssertNil(station.measureSet.first)
        XCTAssertNil(station.measureSet.last)
        XCTAssertTrue(station.measuredBy.description.hasPrefix("LinkingObjects<Measure> <3> ("))
        XCTAssertTrue(station.measureMap.description.hasPrefix("Map<String, Measure> <1> ("))
        XCTAssertTrue(station.measureMap.description.contains("[a]: Measure {"))
    }

    func testKeyValueCodingThroughKeyPaths() throws {
        let realm = try open()
        let station = Station(value: ["name": "North"])
        let measures = makeMeasures()
        station.measureSet.insert(objectsIn: measures)
        station.measureMap["first"] = measures[0]
        station.measureMap["empty"] = .some(nil)
        station.dates.insert(date(7))
        try realm.write {
            realm.add(station)
            for measure in measures { measure.station = station }
        }
        XCTAssertEqual((station.measureSet.value(forKeyPath: "station.name") as? [Any])?.compactMap { $0 as? String },
                       ["North", "North", "North"])
        XCTAssertEqual((station.measureSet.value(forKeyPath: "int") as? [Any])?.compactMap { $0 as? Int }.sorted(), [1, 2, 3])
        XCTAssertEqual(station.dates.value(forKeyPath: "self") as? [Date?], [date(7)])
        XCTAssertEqual(station.measureMap.value(forKeyPath: "first.label") as? String, "m1")
        XCTAssertEqual(station.measureMap.value(forKeyPath: "first.station.name") as? String, "North")
        XCTAssertNil(station.measureMap.value(forKeyPath: "empty.label"))
        XCTAssertNil(station.measureMap.value(forKeyPath: "missing.label"))
        XCTAssertTrue(station.measureMap.value(forKeyPath: "first") is Measure)
        let readings = Map<String, Double?>()
        readings["x"] = 2.5
        XCTAssertEqual(readings.value(forKeyPath: "x") as? Double, 2.5)
    }

    func testMapMembers() throws {
        let realm = try open()
        let station = Station()
        for managed in [false, true] {
            if managed { try realm.write { realm.add(station) } }
            if managed { realm.beginWrite() }
            let readings = station.readings
            readings.removeAll()
            readings.updateValue(1.5, forKey: "b")
            let pairs: [(key: String, value: Double?)] = [("a", 3.0), ("b", 2.0)]
            readings.merge(pairs) { old, new in (old ?? 0) + (new ?? 0) }
            XCTAssertEqual(readings.object(forKey: "b"), 3.5, "managed: \(managed)")
            XCTAssertTrue(readings.contains { key, value in key == "a" && value == 3.0 })
            XCTAssertFalse(readings.contains { _, value in value == 9 })
            if managed { // results need a managed map, as in Realm
                XCTAssertEqual(Array(readings.sorted(ascending: false)), [3.5, 3.0])
                XCTAssertEqual(Array(readings.sorted()), [3.0, 3.5])
            }
            readings.removeObject(for: "a")
            XCTAssertEqual(readings.keys, ["b"], "managed: \(managed)")
            if managed { try realm.commitWrite() }
        }
    }

    func testDistinct() throws {
        let realm = try open()
        let station = Station()
        // label, int, optInt: the first of each (int, optInt) pair stays.
        let rows: [(String, Int, Int?)] = [("a", 1, nil), ("b", 2, 5), ("c", 1, nil), ("d", 2, 6), ("e", 1, 5), ("f", 2, 5)]
        let measures = rows.map { Measure(value: ["label": $0.0, "int": $0.1, "optInt": $0.2 as Any? ?? NSNull()]) }
        station.numbers.append(objectsIn: [3, nil, 3, 1, nil, 2])
        try realm.write {
            realm.add(measures) // created a to f: the table's order
            realm.add(station)
            station.measures.append(objectsIn: measures.reversed())
            for measure in measures { measure.station = station }
        }
        XCTAssertEqual(Array(station.numbers.distinct()), [3, nil, 1, 2], "managed values")
        XCTAssertEqual(station.dates.distinct().count, 0)
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.distinct(by: ["int"]).map(\.label), ["a", "b"])
        XCTAssertEqual(all.distinct(by: ["int", "optInt"]).map(\.label), ["a", "b", "d", "e"])
        XCTAssertEqual(all.distinct(by: [\Measure.int, \Measure.optInt]).map(\.label), ["a", "b", "d", "e"])
        XCTAssertEqual(all.distinct(by: [String]()).count, 6)
        // Sort then distinct keeps the first in sorted order; distinct then sort sorts what is left.
        XCTAssertEqual(all.sorted(byKeyPath: "label", ascending: false).distinct(by: ["int"]).map(\.label), ["f", "e"])
        XCTAssertEqual(all.distinct(by: ["int"]).sorted(byKeyPath: "label", ascending: false).map(\.label), ["b", "a"])
        XCTAssertEqual(station.measures.distinct(by: ["int"]).map(\.label), ["f", "e"], "list order")
        XCTAssertEqual(station.measuredBy.distinct(by: ["optInt"]).map(\.label), ["a", "b", "d"])
        XCTAssertEqual(AnyRealmCollection(all).distinct(by: ["int"]).count, 2)
        // Live: a write to a distinct property changes the results.
        let distinctInts = all.distinct(by: ["int"])
        XCTAssertEqual(distinctInts.count, 2)
        try realm.write { measures[5].int = 3 }
        XCTAssertEqual(distinctInts.map(\.label), ["a", "b", "f"])
        try realm.write { realm.add(Measure(value: ["label": "g", "int": 4])) }
        XCTAssertEqual(distinctInts.map(\.label), ["a", "b", "f", "g"])
    }

    func testSortingByKeyPathOnEveryCollectionOfObjects() throws {
        let realm = try open()
        let station = Station()
        let measures = makeMeasures()
        station.measureSet.insert(objectsIn: measures)
        try realm.write {
            realm.add(station)
            for measure in measures { measure.station = station }
        }
        XCTAssertEqual(station.measureSet.sorted(by: \.int, ascending: false).map(\.int), [3, 2, 1])
        XCTAssertEqual(station.measuredBy.sorted(by: \.double, ascending: false).map(\.int), [3, 2, 1])
        XCTAssertEqual(AnyRealmCollection(station.measuredBy).sorted(by: \.label).map(\.int), [1, 2, 3])
        XCTAssertEqual(station.measures.sorted(by: \.int).count, 0)
    }

    func testSurfaceMisuseTraps() throws {
        let cases = [
            ("surface-objects-at-out-of-bounds", "Indexes for collection are out of bounds."),
            ("surface-unmanaged-objects-at-out-of-bounds", "Indexes for collection are out of bounds."),
            ("surface-move-offset-out-of-bounds", "Index 5 is out of bounds (must be less than 3)."),
            ("surface-move-destination-out-of-bounds", "Index 4 is out of bounds (must be less than 4)."),
            ("surface-move-outside-write", "Cannot modify List outside of a write transaction."),
            ("surface-remove-first-too-many", "It is not possible to remove more objects (5) from a list than it already contains (3)."),
            ("surface-remove-last-negative", "Cannot pass a negative value for 'index'."),
            ("surface-remove-subrange-out-of-bounds", "Index 3 is out of bounds (must be less than 3)."),
            ("surface-distinct-unknown-property", "Cannot sort on key path 'nope': property 'Measure.nope' does not exist."),
        ]
        for (scenario, message) in cases {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains(message), "\(scenario): \(outcome.output)")
        }
    }

    static func runScenario(_ scenario: String, url: URL) throws -> Bool {
        guard scenario.hasPrefix("surface-") else { return false }
        if scenario == "surface-unmanaged-objects-at-out-of-bounds" {
            print(List<Int>().objects(at: [0]))
            return true
        }
        let realm = try Realm(configuration: surfaceConfiguration(url))
        let station = Station()
        station.numbers.append(objectsIn: [1, 2, 3])
        station.measures.append(objectsIn: makeMeasures())
        try realm.write { realm.add(station) }
        switch scenario {
        case "surface-objects-at-out-of-bounds": print(realm.objects(Measure.self).objects(at: [1, 3]))
        case "surface-move-offset-out-of-bounds": try realm.write { station.numbers.move(fromOffsets: [0, 5], toOffset: 0) }
        case "surface-move-destination-out-of-bounds": try realm.write { station.numbers.move(fromOffsets: [0], toOffset: 4) }
        case "surface-move-outside-write": station.measures.move(fromOffsets: [0], toOffset: 2)
        case "surface-remove-first-too-many": try realm.write { station.numbers.removeFirst(5) }
        case "surface-remove-last-negative": try realm.write { station.numbers.removeLast(-1) }
        case "surface-remove-subrange-out-of-bounds": try realm.write { station.numbers.removeSubrange(1...3) }
        case "surface-distinct-unknown-property": print(realm.objects(Measure.self).distinct(by: ["nope"]).count)
        default: return false
        }
        print("NO TRAP")
        return true
    }
}

private func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
