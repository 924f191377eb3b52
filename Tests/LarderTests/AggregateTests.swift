import Foundation
import XCTest
@testable import Larder

final class Measure: Object {
    @Persisted var label = ""
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var decimal: Decimal128
    @Persisted var optInt: Int?
    @Persisted var optDouble: Double?
    @Persisted var optDate: Date?
    @Persisted var optDecimal: Decimal128?
    @Persisted var flag = false
    @Persisted var tags: List<Int>
    @Persisted var station: Station?
}

final class Station: Object {
    @Persisted var name = ""
    @Persisted var measures: List<Measure>
    @Persisted var measureSet: MutableSet<Measure>
    @Persisted var measureMap: Map<String, Measure?>
    @Persisted var numbers: List<Int?>
    @Persisted var decimals: List<Decimal128>
    @Persisted var dates: MutableSet<Date?>
    @Persisted var readings: Map<String, Double?>
    @Persisted(originProperty: "station") var measuredBy: LinkingObjects<Measure>
}

func surfaceConfiguration(_ url: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, objectTypes: [Measure.self, Station.self])
}

private func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

/// Three measures whose aggregates the tests know: ints 1, 2, 3; optInt 10, nil, 30; optDecimal all nil.
func makeMeasures() -> [Measure] {
    (1...3).map { n in
        let value: [String: Any] = [
            "label": "m\(n)", "int": n, "int8": Int8(n), "int16": Int16(n), "int32": Int32(n), "int64": Int64(n),
            "float": Float(n) + 0.5, "double": Double(n) * 1.25, "date": date(Double(n)),
            "decimal": Decimal128(value: Double(n) * 1.1),
            "optInt": n == 2 ? NSNull() : n * 10, "optDate": n == 2 ? date(50) : NSNull(),
        ]
        return Measure(value: value)
    }
}

