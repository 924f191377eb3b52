import Foundation
import XCTest
@testable import Larder

enum Size: Int, PersistableEnum, Codable {
    case small = 1, large = 2
}

final class CodableScalars: Object, Codable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var bool = false
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var decimal: Decimal128
    @Persisted var size = Size.small
    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optBool: Bool?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optSize: Size?
}

final class CodableToy: Object, Codable {
    @Persisted var name = ""
}

final class CodableDog: Object, Codable {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var toy: CodableToy?
}

final class CodableCollections: Object, Codable {
    @Persisted var ints: List<Int>
    @Persisted var optStrings: List<String?>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Double>
    @Persisted var optScores: Map<String, Int?>
    @Persisted var best: CodableDog?
    @Persisted var dogs: List<CodableDog>
    @Persisted var dogSet: MutableSet<CodableDog>
    @Persisted var dogMap: Map<String, CodableDog?>
}

/// LinkingObjects is not Codable, as in Realm: its model leaves it out of its keys.
final class CodableOwner: Object, Codable {
    @Persisted var name = ""
    @Persisted(originProperty: "owner") var pets: LinkingObjects<CodablePet>
    enum CodingKeys: String, CodingKey { case name }
}

final class CodablePet: Object, Codable {
    @Persisted var name = ""
    @Persisted var owner: CodableOwner?
}

/// Encodes itself, so that it encodes while managed too (Realm's advice).
final class CodableNote: Object, Encodable {
    @Persisted var text = ""
    @Persisted var secret = ""
    enum CodingKeys: String, CodingKey { case text }
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
    }
}

final class CodableTests: RealmTestCase {
    private let types: [Object.Type] = [CodableScalars.self, CodableToy.self, CodableDog.self, CodableCollections.self,
                                        CodableOwner.self, CodablePet.self, CodableNote.self]

    private func json<T: Encodable>(_ value: T) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    private func filledScalars() -> CodableScalars {
        let object = CodableScalars()
        object.id = 7
        object.int = -12
        object.int8 = -8
        object.int16 = 16
        object.int32 = 32
        object.int64 = Int64.max
        object.bool = true
        object.float = 2.5
        object.double = 0.1
        object.string = "héllo"
        object.data = Data([0, 1, 255])
        object.date = Date(timeIntervalSince1970: 1_700_000_000.25)
        object.objectId = ObjectId("1234567890abcdef12345678")
        object.uuid = UUID(uuidString: "3A3C4E3C-5B86-4F8F-9F43-7A8E8E8A3C3D")!
        object.decimal = "123.456"
        object.size = .large
        object.optInt = 1
        object.optInt8 = 2
        object.optBool = false
        object.optFloat = 1.5
        object.optDouble = -2.25
        object.optString = "s"
        object.optData = Data([9])
        object.optDate = Date(timeIntervalSince1970: 5)
        object.optObjectId = ObjectId("abcdefabcdefabcdefabcdef")
        object.optUUID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        object.optDecimal = "-1.5"
        object.optSize = .small
        return object
    }

    private func assertSameScalars(_ a: CodableScalars, _ b: CodableScalars, file: StaticString = #filePath, line: UInt = #line) {
        let schema = CodableScalars.objectSchema
        for property in schema.properties {
            XCTAssertEqual(a.stored(slot: CodableScalars.schema.slotByName[property.name]!),
                           b.stored(slot: CodableScalars.schema.slotByName[property.name]!),
                           property.name, file: file, line: line)
        }
    }

    func testEveryScalarTypeRoundTripsThroughJSON() throws {
        let original = filledScalars()
        let data = try JSONEncoder().encode(original)
        let decoded = try JSONDecoder().decode(CodableScalars.self, from: data)
        XCTAssertNil(decoded.realm)
        assertSameScalars(original, decoded)
        XCTAssertEqual(decoded.int64, Int64.max)
        XCTAssertEqual(decoded.decimal, "123.456")
        XCTAssertEqual(decoded.size, .large)
        XCTAssertEqual(decoded.optSize, .small)

        // ObjectId and Decimal128 code as strings.
        let fields = try json(original)
        XCTAssertEqual(fields["objectId"] as? String, "1234567890abcdef12345678")
        XCTAssertEqual(fields["decimal"] as? String, "123.456")
        XCTAssertEqual(fields["size"] as? Int, 2)
        XCTAssertEqual(fields["string"] as? String, "héllo")
    }

