import Foundation
import XCTest
@testable import Larder

/// Realm's documented example: a URL stored as its string.
extension URL: FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

/// Always converts.
struct Celsius: CustomPersistable, Equatable {
    typealias PersistedType = Double
    var degrees: Double
    init(_ degrees: Double) { self.degrees = degrees }
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

/// Converts only even integers: an odd stored integer is a failed conversion
/// whatever the platform's URL parser accepts.
struct EvenNumber: FailableCustomPersistable, Equatable {
    typealias PersistedType = Int
    let value: Int
    init?(persistedValue: Int) {
        guard persistedValue % 2 == 0 else { return nil }
        value = persistedValue
    }
    var persistableValue: Int { value }
}

final class Bookmark: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var url: URL
    @Persisted var mirror: URL?
    @Persisted var temperature: Celsius
    @Persisted var warm = Celsius(25)
    @Persisted var optTemperature: Celsius?
    @Persisted var even: EvenNumber
    @Persisted var optEven: EvenNumber?
    @Persisted(indexed: true) var indexedEven: EvenNumber
    @Persisted var urls: List<URL>
    @Persisted var optEvens: List<EvenNumber?>
    @Persisted var temperatures: MutableSet<Celsius>
    @Persisted var evens: Map<String, EvenNumber>
    @Persisted var optEvenMap: Map<String, EvenNumber?>
}

/// The same class as stored: what a file written by another program (or an
/// older version of the model) may hold.
final class BookmarkStored: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var url = ""
    @Persisted var mirror: String?
    @Persisted var temperature = 0.0
    @Persisted var warm = 0.0
    @Persisted var optTemperature: Double?
    @Persisted var even = 0
    @Persisted var optEven: Int?
    @Persisted(indexed: true) var indexedEven = 0
    @Persisted var urls: List<String>
    @Persisted var optEvens: List<Int?>
    @Persisted var temperatures: MutableSet<Double>
    @Persisted var evens: Map<String, Int>
    @Persisted var optEvenMap: Map<String, Int?>
    override class func className() -> String { "Bookmark" }
}

/// A custom type as the primary key: stored and looked up as its persisted type.
final class Page: Object {
    @Persisted(primaryKey: true) var address: URL
    @Persisted var title = ""
}

final class CustomPersistableTests: RealmTestCase {
    private let site = URL(string: "https://example.com/a?b=c")!

    func testTheSchemaShowsThePersistedTypes() throws {
        let schema = Bookmark.objectSchema
        XCTAssertEqual(schema["url"]?.type, .string)
        XCTAssertEqual(schema["url"]?.isOptional, false)
        XCTAssertEqual(schema["mirror"]?.type, .string)
        XCTAssertEqual(schema["mirror"]?.isOptional, true)
        XCTAssertEqual(schema["temperature"]?.type, .double)
        XCTAssertEqual(schema["even"]?.type, .int)
        XCTAssertEqual(schema["indexedEven"]?.isIndexed, true)
        XCTAssertEqual(schema["urls"]?.type, .string)
        XCTAssertEqual(schema["urls"]?.isArray, true)
        XCTAssertEqual(schema["optEvens"]?.isOptional, true)
        XCTAssertEqual(schema["temperatures"]?.isSet, true)
        XCTAssertEqual(schema["evens"]?.isMap, true)
        // The file's schema is the same as that of the stored types.
        let realm = try openRealm([Bookmark.self])
        XCTAssertEqual(realm.schema["Bookmark"], BookmarkStored.objectSchema)
    }

    func testUnmanagedValuesAndDefaults() {
        let bookmark = Bookmark()
        XCTAssertEqual(bookmark.temperature, Celsius(0))
        XCTAssertEqual(bookmark.warm, Celsius(25))
        XCTAssertNil(bookmark.optTemperature)
        XCTAssertEqual(bookmark.even, EvenNumber(persistedValue: 0))
        XCTAssertNil(bookmark.mirror)
        bookmark.url = site
        bookmark.mirror = site
        bookmark.urls.append(site)
        XCTAssertEqual(bookmark.url, site)
        XCTAssertEqual(bookmark.mirror, site)
        XCTAssertEqual(Array(bookmark.urls), [site])
    }

