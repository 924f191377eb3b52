import CLarder
import Foundation
import XCTest
@testable import Larder

/// Realm's documented example (CustomPersistable.swift): a point stored as an embedded object.
final class PointObject: EmbeddedObject {
    @Persisted var x = 0.0
    @Persisted var y = 0.0
}

struct Point: CustomPersistable, Equatable {
    typealias PersistedType = PointObject
    var x, y: Double
    init(x: Double, y: Double) { self.x = x; self.y = y }
    init(persistedValue: PointObject) { self.init(x: persistedValue.x, y: persistedValue.y) }
    var persistableValue: PointObject { PointObject(value: [x, y]) }
}

/// A point in the first quadrant: a stored negative coordinate does not convert.
struct QuadrantPoint: FailableCustomPersistable, Equatable {
    typealias PersistedType = PointObject
    var x, y: Double
    init(x: Double, y: Double) { self.x = x; self.y = y }
    init?(persistedValue: PointObject) {
        guard persistedValue.x >= 0, persistedValue.y >= 0 else { return nil }
        self.init(x: persistedValue.x, y: persistedValue.y)
    }
    var persistableValue: PointObject { PointObject(value: ["x": x, "y": y]) }
}

final class Drawing: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var origin: Point
    @Persisted var end: Point?
    @Persisted var path: List<Point>
    @Persisted var marks: Map<String, Point>
    @Persisted var optMarks: Map<String, Point?>
    @Persisted var corner: QuadrantPoint
    @Persisted var optCorner: QuadrantPoint?
    @Persisted var corners: List<QuadrantPoint>
    @Persisted var optCornerMap: Map<String, QuadrantPoint?>
}

/// The same class as stored: the embedded objects themselves.
final class DrawingStored: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var origin: PointObject?
    @Persisted var end: PointObject?
    @Persisted var path: List<PointObject>
    @Persisted var marks: Map<String, PointObject?>
    @Persisted var optMarks: Map<String, PointObject?>
    @Persisted var corner: PointObject?
    @Persisted var optCorner: PointObject?
    @Persisted var corners: List<PointObject>
    @Persisted var optCornerMap: Map<String, PointObject?>
    override class func className() -> String { "Drawing" }
}

final class CustomEmbeddedTests: RealmTestCase {
    private func open() throws -> Realm { try openRealm([Drawing.self, PointObject.self]) }

    private func pointRows(_ realm: Realm) -> Int {
        var cls = lar_class()
        precondition(lar_class_find(realm.instance.environment.handle, "PointObject", &cls) == LAR_OK)
        var count: UInt64 = 0
        precondition(lar_objects_count(realm.instance.currentTxn(), cls, &count) == LAR_OK)
        return Int(count)
    }

    func testTheSchemaShowsTheEmbeddedPersistedType() throws {
        let schema = Drawing.objectSchema
        XCTAssertEqual(schema["origin"]?.type, .object)
        XCTAssertEqual(schema["origin"]?.objectClassName, "PointObject")
        XCTAssertEqual(schema["origin"]?.isOptional, true) // as Realm stores it
        XCTAssertEqual(schema["path"]?.isArray, true)
        XCTAssertEqual(schema["path"]?.isOptional, false)
        XCTAssertEqual(schema["marks"]?.isOptional, true)
        let realm = try open()
        XCTAssertEqual(realm.schema["Drawing"], DrawingStored.objectSchema)
        XCTAssertNotNil(realm.schema["PointObject"])
    }

    func testUnmanagedValuesAndDefaults() {
        let drawing = Drawing()
        XCTAssertEqual(drawing.origin, Point(x: 0, y: 0))
        XCTAssertNil(drawing.end)
        drawing.origin = Point(x: 1, y: 2)
        drawing.path.append(Point(x: 3, y: 4))
        drawing.marks["a"] = Point(x: 5, y: 6)
        XCTAssertEqual(drawing.origin, Point(x: 1, y: 2))
        XCTAssertEqual(Array(drawing.path), [Point(x: 3, y: 4)])
        XCTAssertEqual(drawing.marks["a"], Point(x: 5, y: 6))
        let fromValue = Drawing(value: ["origin": Point(x: 7, y: 8), "path": [Point(x: 9, y: 10)]])
        XCTAssertEqual(fromValue.origin, Point(x: 7, y: 8))
        XCTAssertEqual(Array(fromValue.path), [Point(x: 9, y: 10)])
    }