/// Aggregates over properties of objects: Results, List, MutableSet, Map, LinkingObjects and AnyRealmCollection.
final class AggregateTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: surfaceConfiguration(fileURL)) }

    /// Checks every aggregate of the three measures of makeMeasures through collection.
    private func checkAggregates<C: RealmCollection>(_ collection: C, _ name: String,
                                                     line: UInt = #line) where C.Element == Measure {
        let message = "\(name)"
        XCTAssertEqual(collection.min(ofProperty: "int") as Int?, 1, message, line: line)
        XCTAssertEqual(collection.max(ofProperty: "int") as Int?, 3, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "int") as Int, 6, message, line: line)
        XCTAssertEqual(collection.average(ofProperty: "int") as Double?, 2, message, line: line)
        XCTAssertEqual(collection.min(ofProperty: "int8") as Int8?, 1, message, line: line)
        XCTAssertEqual(collection.max(ofProperty: "int16") as Int16?, 3, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "int32") as Int32, 6, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "int64") as Int64, 6, message, line: line)
        XCTAssertEqual(collection.min(ofProperty: "float") as Float?, 1.5, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "float") as Float, 7.5, message, line: line)
        XCTAssertEqual(collection.average(ofProperty: "float") as Double?, 2.5, message, line: line)
        XCTAssertEqual(collection.max(ofProperty: "double") as Double?, 3.75, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "double") as Double, 7.5, message, line: line)
        XCTAssertEqual(collection.average(ofProperty: "double") as Double?, 2.5, message, line: line)
        XCTAssertEqual(collection.min(ofProperty: "date") as Date?, date(1), message, line: line)
        XCTAssertEqual(collection.max(ofProperty: "date") as Date?, date(3), message, line: line)
        XCTAssertEqual(collection.min(ofProperty: "decimal") as Decimal128?, Decimal128(value: 1.1), message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "decimal") as Decimal128,
                       Decimal128(value: 1.0 * 1.1) + Decimal128(value: 2.0 * 1.1) + Decimal128(value: 3.0 * 1.1),
                       message, line: line)
        // Optional properties: nil values are skipped, also by the average's count.
        XCTAssertEqual(collection.min(ofProperty: "optInt") as Int?, 10, message, line: line)
        XCTAssertEqual(collection.max(ofProperty: "optInt") as Int?, 30, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "optInt") as Int, 40, message, line: line)
        XCTAssertEqual(collection.average(ofProperty: "optInt") as Double?, 20, message, line: line)
        XCTAssertEqual(collection.min(ofProperty: "optDate") as Date?, date(50), message, line: line)
        XCTAssertNil(collection.min(ofProperty: "optDecimal") as Decimal128?, message, line: line)
        XCTAssertNil(collection.max(ofProperty: "optDouble") as Double?, message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "optDecimal") as Decimal128, Decimal128(0), message, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "optDouble") as Double, 0, message, line: line)
        XCTAssertNil(collection.average(ofProperty: "optDecimal") as Decimal128?, message, line: line)
        // Another numeric type than the property's, as Realm converts through NSNumber.
        XCTAssertEqual(collection.sum(ofProperty: "int") as Double, 6, message, line: line)
        XCTAssertEqual(collection.average(ofProperty: "double") as Int?, 2, message, line: line)
        XCTAssertEqual(collection.min(ofProperty: "int") as NSNumber?, NSNumber(value: 1), message, line: line)
        XCTAssertEqual(collection.average(ofProperty: "int") as Decimal128?, Decimal128(2), message, line: line)
        // The key-path forms.
        XCTAssertEqual(collection.min(of: \.int), 1, message, line: line)
        XCTAssertEqual(collection.max(of: \.date), date(3), message, line: line)
        XCTAssertEqual(collection.sum(of: \.double), 7.5, message, line: line)
        XCTAssertEqual(collection.average(of: \.float), 2.5, message, line: line)
        XCTAssertEqual(collection.max(of: \.optInt), 30, message, line: line)
        XCTAssertEqual(collection.sum(of: \.optInt), 40, message, line: line)
        XCTAssertEqual(collection.max(of: \.int8), 3, message, line: line)
    }

    func testResultsAggregates() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self)
        checkAggregates(all, "whole table")
        checkAggregates(all.sorted(byKeyPath: "int", ascending: false), "sorted results")
        checkAggregates(AnyRealmCollection(all), "AnyRealmCollection of results")
    }

    func testResultsAggregatesSeeTheCurrentWrite() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self)
        try realm.write {
            realm.add(Measure(value: ["int": 100, "optInt": 5]))
            XCTAssertEqual(all.max(ofProperty: "int") as Int?, 100)
            XCTAssertEqual(all.min(ofProperty: "optInt") as Int?, 5)
            XCTAssertEqual(all.sum(ofProperty: "int") as Int, 106)
            realm.delete(all.filterFirst(int: 100))
        }
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 6)
    }

    func testAggregatesOfManyObjectsReadInBatches() throws {
        let realm = try open()
        try realm.write {
            for n in 0..<1000 { realm.add(Measure(value: ["int": n, "optInt": n % 2 == 0 ? n as Any : NSNull()])) }
        }
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 499_500)
        XCTAssertEqual(all.max(ofProperty: "int") as Int?, 999)
        XCTAssertEqual(all.min(ofProperty: "int") as Int?, 0)
        XCTAssertEqual(all.sum(ofProperty: "optInt") as Int, 249_500)
        XCTAssertEqual(all.average(ofProperty: "optInt") as Double?, 499)
        // Lists and sets read their keys in batches too.
        let station = Station()
        try realm.write {
            realm.add(station)
            station.measures.append(objectsIn: all)
            station.measureSet.insert(objectsIn: all)
        }
        XCTAssertEqual(station.measureSet.count, 1000)
        for collection in [AnyRealmCollection(station.measures), AnyRealmCollection(station.measureSet)] {
            XCTAssertEqual(collection.sum(ofProperty: "int") as Int, 499_500)
            XCTAssertEqual(collection.max(of: \.optInt), 998)
            XCTAssertEqual(collection.sorted(byKeyPath: "int", ascending: false).first?.int, 999)
            XCTAssertEqual(collection.distinct(by: ["optInt"]).count, 501)
        }
    }

    func testEmptyCollectionsAggregateToNilAndZero() throws {
        let realm = try open()
        let station = Station()
        for (name, collection) in [("unmanaged list", AnyRealmCollection(station.measures)),
                                   ("unmanaged set", AnyRealmCollection(station.measureSet)),
                                   ("unmanaged linking objects", AnyRealmCollection(station.measuredBy))] {
            XCTAssertNil(collection.min(ofProperty: "int") as Int?, name)
            XCTAssertNil(collection.max(ofProperty: "date") as Date?, name)
            XCTAssertEqual(collection.sum(ofProperty: "double") as Double, 0, name)
            XCTAssertNil(collection.average(ofProperty: "int") as Double?, name)
        }
        try realm.write { realm.add(station) }
        let all = realm.objects(Measure.self)
        XCTAssertNil(all.min(ofProperty: "int") as Int?)
        XCTAssertEqual(all.sum(ofProperty: "decimal") as Decimal128, Decimal128(0))
        XCTAssertNil(all.average(ofProperty: "float") as Float?)
        XCTAssertNil(station.measures.max(of: \.int))
        XCTAssertEqual(station.measureSet.sum(of: \.int), 0)
        XCTAssertNil(station.measuredBy.average(of: \.double))
        XCTAssertNil(station.measureMap.min(ofProperty: "int") as Int?)
        XCTAssertEqual(station.measureMap.sum(ofProperty: "int") as Int, 0)
    }

    func testListSetAndLinkingObjectsAggregates() throws {
        let realm = try open()
        let station = Station()
        let measures = makeMeasures()
        station.measures.append(objectsIn: measures)
        station.measureSet.insert(objectsIn: measures)
        checkAggregates(station.measures, "unmanaged list of unmanaged objects")
        checkAggregates(station.measureSet, "unmanaged set of unmanaged objects")
        checkAggregates(AnyRealmCollection(station.measures), "AnyRealmCollection of an unmanaged list")
        try realm.write {
            realm.add(station)
            for measure in measures { measure.station = station }
        }
        checkAggregates(station.measures, "managed list")
        checkAggregates(station.measureSet, "managed set")
        checkAggregates(station.measuredBy, "linking objects")
        checkAggregates(AnyRealmCollection(station.measures), "AnyRealmCollection of a managed list")
        checkAggregates(AnyRealmCollection(station.measuredBy), "AnyRealmCollection of linking objects")
        // A list holding an object twice counts it twice, as Realm's does.
        try realm.write { station.measures.append(station.measures[2]) }
        XCTAssertEqual(station.measures.sum(ofProperty: "int") as Int, 9)
        XCTAssertEqual(station.measures.average(ofProperty: "int") as Double?, 2.25)
        // An unmanaged list of managed objects.
        let unmanaged = List<Measure>()
        unmanaged.append(objectsIn: realm.objects(Measure.self))
        checkAggregates(unmanaged, "unmanaged list of managed objects")
    }

    func testMapAggregatesOverItsObjects() throws {
        let realm = try open()
        let station = Station()
        let measures = makeMeasures()
        for (index, measure) in measures.enumerated() { station.measureMap["m\(index)"] = measure }
        station.measureMap["none"] = .some(nil)
        func check(_ line: UInt = #line) {
            let map = station.measureMap
            XCTAssertEqual(map.min(ofProperty: "int") as Int?, 1, line: line)
            XCTAssertEqual(map.max(ofProperty: "date") as Date?, date(3), line: line)
            XCTAssertEqual(map.sum(ofProperty: "optInt") as Int, 40, line: line)
            XCTAssertEqual(map.average(ofProperty: "double") as Double?, 2.5, line: line)
        }
        check()
        try realm.write { realm.add(station) }
        XCTAssertEqual(station.measureMap.count, 4)
        check()
        // A map past one batch of entries, and one whose object was deleted (its key stays, nil).
        try realm.write {
            for n in 0..<300 { station.measureMap["k\(n)"] = Measure(value: ["int": n]) }
            realm.delete(measures[0])
        }
        XCTAssertEqual(station.measureMap.count, 304)
        XCTAssertEqual(station.measureMap.sum(ofProperty: "int") as Int, 44_850 + 2 + 3)
        XCTAssertEqual(station.measureMap.min(ofProperty: "optInt") as Int?, 30)
    }

    func testAggregatesOfCollectionsOfValuesSkipNil() throws {
        let realm = try open()
        let station = Station()
        func check(_ state: String) {
            XCTAssertEqual(station.numbers.min(), 1, state)
            XCTAssertEqual(station.numbers.max(), 3, state)
            XCTAssertEqual(station.numbers.sum(), 4, state)
            XCTAssertEqual(station.numbers.average(), 2.0, state)
            XCTAssertEqual(station.decimals.sum(), Decimal128(6), state)
            XCTAssertEqual(station.decimals.average(), Decimal128(2), state)
            XCTAssertEqual(station.decimals.min(), Decimal128(1), state)
            XCTAssertEqual(station.dates.min(), date(1), state)
            XCTAssertEqual(station.dates.max(), date(9), state)
            XCTAssertEqual(station.readings.min(), 0.5, state)
            XCTAssertEqual(station.readings.sum(), 2, state)
            XCTAssertEqual(station.readings.average(), 1.0, state)
        }
        station.numbers.append(objectsIn: [nil, 3, 1, nil])
        station.decimals.append(objectsIn: [Decimal128(1), Decimal128(2), Decimal128(3)])
        station.dates.insert(objectsIn: [nil, date(9), date(1)])
        station.readings["a"] = 0.5
        station.readings["b"] = .some(nil)
        station.readings["c"] = 1.5
        check("unmanaged")
        try realm.write { realm.add(station) }
        check("managed")
        try realm.write {
            station.numbers.removeAll()
            station.numbers.append(nil)
        }
        XCTAssertTrue(station.numbers.min() == Int??.none, "only nil: no minimum")
        XCTAssertEqual(station.numbers.sum(), 0)
        XCTAssertNil(station.numbers.average() as Double?)
    }

    func testAggregateMisuseTraps() throws {
        let cases = [
            ("aggregate-unknown-property", "Property 'nope' not found in object of type 'Measure'"),
            ("aggregate-unknown-property-unmanaged", "Property 'nope' not found in object of type 'Measure'"),
            ("aggregate-string-property", "Operation 'sum' not supported for string property 'Measure.label'"),
            ("aggregate-date-sum", "Operation 'sum' not supported for date property 'Measure.date'"),
            ("aggregate-optional-date-average", "Operation 'average' not supported for date? property 'Measure.optDate'"),
            ("aggregate-bool-min", "Operation 'min' not supported for bool property 'Measure.flag'"),
            ("aggregate-list-property", "Operation 'max' not supported for int list 'Measure.tags'"),
            ("aggregate-link-property", "Operation 'min' not supported for object? property 'Measure.station'"),
            ("aggregate-linking-objects", "Operation 'sum' not supported for linking objects property 'Station.measuredBy'"),
            ("aggregate-date-as-int", "Cannot convert the min of 'Measure.date'"),
            ("aggregate-deleted-object", "Object has been deleted or invalidated."),
            ("aggregate-map-of-values", "min(ofProperty:) needs a map of objects; use min() on a Map<String, Optional<Double>>"),
        ]
        for (scenario, message) in cases {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains(message), "\(scenario): \(outcome.output)")
        }
    }
}