    func testValuesRoundTripThroughTheDatabaseAcrossReopen() throws {
        do {
            let realm = try openRealm([Bookmark.self])
            let bookmark = Bookmark()
            bookmark.url = site
            bookmark.temperature = Celsius(-4.5)
            bookmark.optTemperature = Celsius(37)
            bookmark.even = EvenNumber(persistedValue: 42)!
            bookmark.indexedEven = EvenNumber(persistedValue: 8)!
            bookmark.urls.append(objectsIn: [site, URL(string: "file:///tmp/x")!])
            bookmark.optEvens.append(objectsIn: [EvenNumber(persistedValue: 2), nil])
            bookmark.temperatures.insert(Celsius(1))
            bookmark.temperatures.insert(Celsius(1))
            bookmark.temperatures.insert(Celsius(2))
            bookmark.evens["a"] = EvenNumber(persistedValue: 4)
            bookmark.optEvenMap["none"] = .some(nil)
            try realm.write { realm.add(bookmark) }
            // Managed writes convert too.
            try realm.write {
                bookmark.mirror = URL(string: "https://mirror.example")
                bookmark.urls.append(URL(string: "https://third.example")!)
                bookmark.evens["b"] = EvenNumber(persistedValue: 6)
            }
        }
        let realm = try openRealm([Bookmark.self])
        let bookmark = try XCTUnwrap(realm.objects(Bookmark.self).first)
        XCTAssertEqual(bookmark.url, site)
        XCTAssertEqual(bookmark.mirror, URL(string: "https://mirror.example"))
        XCTAssertEqual(bookmark.temperature, Celsius(-4.5))
        XCTAssertEqual(bookmark.warm, Celsius(25))
        XCTAssertEqual(bookmark.optTemperature, Celsius(37))
        XCTAssertEqual(bookmark.even.value, 42)
        XCTAssertNil(bookmark.optEven)
        XCTAssertEqual(bookmark.indexedEven.value, 8)
        XCTAssertEqual(Array(bookmark.urls).map(\.absoluteString),
                       [site.absoluteString, "file:///tmp/x", "https://third.example"])
        XCTAssertEqual(Array(bookmark.optEvens).map { $0?.value }, [2, nil])
        XCTAssertEqual(Set(bookmark.temperatures.map(\.degrees)), [1, 2])
        XCTAssertTrue(bookmark.temperatures.contains(Celsius(2)))
        XCTAssertEqual(bookmark.evens["a"]?.value, 4)
        XCTAssertEqual(bookmark.evens["b"]?.value, 6)
        XCTAssertEqual(bookmark.optEvenMap.count, 1)
        XCTAssertEqual(bookmark.optEvenMap["none"], .some(nil))

        // What the file holds is the persisted type.
        let stored = try XCTUnwrap(realm.objects(BookmarkStored.self).first)
        XCTAssertEqual(stored.url, site.absoluteString)
        XCTAssertEqual(stored.temperature, -4.5)
        XCTAssertEqual(Array(stored.urls).last, "https://third.example")
        XCTAssertEqual(stored.evens["b"], 6)
    }

    func testObjectValueAndSetValueConvertCustomTypes() throws {
        let bookmark = Bookmark(value: ["url": site, "temperature": Celsius(3), "even": 10, "urls": [site]])
        XCTAssertEqual(bookmark.url, site)
        XCTAssertEqual(bookmark.temperature, Celsius(3))
        XCTAssertEqual(bookmark.even.value, 10)
        XCTAssertEqual(Array(bookmark.urls), [site])
        let realm = try openRealm([Bookmark.self])
        try realm.write {
            realm.add(bookmark)
            bookmark.setValue(Celsius(8), forKey: "temperature")
        }
        XCTAssertEqual(bookmark.temperature, Celsius(8))
        XCTAssertEqual(bookmark.value(forKey: "temperature") as? Double, 8)
    }