    func testValuesRoundTripAsEmbeddedObjectsAcrossReopen() throws {
        do {
            let realm = try open()
            let drawing = Drawing()
            drawing.origin = Point(x: 1, y: 2)
            drawing.end = Point(x: 3, y: 4)
            drawing.path.append(objectsIn: [Point(x: 5, y: 6), Point(x: 7, y: 8)])
            drawing.marks["a"] = Point(x: 9, y: 10)
            drawing.optMarks["none"] = .some(nil)
            drawing.corner = QuadrantPoint(x: 1, y: 1)
            try realm.write { realm.add(drawing) }
            XCTAssertEqual(pointRows(realm), 6) // corner holds its default
            // Managed writes: each value is a new embedded object in place of the old one.
            try realm.write {
                drawing.origin = Point(x: -1, y: -2)
                drawing.end = nil
                drawing.path[0] = Point(x: 50, y: 60)
                drawing.path.append(Point(x: 11, y: 12))
                drawing.marks["b"] = Point(x: 13, y: 14)
                drawing.optCorner = QuadrantPoint(x: 2, y: 2)
            }
            XCTAssertEqual(pointRows(realm), 8)
        }
        let realm = try open()
        let drawing = try XCTUnwrap(realm.objects(Drawing.self).first)
        XCTAssertEqual(drawing.origin, Point(x: -1, y: -2))
        XCTAssertNil(drawing.end)
        XCTAssertEqual(Array(drawing.path), [Point(x: 50, y: 60), Point(x: 7, y: 8), Point(x: 11, y: 12)])
        XCTAssertEqual(drawing.marks["a"], Point(x: 9, y: 10))
        XCTAssertEqual(drawing.marks["b"], Point(x: 13, y: 14))
        XCTAssertEqual(drawing.optMarks.count, 1)
        XCTAssertEqual(drawing.optMarks["none"], .some(nil))
        XCTAssertEqual(drawing.corner, QuadrantPoint(x: 1, y: 1))
        XCTAssertEqual(drawing.optCorner, QuadrantPoint(x: 2, y: 2))
        // The file holds the embedded objects.
        let stored = try XCTUnwrap(realm.objects(DrawingStored.self).first)
        XCTAssertEqual(stored.origin?.x, -1)
        XCTAssertEqual(stored.path.map(\.y), [60, 8, 12])
        XCTAssertEqual(stored.marks["b"]??.x, 13)
        XCTAssertEqual(pointRows(realm), 8)
        // Deleting the owner deletes them, as any embedded object.
        try realm.write { realm.delete(drawing) }
        XCTAssertEqual(pointRows(realm), 0)
    }

    func testANullLinkReadsAsTheDefaultInANonOptionalContext() throws {
        let realm = try open()
        try realm.write { realm.add(DrawingStored(value: ["id": 1])) }
        let drawing = try XCTUnwrap(realm.object(ofType: Drawing.self, forPrimaryKey: 1))
        XCTAssertEqual(drawing.origin, Point(x: 0, y: 0))
        XCTAssertEqual(drawing.corner, QuadrantPoint(x: 0, y: 0))
        XCTAssertNil(drawing.end)
        // create with NSNull stores a null link too, as Realm.
        try realm.write { realm.create(Drawing.self, value: ["id": 2, "origin": NSNull()]) }
        XCTAssertEqual(realm.object(ofType: Drawing.self, forPrimaryKey: 2)?.origin, Point(x: 0, y: 0))
    }

    func testCreateAndUpdatePoliciesTakeCustomValues() throws {
        let realm = try open()
        try realm.write {
            realm.create(Drawing.self, value: ["id": 1, "origin": Point(x: 1, y: 1), "path": [Point(x: 2, y: 2)]])
        }
        let drawing = try XCTUnwrap(realm.object(ofType: Drawing.self, forPrimaryKey: 1))
        XCTAssertEqual(drawing.origin, Point(x: 1, y: 1))
        XCTAssertEqual(Array(drawing.path), [Point(x: 2, y: 2)])
        let update = Drawing(value: ["id": 1, "origin": Point(x: 3, y: 3), "path": [Point(x: 4, y: 4)]])
        try realm.write { realm.add(update, update: .modified) }
        XCTAssertEqual(drawing.origin, Point(x: 3, y: 3))
        XCTAssertEqual(Array(drawing.path), [Point(x: 4, y: 4)])
        XCTAssertEqual(pointRows(realm), 3) // origin, path[0] and corner's default
    }

    func testAFailedConversionReadsNilInAnOptionalContext() throws {
        let realm = try open()
        try realm.write {
            realm.add(DrawingStored(value: ["id": 1, "optCorner": ["x": -1, "y": 0],
                                            "optCornerMap": ["bad": ["x": 0, "y": -1], "good": ["x": 1, "y": 1]]]))
        }
        let drawing = try XCTUnwrap(realm.object(ofType: Drawing.self, forPrimaryKey: 1))
        XCTAssertNil(drawing.optCorner)
        XCTAssertEqual(drawing.optCornerMap["bad"], .some(nil))
        XCTAssertEqual(drawing.optCornerMap["good"], QuadrantPoint(x: 1, y: 1))
    }

    func testAFailedConversionTrapsInANonOptionalContext() throws {
        let message = "to type 'QuadrantPoint' in a non-optional context."
        try assertChildTraps("custom-embedded-failed-property", message: "Failed to convert persisted value '")
        try assertChildTraps("custom-embedded-failed-property", message: message)
        try assertChildTraps("custom-embedded-failed-list", message: message)
    }

    /// The scenarios the trap tests run in a child process.
    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Drawing.self, PointObject.self])
        switch scenario {
        case "custom-embedded-failed-property":
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.deleteAll(); realm.add(DrawingStored(value: ["corner": ["x": -1, "y": 0]])) }
            print("READ \(realm.objects(Drawing.self).first!.corner)")
        case "custom-embedded-failed-list":
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.deleteAll(); realm.add(DrawingStored(value: ["corners": [["x": 1, "y": 1], ["x": 0, "y": -3]]])) }
            print("READ \(Array(realm.objects(Drawing.self).first!.corners))")
        default:
            return false
        }
        return true
    }
}