private extension Results where Element == Measure {
    func filterFirst(int: Int) -> Measure { first { $0.int == int }! }
}

/// The misuse scenarios of this file's tests, run in a child process (see ChildScenarios).
enum CollectionSurfaceScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        let url = URL(fileURLWithPath: path)
        if scenario.hasPrefix("aggregate-") {
            let realm = try Realm(configuration: surfaceConfiguration(url))
            let station = Station()
            station.measures.append(objectsIn: makeMeasures())
            if scenario == "aggregate-unknown-property-unmanaged" {
                print(station.measures.min(ofProperty: "nope") as Int? as Any)
                return true
            }
            try realm.write { realm.add(station) }
            let all = realm.objects(Measure.self)
            switch scenario {
            case "aggregate-unknown-property": print(all.min(ofProperty: "nope") as Int? as Any)
            case "aggregate-string-property": print(all.sum(ofProperty: "label") as Int)
            case "aggregate-date-sum": print(station.measures.sum(ofProperty: "date") as Double)
            case "aggregate-optional-date-average": print(all.average(ofProperty: "optDate") as Double? as Any)
            case "aggregate-bool-min": print(all.min(ofProperty: "flag") as Int? as Any)
            case "aggregate-list-property": print(all.max(ofProperty: "tags") as Int? as Any)
            case "aggregate-link-property": print(all.min(ofProperty: "station") as Int? as Any)
            case "aggregate-linking-objects":
                print(realm.objects(Station.self).sum(ofProperty: "measuredBy") as Int)
            case "aggregate-date-as-int": print(all.min(ofProperty: "date") as Int? as Any)
            case "aggregate-deleted-object":
                let unmanaged = List<Measure>()
                unmanaged.append(objectsIn: all)
                try realm.write { realm.delete(all[1]) }
                print(unmanaged.sum(ofProperty: "int") as Int)
            case "aggregate-map-of-values": print(station.readings.min(ofProperty: "x") as Double? as Any)
            default: return false
            }
            return true
        }
        return try CollectionSurfaceTests.runScenario(scenario, url: url)
    }
}