    func testTheCodersDateAndDataStrategiesApply() throws {
        let object = filledScalars()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.dataEncodingStrategy = .base64
        let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: encoder.encode(object)) as? [String: Any])
        XCTAssertEqual(fields["date"] as? Double, 1_700_000_000.25)
        XCTAssertEqual(fields["optDate"] as? Double, 5)
        XCTAssertEqual(fields["data"] as? String, Data([0, 1, 255]).base64EncodedString())
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let decoded = try decoder.decode(CodableScalars.self, from: encoder.encode(object))
        assertSameScalars(object, decoded)
    }

    func testNilOptionalsEncodeAsNullAndRoundTrip() throws {
        let original = CodableScalars()
        let decoded = try JSONDecoder().decode(CodableScalars.self, from: JSONEncoder().encode(original))
        assertSameScalars(original, decoded)
        XCTAssertNil(decoded.optInt)
        XCTAssertNil(decoded.optSize)
    }

    func testMissingKeysOfOptionalPropertiesDecodeAsNil() throws {
        let object = try decode(CodableScalars.self, """
            {"id": 1, "int": 2, "int8": 3, "int16": 4, "int32": 5, "int64": 6, "bool": true, "float": 1.5,
             "double": 2.5, "string": "x", "data": "AAE=", "date": 2.5, "objectId": "1234567890abcdef12345678",
             "uuid": "3A3C4E3C-5B86-4F8F-9F43-7A8E8E8A3C3D", "decimal": 1.5, "size": 2, "optString": null}
            """)
        XCTAssertEqual(object.int8, 3)
        XCTAssertEqual(object.data, Data([0, 1]))
        XCTAssertEqual(object.date, Date(timeIntervalSinceReferenceDate: 2.5))
        XCTAssertEqual(object.decimal, Decimal128(1.5))
        for name in ["optInt", "optInt8", "optBool", "optFloat", "optDouble", "optString", "optData", "optDate",
                     "optObjectId", "optUUID", "optDecimal", "optSize"] {
            XCTAssertNil(object.value(forKey: name), name)
        }
    }

    func testAMissingKeyOfANonOptionalPropertyThrows() {
        XCTAssertThrowsError(try decode(CodableDog.self, #"{"name": "Rex"}"#)) { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key.stringValue, "age")
        }
        // A value of the wrong type too.
        XCTAssertThrowsError(try decode(CodableDog.self, #"{"name": "Rex", "age": "old"}"#))
        XCTAssertThrowsError(try decode(CodableScalars.self, #"{"objectId": "nope"}"#))
    }

    func testCollectionsOfScalarsAndObjectsDecodeThenAdd() throws {
        let object = try decode(CodableCollections.self, """
            {"ints": [3, 1, 2], "optStrings": ["a", null], "tags": ["x", "y", "x"],
             "scores": {"math": 1.5, "art": 2}, "optScores": {"none": null, "one": 1},
             "best": {"name": "Rex", "age": 3, "toy": {"name": "ball"}},
             "dogs": [{"name": "A", "age": 1}, {"name": "B", "age": 2, "toy": {"name": "bone"}}],
             "dogSet": [{"name": "S", "age": 4}],
             "dogMap": {"first": {"name": "M", "age": 5}, "empty": null}}
            """)
        func check(_ object: CodableCollections) {
            XCTAssertEqual(Array(object.ints), [3, 1, 2])
            XCTAssertEqual(Array(object.optStrings), ["a", nil])
            XCTAssertEqual(Set(object.tags.map { $0 }), ["x", "y"])
            XCTAssertEqual(object.tags.count, 2)
            XCTAssertEqual(object.scores["math"], 1.5)
            XCTAssertEqual(object.scores["art"], 2)
            XCTAssertEqual(object.optScores.count, 2)
            XCTAssertEqual(object.optScores["none"], .some(nil))
            XCTAssertEqual(object.optScores["one"], 1)
            XCTAssertEqual(object.best?.name, "Rex")
            XCTAssertEqual(object.best?.toy?.name, "ball")
            XCTAssertEqual(object.dogs.map(\.name), ["A", "B"])
            XCTAssertNil(object.dogs[0].toy)
            XCTAssertEqual(object.dogs[1].toy?.name, "bone")
            XCTAssertEqual(object.dogSet.first?.age, 4)
            XCTAssertEqual(object.dogMap["first"]??.name, "M")
            XCTAssertEqual(object.dogMap.count, 2)
            XCTAssertNil(object.dogMap["empty"]!)
        }
        XCTAssertNil(object.realm)
        check(object)

        let realm = try openRealm(types)
        try realm.write { realm.add(object) }
        XCTAssertNotNil(object.realm)
        check(object)
        XCTAssertEqual(realm.objects(CodableDog.self).count, 5)
        XCTAssertEqual(realm.objects(CodableToy.self).count, 2)

        // And as read back by a new Realm instance.
        let reopened = try XCTUnwrap(try openRealm(types).objects(CodableCollections.self).first)
        XCTAssertFalse(reopened === object)
        check(reopened)
    }

    func testUnmanagedCollectionsAndNestedObjectsRoundTrip() throws {
        let object = CodableCollections()
        object.ints.append(objectsIn: [5, 6])
        object.optStrings.append(objectsIn: [nil, "b"])
        object.tags.insert("t")
        object.scores["k"] = 0.5
        object.optScores["n"] = .some(nil)
        let toy = CodableToy()
        toy.name = "rope"
        let dog = CodableDog()
        dog.name = "Fido"
        dog.toy = toy
        object.best = dog
        object.dogs.append(dog)
        object.dogMap["d"] = dog

        let fields = try json(object)
        XCTAssertEqual(fields["ints"] as? [Int], [5, 6])
        XCTAssertEqual(fields["tags"] as? [String], ["t"])
        XCTAssertEqual(fields["scores"] as? [String: Double], ["k": 0.5])
        let best = try XCTUnwrap(fields["best"] as? [String: Any])
        XCTAssertEqual((best["toy"] as? [String: Any])?["name"] as? String, "rope")

        let decoded = try JSONDecoder().decode(CodableCollections.self, from: JSONEncoder().encode(object))
        XCTAssertEqual(Array(decoded.ints), [5, 6])
        XCTAssertEqual(Array(decoded.optStrings), [nil, "b"])
        XCTAssertEqual(Array(decoded.tags), ["t"])
        XCTAssertEqual(decoded.scores["k"], 0.5)
        XCTAssertEqual(decoded.optScores["n"], .some(nil))
        XCTAssertEqual(decoded.best?.toy?.name, "rope")
        XCTAssertEqual(decoded.dogs.first?.name, "Fido")
        XCTAssertEqual(decoded.dogMap["d"]??.name, "Fido")
        // Decoding makes new objects: the shared dog is now two.
        XCTAssertFalse(decoded.best === decoded.dogs.first)
    }

    func testCollectionsCodeOnTheirOwn() throws {
        let list = try JSONDecoder().decode(List<Int?>.self, from: Data("[1,null,3]".utf8))
        XCTAssertEqual(Array(list), [1, nil, 3])
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(list), as: UTF8.self), "[1,null,3]")
        let set = try JSONDecoder().decode(MutableSet<String>.self, from: Data(#"["a","a","b"]"#.utf8))
        XCTAssertEqual(set.count, 2)
        let map = try JSONDecoder().decode(Map<String, ObjectId>.self,
                                           from: Data(#"{"k":"1234567890abcdef12345678"}"#.utf8))
        XCTAssertEqual(map["k"], ObjectId("1234567890abcdef12345678"))
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(map), as: UTF8.self), #"{"k":"1234567890abcdef12345678"}"#)
        XCTAssertThrowsError(try JSONDecoder().decode(List<Int>.self, from: Data("[1,null]".utf8)))
    }

    func testManagedCollectionsEncodeTheirElements() throws {
        let realm = try openRealm(types)
        let object = CodableCollections()
        object.ints.append(objectsIn: [1, 2])
        object.scores["a"] = 1
        try realm.write { realm.add(object) }
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(object.ints), as: UTF8.self), "[1,2]")
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(object.scores), as: UTF8.self), #"{"a":1}"#)
    }

    func testEncodingAManagedObjectThrowsRealmsError() throws {
        let realm = try openRealm(types)
        let dog = CodableDog()
        dog.name = "Rex"
        XCTAssertNoThrow(try JSONEncoder().encode(dog))
        try realm.write { realm.add(dog) }
        XCTAssertThrowsError(try JSONEncoder().encode(dog)) { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(context.debugDescription.hasPrefix(
                "Only unmanaged Realm objects can be encoded using automatic Codable synthesis."), context.debugDescription)
        }
        // So does an accessor read from the Realm, and an unmanaged object linking to a managed one.
        XCTAssertThrowsError(try JSONEncoder().encode(realm.objects(CodableDog.self).first!))
        let holder = CodableCollections()
        holder.best = dog
        XCTAssertThrowsError(try JSONEncoder().encode(holder))
    }

    func testAModelThatEncodesItselfEncodesWhileManagedAndInResults() throws {
        let realm = try openRealm(types)
        try realm.write {
            realm.add(CodableNote(value: ["text": "a", "secret": "s"]))
            realm.add(CodableNote(value: ["text": "b", "secret": "t"]))
        }
        let notes = realm.objects(CodableNote.self).sorted(byKeyPath: "text")
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(notes), as: UTF8.self), #"[{"text":"a"},{"text":"b"}]"#)
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(AnyRealmCollection(notes)), as: UTF8.self),
                       #"[{"text":"a"},{"text":"b"}]"#)
    }

    func testLinkingObjectsAreLeftOutOfCoding() throws {
        let owner = CodableOwner()
        owner.name = "Ann"
        let pet = CodablePet()
        pet.name = "Tom"
        pet.owner = owner
        let fields = try json(pet)
        XCTAssertEqual(fields["owner"] as? [String: String], ["name": "Ann"])
        let decoded = try JSONDecoder().decode(CodablePet.self, from: JSONEncoder().encode(pet))
        let realm = try openRealm(types)
        try realm.write { realm.add(decoded) }
        XCTAssertEqual(realm.objects(CodableOwner.self).first?.pets.map(\.name), ["Tom"])
    }

    func testADecodedObjectWithAPrimaryKeyUpdatesAnExistingOne() throws {
        let realm = try openRealm(types)
        try realm.write { realm.add(filledScalars()) }
        let update = try decode(CodableScalars.self, """
            {"id": 7, "int": 99, "int8": 0, "int16": 0, "int32": 0, "int64": 0, "bool": false, "float": 0,
             "double": 0, "string": "new", "data": "", "date": 0, "objectId": "1234567890abcdef12345678",
             "uuid": "3A3C4E3C-5B86-4F8F-9F43-7A8E8E8A3C3D", "decimal": "0", "size": 1}
            """)
        try realm.write { realm.add(update, update: .modified) }
        XCTAssertEqual(realm.objects(CodableScalars.self).count, 1)
        let stored = try XCTUnwrap(realm.object(ofType: CodableScalars.self, forPrimaryKey: 7))
        XCTAssertEqual(stored.int, 99)
        XCTAssertEqual(stored.string, "new")
        XCTAssertNil(stored.optString)
    }
}
