import Foundation
import XCTest
@testable import Larder

/// A Results asked several aggregates of one property at one version folds the objects once,
/// and folds again once the version moves (a commit here, a refresh after another thread's),
/// inside a write transaction, and in another (frozen) Results.
final class AggregateMemoTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: surfaceConfiguration(fileURL)) }

    private func folds(_ results: Results<Measure>) -> Int { results.aggregateMemo!.folds }

    func testSumAverageMinAndMaxOfOnePropertyFoldOnce() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 6)
        XCTAssertEqual(all.average(ofProperty: "int") as Double?, 2)
        XCTAssertEqual(all.min(ofProperty: "int") as Int?, 1)
        XCTAssertEqual(all.max(ofProperty: "int") as Int?, 3)
        XCTAssertEqual(folds(all), 1)
        XCTAssertEqual(all.sum(ofProperty: "double") as Double, 7.5) // another property: folded
        XCTAssertEqual(all.average(ofProperty: "double") as Double?, 2.5)
        XCTAssertEqual(folds(all), 2)
        XCTAssertEqual(all.max(ofProperty: "date") as Date?, Date(timeIntervalSince1970: 3)) // min and max only
        XCTAssertEqual(all.min(ofProperty: "date") as Date?, Date(timeIntervalSince1970: 1))
        XCTAssertEqual(folds(all), 3)
        let filtered = all.where { $0.int > 1 }, sorted = all.sorted(byKeyPath: "int")
        XCTAssertEqual(filtered.sum(ofProperty: "int") as Int, 5)
        XCTAssertEqual(filtered.average(ofProperty: "int") as Double?, 2.5)
        XCTAssertEqual(folds(filtered), 1)
        XCTAssertEqual(sorted.sum(ofProperty: "optInt") as Int, 40)
        XCTAssertEqual(sorted.average(ofProperty: "optInt") as Double?, 20)
        XCTAssertEqual(folds(sorted), 1)
        let erased = AnyRealmCollection(all) // the wrapped Results' fold
        XCTAssertEqual(erased.sum(ofProperty: "int") as Int, 6)
        XCTAssertEqual(folds(all), 4)
        XCTAssertEqual(erased.average(ofProperty: "int") as Double?, 2)
        XCTAssertEqual(folds(all), 4)
    }

    func testACommitOnThisThreadBetweenTwoAggregatesIsSeen() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self), sorted = all.sorted(byKeyPath: "int")
        for results in [all, sorted] {
            let before = results.sum(ofProperty: "int") as Int
            try realm.write { realm.add(Measure(value: ["int": 100, "double": 0.5, "float": Float(0.25), "optInt": 2] as [String: Any])) }
            XCTAssertEqual(results.sum(ofProperty: "int") as Int, before + 100)
            XCTAssertEqual(results.max(ofProperty: "int") as Int?, 100)
            XCTAssertEqual(results.min(ofProperty: "optInt") as Int?, 2)
            XCTAssertEqual(results.min(ofProperty: "double") as Double?, 0.5)
            XCTAssertEqual(results.min(ofProperty: "float") as Float?, 0.25)
        }
        XCTAssertEqual(all.average(ofProperty: "int") as Double?, 206.0 / 5)
        XCTAssertEqual(all.average(ofProperty: "optInt") as Double?, 44.0 / 4)
        XCTAssertEqual(all.sum(ofProperty: "double") as Double, 8.5)
        XCTAssertEqual(all.sum(ofProperty: "float") as Float, 8)
    }

    func testAnotherThreadsCommitIsSeenAfterRefresh() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.sum(ofProperty: "optDouble") as Double, 0)
        XCTAssertNil(all.average(ofProperty: "optDouble") as Double?)
        let configuration = surfaceConfiguration(fileURL)
        onAnotherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.add(Measure(value: ["int": 10, "optDouble": 1.5] as [String: Any])) }
        }
        realm.refresh()
        XCTAssertEqual(all.sum(ofProperty: "optDouble") as Double, 1.5)
        XCTAssertEqual(all.average(ofProperty: "optDouble") as Double?, 1.5)
        XCTAssertEqual(all.max(ofProperty: "int") as Int?, 10)
        XCTAssertEqual(all.average(ofProperty: "int") as Double?, 4)
    }

    func testAggregatesInsideAWriteSeeItsMutations() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 6)
        realm.beginWrite()
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 6)
        all.first!.int = 11
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 16)
        XCTAssertEqual(all.max(ofProperty: "int") as Int?, 11)
        realm.add(Measure(value: ["int": -4, "optInt": 1]))
        XCTAssertEqual(all.average(ofProperty: "int") as Double?, 3)
        XCTAssertEqual(all.min(ofProperty: "int") as Int?, -4)
        XCTAssertEqual(all.min(ofProperty: "optInt") as Int?, 1)
        realm.cancelWrite()
        XCTAssertEqual(all.sum(ofProperty: "int") as Int, 6)
        XCTAssertEqual(all.max(ofProperty: "int") as Int?, 3)
        XCTAssertEqual(all.min(ofProperty: "optInt") as Int?, 10)
    }

    /// A collection write in a write transaction does not move the version: a Results of a
    /// list's objects still sees it.
    func testAggregatesOfAListsObjectsInsideAWriteSeeItsAppend() throws {
        let realm = try open()
        let station = Station()
        try realm.write {
            realm.add(station)
            station.measures.append(objectsIn: makeMeasures())
        }
        let sorted = station.measures.sorted(byKeyPath: "int")
        try realm.write {
            XCTAssertEqual(sorted.sum(ofProperty: "int") as Int, 6)
            station.measures.append(Measure(value: ["int": 10]))
            XCTAssertEqual(sorted.sum(ofProperty: "int") as Int, 16)
            XCTAssertEqual(sorted.average(ofProperty: "int") as Double?, 4)
            station.measures.removeAll()
            XCTAssertEqual(sorted.sum(ofProperty: "int") as Int, 0)
        }
        XCTAssertNil(sorted.max(ofProperty: "int") as Int?)
    }

    func testEmptyResultsThenObjects() throws {
        let realm = try open()
        let all = realm.objects(Measure.self)
        XCTAssertEqual(all.sum(ofProperty: "float") as Float, 0)
        XCTAssertNil(all.average(ofProperty: "float") as Double?)
        XCTAssertNil(all.min(ofProperty: "float") as Float?)
        XCTAssertNil(all.max(ofProperty: "optInt") as Int?)
        try realm.write { realm.add(makeMeasures()) }
        XCTAssertEqual(all.sum(ofProperty: "float") as Float, 7.5)
        XCTAssertEqual(all.average(ofProperty: "float") as Double?, 2.5)
        XCTAssertEqual(all.min(ofProperty: "float") as Float?, 1.5)
        XCTAssertEqual(all.max(ofProperty: "optInt") as Int?, 30)
        try realm.write { realm.deleteAll() }
        XCTAssertNil(all.average(ofProperty: "float") as Double?)
        XCTAssertEqual(all.sum(ofProperty: "float") as Float, 0)
    }

    func testFrozenResultsKeepTheirVersionsValues() throws {
        let realm = try open()
        try realm.write { realm.add(makeMeasures()) }
        let all = realm.objects(Measure.self)
        let frozen = all.freeze()
        XCTAssertEqual(frozen.sum(ofProperty: "int") as Int, 6)
        try realm.write { realm.add(Measure(value: ["int": 4])) }
        XCTAssertEqual(frozen.average(ofProperty: "int") as Double?, 2)
        XCTAssertEqual(folds(frozen), 1)
        XCTAssertEqual(all.average(ofProperty: "int") as Double?, 2.5)
        XCTAssertEqual(frozen.thaw()!.sum(ofProperty: "int") as Int, 10)
    }
}