    func testACustomPrimaryKeyIsLookedUpByEitherType() throws {
        XCTAssertEqual(Page.objectSchema.primaryKeyProperty?.type, .string)
        let realm = try openRealm([Page.self])
        try realm.write {
            realm.add(Page(value: ["address": site, "title": "a"]))
            realm.create(Page.self, value: ["address": site.absoluteString, "title": "b"], update: .modified)
        }
        XCTAssertEqual(realm.objects(Page.self).count, 1)
        XCTAssertEqual(realm.object(ofType: Page.self, forPrimaryKey: site)?.title, "b")
        XCTAssertEqual(realm.object(ofType: Page.self, forPrimaryKey: site.absoluteString)?.address, site)
        XCTAssertNil(realm.object(ofType: Page.self, forPrimaryKey: URL(string: "https://other.example")!))
    }

    func testAFailedConversionReadsNilInAnOptionalContext() throws {
        let realm = try openRealm([BookmarkStored.self])
        try realm.write {
            realm.add(BookmarkStored(value: ["url": "https://ok.example", "optEven": 3, "even": 4,
                                             "optEvens": [1, 2, nil], "optEvenMap": ["odd": 5, "even": 6]]))
        }
        let bookmark = try XCTUnwrap(realm.objects(Bookmark.self).first)
        XCTAssertEqual(bookmark.even.value, 4)
        XCTAssertNil(bookmark.optEven)
        XCTAssertEqual(Array(bookmark.optEvens).map { $0?.value }, [nil, 2, nil])
        XCTAssertEqual(bookmark.optEvenMap["odd"], .some(nil))
        XCTAssertEqual(bookmark.optEvenMap["even"]??.value, 6)
    }

    func testAValueThatDoesNotConvertIsRefusedAsInput() {
        XCTAssertNil(ValueReader.convert(3, to: Bookmark.schema.properties[Bookmark.schema.slotByName["even"]!]))
        XCTAssertNotNil(ValueReader.convert(4, to: Bookmark.schema.properties[Bookmark.schema.slotByName["even"]!]))
    }

    func testAFailedConversionTrapsInANonOptionalContext() throws {
        try assertChildTraps("custom-persistable-failed-property",
                        message: "Failed to convert persisted value '7' to type 'EvenNumber' in a non-optional context.")
        try assertChildTraps("custom-persistable-failed-map-value",
                        message: "Failed to convert persisted value '9' to type 'EvenNumber' in a non-optional context.")
    }

    func testAFailableTypeWithoutADefaultTrapsWhenItsDefaultIsRead() throws {
        try assertChildTraps("custom-persistable-failed-default",
                        message: "Failed to default construct a Unparseable using the default value for persisted type Int.")
        // Not when the object is built: only when the default is read.
        try assertChildTraps("custom-persistable-failed-default", message: "BUILT")
    }
}

/// A failable type that has no value for its persisted type's default.
struct Unparseable: FailableCustomPersistable {
    typealias PersistedType = Int
    init?(persistedValue: Int) {
        guard persistedValue > 0 else { return nil }
    }
    var persistableValue: Int { 1 }
}

final class UnparseableHolder: Object {
    @Persisted var value: Unparseable
    @Persisted var name = ""
}

extension CustomPersistableTests {
    /// The scenarios the trap tests run in a child process.
    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        let url = URL(fileURLWithPath: path)
        switch scenario {
        case "custom-persistable-failed-property":
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [BookmarkStored.self]))
            try realm.write { realm.add(BookmarkStored(value: ["even": 7])) }
            print("READ \(realm.objects(Bookmark.self).first!.even)")
        case "custom-persistable-failed-map-value":
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [BookmarkStored.self]))
            try realm.write { realm.add(BookmarkStored(value: ["id": 1, "evens": ["x": 9]])) }
            print("READ \(Array(realm.object(ofType: Bookmark.self, forPrimaryKey: 1)!.evens.values))")
        case "custom-persistable-failed-default":
            // Declared and assigned before it is read: fine, as in Realm.
            let holder = UnparseableHolder()
            holder.name = "ok"
            print("BUILT")
            fflush(stdout)
            print("READ \(holder.value)")
        default:
            return false
        }
        return true
    }
}
