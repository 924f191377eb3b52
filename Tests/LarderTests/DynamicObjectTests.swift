import CLarder
import Foundation
import XCTest
@testable import Larder

final class DynPet: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var age = 0
}

final class DynAddress: EmbeddedObject {
    @Persisted var city: String?
}

/// Every kind of property, read and written by name through `DynamicObject`.
final class DynAll: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var int = 0
    @Persisted var bool = false
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var decimal: Decimal128
    @Persisted var optInt: Int?
    @Persisted var optString: String?
    @Persisted var optDate: Date?
    @Persisted var any: AnyRealmValue
    @Persisted var pet: DynPet?
    @Persisted var address: DynAddress?
    @Persisted var ints: List<Int>
    @Persisted var optStrings: List<String?>
    @Persisted var pets: List<DynPet>
    @Persisted var tags: MutableSet<String>
    @Persisted var petSet: MutableSet<DynPet>
    @Persisted var scores: Map<String, Int>
    @Persisted var petMap: Map<String, DynPet?>
    @Persisted var anys: List<AnyRealmValue>
}

/// Holds a mixed value that may link to a class this program does not declare.
final class DynHolder: Object {
    @Persisted var value: AnyRealmValue
}

final class DynamicObjectTests: RealmTestCase {
    private func open() throws -> Realm {
        try openRealm([DynAll.self, DynPet.self, DynAddress.self, DynHolder.self])
    }

    private static let objectId = ObjectId("6396f1c8e0d2f4c1f27e5a11")
    private static let uuid = UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!

    /// A DynAll with every property set, and its pets.
    private func addFull(_ realm: Realm) throws {
        try realm.write {
            let rex = realm.create(DynPet.self, value: ["name": "Rex", "age": 3])
            let fido = realm.create(DynPet.self, value: ["name": "Fido", "age": 5])
            realm.create(DynAll.self, value: [
                "id": 1, "int": 7, "bool": true, "float": Float(1.5), "double": 2.25, "string": "hello",
                "data": Data([1, 2, 3]), "date": Date(timeIntervalSince1970: 1000), "objectId": Self.objectId,
                "uuid": Self.uuid, "decimal": Decimal128(number: 1.25), "optInt": 9, "optString": nil,
                "any": AnyRealmValue.string("mixed"), "pet": rex, "address": ["city": "Oslo"],
                "ints": [1, 2, 3], "optStrings": ["a", nil], "pets": [rex, fido], "tags": ["x", "y"],
                "petSet": [fido], "scores": ["a": 1, "b": 2], "petMap": ["best": rex, "none": nil],
                "anys": [AnyRealmValue.int(1), .string("two")],
            ])
        }
    }

    func testReadsEveryPropertyTypeByName() throws {
        let realm = try open()
        try addFull(realm)
        let all = realm.dynamicObjects("DynAll")
        XCTAssertEqual(all.count, 1)
        let object = all[0]
        XCTAssertEqual(object["id"] as? Int, 1)
        XCTAssertEqual(object.int as? Int, 7)
        XCTAssertEqual(object["bool"] as? Bool, true)
        XCTAssertEqual(object["float"] as? Float, 1.5)
        XCTAssertEqual(object["double"] as? Double, 2.25)
        XCTAssertEqual(object.string as? String, "hello")
        XCTAssertEqual(object["data"] as? Data, Data([1, 2, 3]))
        XCTAssertEqual(object["date"] as? Date, Date(timeIntervalSince1970: 1000))
        XCTAssertEqual(object["objectId"] as? ObjectId, Self.objectId)
        XCTAssertEqual(object["uuid"] as? UUID, Self.uuid)
        XCTAssertEqual(object["decimal"] as? Decimal128, Decimal128(number: 1.25))
        XCTAssertEqual(object.optInt as? Int, 9)
        XCTAssertNil(object.optString)
        XCTAssertNil(object["optDate"])
        XCTAssertEqual(object.value(forKey: "any") as? String, "mixed")

        let pet = try XCTUnwrap(object.pet as? DynamicObject)
        XCTAssertEqual(pet.name as? String, "Rex")
        XCTAssertEqual(pet.objectSchema.className, "DynPet")
        let address = try XCTUnwrap(object.address as? DynamicObject)
        XCTAssertEqual(address.city as? String, "Oslo")
        XCTAssertEqual(address.objectSchema.className, "DynAddress")

        XCTAssertEqual(Array(try XCTUnwrap(object.ints as? List<Int>)), [1, 2, 3])
        XCTAssertEqual(Array(try XCTUnwrap(object.optStrings as? List<String?>)), ["a", nil])
        let pets = try XCTUnwrap(object.pets as? List<DynamicObject>)
        XCTAssertEqual(pets.map { $0.name as? String }, ["Rex", "Fido"])
        XCTAssertEqual(Set(try XCTUnwrap(object.tags as? MutableSet<String>)), ["x", "y"])
        let petSet = try XCTUnwrap(object.petSet as? MutableSet<DynamicObject>)
        XCTAssertEqual(petSet.map { $0["name"] as? String }, ["Fido"])
        let scores = try XCTUnwrap(object.scores as? Map<String, Int>)
        XCTAssertEqual(scores["a"], 1)
        XCTAssertEqual(scores["b"], 2)
        let petMap = try XCTUnwrap(object.petMap as? Map<String, DynamicObject?>)
        XCTAssertEqual(petMap.count, 2)
        XCTAssertEqual(petMap["best"]??.name as? String, "Rex")
        XCTAssertEqual(petMap["none"], .some(nil))
        XCTAssertEqual(Array(try XCTUnwrap(object.anys as? List<AnyRealmValue>)), [.int(1), .string("two")])

        XCTAssertEqual(all.filter("pet == %@", pet).count, 1)
        XCTAssertEqual(all.filter("pet.name == 'Rex' AND ANY pets.age > 4").count, 1)
        XCTAssertEqual(all.sorted(byKeyPath: "pet.age").count, 1)
    }

    func testWritesEveryPropertyTypeByName() throws {
        let realm = try open()
        try addFull(realm)
        let object = realm.dynamicObjects("DynAll").first!
        let otherId = ObjectId.generate()
        let otherUUID = UUID()
        try realm.write {
            object.int = 70
            object["bool"] = false
            object.setValue(Float(3.5), forKey: "float")
            object.double = 4.5
            object.string = "bye"
            object.data = Data([9])
            object.date = Date(timeIntervalSince1970: 2000)
            object.objectId = otherId
            object.uuid = otherUUID
            object.decimal = Decimal128(number: 9.5)
            object.optInt = nil
            object.optString = "now"
            object.optDate = Date(timeIntervalSince1970: 5)
            object.any = AnyRealmValue.int(12)
            object.pet = realm.dynamicObject(ofType: "DynPet", forPrimaryKey: "Fido")
            object.address = ["city": "Rome"]
            (object.ints as! List<Int>).append(4)
            object.optStrings = ["b"]
            (object.pets as! List<DynamicObject>).remove(at: 0)
            (object.tags as! MutableSet<String>).insert("z")
            (object.scores as! Map<String, Int>)["c"] = 3
            (object.petMap as! Map<String, DynamicObject?>)["best"] = realm.dynamicObject(ofType: "DynPet", forPrimaryKey: "Fido")
            object.anys = [AnyRealmValue.bool(true)]
        }
        let typed = realm.object(ofType: DynAll.self, forPrimaryKey: 1)!
        try realm.write { object.pet = typed.pets.first! } // a model class's object of the link's class
        XCTAssertEqual((object.pet as? DynamicObject)?.name as? String, "Fido")
        XCTAssertEqual(typed.int, 70)
        XCTAssertEqual(typed.bool, false)
        XCTAssertEqual(typed.float, 3.5)
        XCTAssertEqual(typed.double, 4.5)
        XCTAssertEqual(typed.string, "bye")
        XCTAssertEqual(typed.data, Data([9]))
        XCTAssertEqual(typed.date, Date(timeIntervalSince1970: 2000))
        XCTAssertEqual(typed.objectId, otherId)
        XCTAssertEqual(typed.uuid, otherUUID)
        XCTAssertEqual(typed.decimal, Decimal128(number: 9.5))
        XCTAssertNil(typed.optInt)
        XCTAssertEqual(typed.optString, "now")
        XCTAssertEqual(typed.optDate, Date(timeIntervalSince1970: 5))
        XCTAssertEqual(typed.any, .int(12))
        XCTAssertEqual(typed.pet?.name, "Fido")
        XCTAssertEqual(typed.address?.city, "Rome")
        XCTAssertEqual(Array(typed.ints), [1, 2, 3, 4])
        XCTAssertEqual(Array(typed.optStrings), ["b"])
        XCTAssertEqual(typed.pets.map(\.name), ["Fido"])
        XCTAssertEqual(Set(typed.tags), ["x", "y", "z"])
        XCTAssertEqual(typed.scores["c"], 3)
        XCTAssertEqual(typed.petMap["best"]??.name, "Fido")
        XCTAssertEqual(Array(typed.anys), [.bool(true)])

        try realm.write { object.any = AnyRealmValue.fromArray([.int(1), .string("nested")]) }
        XCTAssertEqual((object.any as? List<AnyRealmValue>).map(Array.init), [.int(1), .string("nested")])
        XCTAssertEqual(typed.any.listValue.map(Array.init), [.int(1), .string("nested")])
    }

    func testCollectionsOfDynamicObjectsTakeDynamicObjects() throws {
        let realm = try open()
        try addFull(realm)
        let object = realm.dynamicObjects("DynAll").first!
        let pets = object.pets as! List<DynamicObject>
        let set = object.petSet as! MutableSet<DynamicObject>
        try realm.write {
            let spot = realm.dynamicCreate("DynPet", value: ["name": "Spot", "age": 1])
            pets.append(spot)
            set.insert(spot)
            pets.move(from: 2, to: 0)
        }
        XCTAssertEqual(pets.map { $0.name as? String }, ["Spot", "Rex", "Fido"])
        XCTAssertEqual(pets.sorted(byKeyPath: "age").map { $0.name as? String }, ["Spot", "Rex", "Fido"])
        XCTAssertEqual(pets.filter("age > 2").count, 2)
        XCTAssertEqual(set.count, 2)
        let typed = realm.object(ofType: DynAll.self, forPrimaryKey: 1)!
        XCTAssertEqual(typed.pets.map(\.name), ["Spot", "Rex", "Fido"])
        XCTAssertEqual(Set(typed.petSet.map(\.name)), ["Spot", "Fido"])
    }

    func testAModelObjectsCollectionsAsDynamicObjects() throws {
        let realm = try open()
        try addFull(realm)
        let typed = realm.object(ofType: DynAll.self, forPrimaryKey: 1)!
        let pets = typed.dynamicList("pets")
        XCTAssertEqual(pets.map { $0.name as? String }, ["Rex", "Fido"])
        XCTAssertEqual(pets.sorted(byKeyPath: "age", ascending: false).first?.name as? String, "Fido")
        XCTAssertEqual(pets.sum(ofProperty: "age") as Int, 8)
        try realm.write { pets.append(realm.dynamicCreate("DynPet", value: ["name": "Spot", "age": 1])) }
        XCTAssertEqual(typed.pets.map(\.name), ["Rex", "Fido", "Spot"])
        XCTAssertEqual(typed.dynamicMutableSet("petSet").first?.name as? String, "Fido")
        let map: Map<String, DynamicObject?> = typed.dynamicMap("petMap")
        XCTAssertEqual(map["best"]??.age as? Int, 3)
        let dynamic = realm.dynamicObjects("DynAll").first!
        XCTAssertEqual(dynamic.dynamicList("pets").count, 3)
        XCTAssertEqual(dynamic.dynamicList("pets").sorted(byKeyPath: "name").first?.name as? String, "Fido")
    }

    func testAMapOfDynamicObjectsSortsFiltersAndAggregates() throws {
        let realm = try open()
        try addFull(realm)
        let map = realm.dynamicObjects("DynAll").first!.petMap as! Map<String, DynamicObject?>
        try realm.write { map["other"] = realm.dynamicObject(ofType: "DynPet", forPrimaryKey: "Fido") }
        XCTAssertEqual(map.sorted(byKeyPath: "age", ascending: false).map { $0?.name as? String }, ["Fido", "Rex", nil])
        XCTAssertEqual(map.filter("age > 3").map { $0?.name as? String }, ["Fido"])
        XCTAssertEqual(map.sum(ofProperty: "age") as Int, 8)
        XCTAssertEqual(map.max(ofProperty: "age") as Int?, 5)
    }

    func testAThreadSafeReferenceResolvesOnAnotherThread() throws {
        let realm = try open()
        try realm.write { realm.create(DynPet.self, value: ["name": "Rex", "age": 3]) }
        let reference = ThreadSafeReference(to: realm.dynamicObjects("DynPet").first!)
        let configuration = configuration([DynAll.self, DynPet.self, DynAddress.self, DynHolder.self])
        nonisolated(unsafe) var age: Int?
        nonisolated(unsafe) let shared = reference
        onAnotherThread {
            let other = try Realm(configuration: configuration)
            age = other.resolve(shared)?.age as? Int
        }
        XCTAssertEqual(age, 3)
    }

    func testDynamicObjectsFilterSortAndAggregate() throws {
        let realm = try open()
        try realm.write {
            for (name, age) in [("Rex", 3), ("Fido", 5), ("Bella", 1)] {
                realm.dynamicCreate("DynPet", value: ["name": name, "age": age])
            }
        }
        let pets = realm.dynamicObjects("DynPet")
        XCTAssertEqual(pets.count, 3)
        XCTAssertEqual(pets.filter("age > %@", 2).sorted(byKeyPath: "name").map { $0.name as? String }, ["Fido", "Rex"])
        XCTAssertEqual(pets.sorted(byKeyPath: "age", ascending: false).first?.name as? String, "Fido")
        XCTAssertEqual(pets.sum(ofProperty: "age") as Int, 9)
        XCTAssertEqual(pets.max(ofProperty: "age") as Int?, 5)
        XCTAssertEqual(pets.distinct(by: ["age"]).count, 3)
        XCTAssertEqual(pets.value(forKey: "name") as? [String], ["Rex", "Fido", "Bella"]) // creation order
        XCTAssertEqual(realm.objects(DynPet.self).count, 3)
        try realm.write { realm.delete(pets.filter("name == 'Bella'")) }
        XCTAssertEqual(pets.count, 2) // live
    }

    func testPrimaryKeyLookup() throws {
        let realm = try open()
        try realm.write { realm.create(DynPet.self, value: ["name": "Rex", "age": 3]) }
        let rex = try XCTUnwrap(realm.dynamicObject(ofType: "DynPet", forPrimaryKey: "Rex"))
        XCTAssertEqual(rex.age as? Int, 3)
        XCTAssertNil(realm.dynamicObject(ofType: "DynPet", forPrimaryKey: "Nobody"))
    }

    func testDynamicCreateWithNestedValuesAndUpdate() throws {
        let realm = try open()
        try realm.write {
            let created = realm.dynamicCreate("DynAll", value: ["id": 5, "string": "five", "pet": ["name": "Rex", "age": 2],
                                                                "pets": [["name": "Fido", "age": 4]], "address": ["city": "Oslo"]])
            XCTAssertEqual(created.objectSchema.className, "DynAll")
            XCTAssertEqual(created.int as? Int, 0) // Realm's default for a value not given
        }
        let typed = realm.object(ofType: DynAll.self, forPrimaryKey: 5)!
        XCTAssertEqual(typed.string, "five")
        XCTAssertEqual(typed.pet?.name, "Rex")
        XCTAssertEqual(typed.pets.first?.name, "Fido")
        XCTAssertEqual(typed.address?.city, "Oslo")
        try realm.write {
            realm.dynamicCreate("DynPet", value: ["name": "Rex", "age": 9], update: .modified)
            realm.dynamicCreate("DynAll", value: ["id": 5, "int": 1], update: .modified)
        }
        XCTAssertEqual(realm.objects(DynPet.self).count, 2)
        XCTAssertEqual(typed.pet?.age, 9)
        XCTAssertEqual(typed.int, 1)
        XCTAssertEqual(typed.string, "five") // .modified writes only what it is given
    }

    func testDuplicatePrimaryKeyThrowsFromWrite() throws {
        let realm = try open()
        try realm.write { realm.dynamicCreate("DynPet", value: ["name": "Rex"]) }
        XCTAssertThrowsError(try realm.write { realm.dynamicCreate("DynPet", value: ["name": "Rex"]) }) { error in
            XCTAssertTrue("\(error)".contains("existing primary key value 'Rex'"), "\(error)")
        }
    }

    func testEqualityIdentityAndInvalidation() throws {
        let realm = try open()
        try realm.write { realm.create(DynPet.self, value: ["name": "Rex"]) }
        let typed = realm.objects(DynPet.self).first!
        let first = realm.dynamicObjects("DynPet").first!
        let second = realm.dynamicObject(ofType: "DynPet", forPrimaryKey: "Rex")!
        XCTAssertTrue(first.isSameObject(as: second))
        XCTAssertTrue(first.isSameObject(as: typed))
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.hashValue, second.hashValue)
        XCTAssertEqual(first.realm, realm)
        XCTAssertFalse(first.isInvalidated)
        XCTAssertTrue(first.description.hasPrefix("DynPet {"), first.description)
        try realm.write { realm.delete(second) }
        XCTAssertTrue(first.isInvalidated)
        XCTAssertTrue(typed.isInvalidated)
    }

    func testFreezeAndThaw() throws {
        let realm = try open()
        try realm.write { realm.create(DynPet.self, value: ["name": "Rex", "age": 3]) }
        let live = realm.dynamicObjects("DynPet").first!
        let frozen = live.freeze()
        XCTAssertTrue(frozen.isFrozen)
        try realm.write { live.age = 4 }
        XCTAssertEqual(frozen.age as? Int, 3)
        XCTAssertEqual(frozen.thaw()?.age as? Int, 4)
        XCTAssertEqual(realm.dynamicObjects("DynPet").freeze().first?.age as? Int, 4)
    }

    func testAnyRealmValueDynamicObject() throws {
        let realm = try open()
        try realm.write {
            realm.add(DynHolder(value: ["value": AnyRealmValue.object(DynPet(value: ["name": "Rex", "age": 2]))]))
        }
        let value = realm.objects(DynHolder.self).first!.value
        XCTAssertNotNil(value.object(DynPet.self))
        let dynamic = try XCTUnwrap(value.dynamicObject)
        XCTAssertEqual(dynamic.age as? Int, 2)
        XCTAssertTrue(dynamic.isSameObject(as: value.object(DynPet.self)))
        XCTAssertNil(AnyRealmValue.int(1).dynamicObject)
        XCTAssertNil(AnyRealmValue.none.dynamicObject)
    }

    /// A class only C declared, which no model class of this program names: a
    /// mixed link to it reads as a `DynamicObject` (Realm's rule), which reads
    /// and writes its properties; `realm.dynamicObjects` and the schema see it too.
    func testALinkToAClassOnlyCDeclaredReadsAsADynamicObject() throws {
        let realm = try open()
        try realm.write { realm.add(DynHolder()) }
        let ghost = try storeGhost(in: realm, linkedFrom: realm.objects(DynHolder.self).first!, name: "Casper")
        let holder = realm.objects(DynHolder.self).first!
        guard case .object(let object) = holder.value, let read = object as? DynamicObject else {
            return XCTFail("expected a DynamicObject, got \(holder.value)")
        }
        XCTAssertEqual(read.name as? String, "Casper")
        XCTAssertEqual(read.objectSchema.className, "Ghost")
        XCTAssertEqual(holder.value.dynamicObject?.name as? String, "Casper")
        XCTAssertEqual((realm.schema["Ghost"]?.objectClass).map { ObjectIdentifier($0) }, ObjectIdentifier(DynamicObject.self))
        try realm.write { read.name = "Slimer" }
        XCTAssertEqual(realm.dynamicObjects("Ghost").first?.name as? String, "Slimer")
        XCTAssertEqual(readGhostName(realm, ghost), "Slimer")
        try realm.write { realm.delete(read) }
        XCTAssertEqual(holder.value, .none) // a deleted target leaves null, as for any link
    }

    /// A second configuration that declares more classes wrote the file; this one
    /// declares only DynHolder, and reads the link to the class it lacks dynamically.
    func testAConfigurationDeclaringFewerClassesReadsTheOthersDynamically() throws {
        do {
            let full = try open()
            try full.write {
                full.add(DynHolder(value: ["value": AnyRealmValue.object(DynPet(value: ["name": "Rex", "age": 2]))]))
            }
        }
        let narrow = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [DynHolder.self]))
        let value = narrow.objects(DynHolder.self).first!.value
        guard case .object(let object) = value else { return XCTFail("\(value)") }
        XCTAssertTrue(object is DynamicObject)
        XCTAssertEqual(object["name"] as? String, "Rex")
        XCTAssertEqual(narrow.dynamicObjects("DynPet").count, 1)
        XCTAssertEqual(narrow.schema.objectSchema.map(\.className).sorted(),
                       ["DynAddress", "DynAll", "DynHolder", "DynPet"])
    }

    func testObservingADynamicObjectAndDynamicResults() throws {
        let realm = try open()
        try realm.write { realm.create(DynPet.self, value: ["name": "Rex", "age": 3]) }
        let rex = realm.dynamicObjects("DynPet").first!
        var changes: [String] = []
        let token = rex.observe(keyPaths: ["age"]) { (change: ObjectChange<DynamicObject>) in
            switch change {
            case .change(_, let properties): changes += properties.map { "\($0.name)=\($0.newValue ?? "nil")" }
            case .deleted: changes.append("deleted")
            case .error(let error): XCTFail("\(error)")
            }
        }
        let pets = realm.dynamicObjects("DynPet").filter("age > 1")
        var counts: [Int] = []
        let resultsToken = pets.observe { change in
            switch change {
            case .initial(let results): counts.append(results.count)
            case .update(let results, _, _, _): counts.append(results.count)
            case .error(let error): XCTFail("\(error)")
            }
        }
        realm.refresh() // delivers .initial
        try realm.write { rex.age = 4 }
        try realm.write { realm.dynamicCreate("DynPet", value: ["name": "Fido", "age": 5]) }
        try realm.write { realm.delete(rex) }
        XCTAssertEqual(changes, ["age=4", "deleted"])
        XCTAssertEqual(counts, [1, 1, 2, 1])
        token.invalidate()
        resultsToken.invalidate()
    }

    // MARK: C helpers

    /// Declares class Ghost (name: string) with the C API, creates one and links
    /// holder's mixed value to it; returns the ghost.
    private func storeGhost(in realm: Realm, linkedFrom holder: DynHolder, name: String) throws -> lar_obj {
        let env = realm.instance.environment.handle
        var info = lar_env_info()
        lar_env_info_get(env, &info)
        let declared = "Ghost".withCString { className in
            "name".withCString { propertyName in
                var property = lar_property_def(name: propertyName, type: LAR_TYPE_STRING, collection: LAR_COLLECTION_NONE,
                                                flags: 0, target_class: nil, origin_property: nil)
                return withUnsafePointer(to: &property) { properties in
                    var ghost = lar_class_def(name: className, properties: properties, property_count: 1, flags: 0)
                    return lar_schema_apply(env, &ghost, 1, info.schema_version)
                }
            }
        }
        XCTAssertEqual(declared, LAR_OK)
        var ghostClass = lar_class()
        XCTAssertEqual(lar_class_find(env, "Ghost", &ghostClass), LAR_OK)
        var ghost = lar_obj()
        try realm.write {
            let rc = name.withCString { text -> Int32 in
                var value = lar_value()
                value.type = LAR_TYPE_STRING
                value.as.string = lar_string(data: text, size: strlen(text))
                return lar_obj_create(realm.instance.txn, ghostClass, &value, 1, &ghost)
            }
            XCTAssertEqual(rc, LAR_OK)
            var link = lar_value()
            link.type = LAR_TYPE_LINK
            link.as.link = ghost
            let table = holder.core.table!
            let prop = UInt32(table.propertyIndex[DynHolder.schema.slotByName["value"]!])
            XCTAssertEqual(lar_obj_set(realm.instance.txn, lar_obj(cls: table.id, key: holder.core.key), prop, &link), LAR_OK)
        }
        return ghost
    }

    private func readGhostName(_ realm: Realm, _ ghost: lar_obj) -> String? {
        var txn: OpaquePointer?
        guard lar_txn_begin(realm.instance.environment.handle, LAR_TXN_READ, &txn) == LAR_OK else { return nil }
        defer { lar_txn_free(txn) }
        var value = lar_value()
        guard lar_obj_get(txn, ghost, 0, &value) == LAR_OK else { return nil }
        return String(larderString: value.as.string)
    }

    // MARK: Traps

    func testAnUnknownPropertyNameTraps() throws {
        try assertChildTraps("dynamic-unknown-property", message: "Invalid property name 'color' for class 'DynPet'.")
        try assertChildTraps("dynamic-unknown-property-set", message: "Invalid property name 'color' for class 'DynPet'.")
    }

    func testWritingOutsideAWriteTraps() throws {
        try assertChildTraps("dynamic-set-outside-write", message: "Attempting to modify object outside of a write transaction")
        try assertChildTraps("dynamic-create-outside-write",
                             message: "Can only add, remove, or create objects in a Realm in a write transaction")
    }

    func testAnUnknownClassTraps() throws {
        try assertChildTraps("dynamic-unknown-class", message: "Object type 'Cat' is not managed by the Realm.")
    }

    func testAValueOfTheWrongTypeTraps() throws {
        try assertChildTraps("dynamic-wrong-type", message: "Invalid value 'old' of type 'String' for 'age' property")
        try assertChildTraps("dynamic-wrong-link-class", message: "for 'pet' property")
    }

    func testCreatingAnEmbeddedObjectTraps() throws {
        try assertChildTraps("dynamic-create-embedded", message: "Embedded objects cannot be created directly")
    }

    func testChangingThePrimaryKeyTraps() throws {
        try assertChildTraps("dynamic-primary-key", message: "Primary key can't be changed after an object is inserted.")
    }

    func testAddingAnUnmanagedDynamicObjectTraps() throws {
        try assertChildTraps("dynamic-add-unmanaged", message: "A DynamicObject is read from a Realm")
    }

    func testADynamicListOfAPropertyThatIsNoListOfObjectsTraps() throws {
        try assertChildTraps("dynamic-list-of-values", message: "Property 'DynAll.ints' is not a List of objects")
    }

    func testAMissingPrimaryKeyTraps() throws {
        try assertChildTraps("dynamic-missing-primary-key", message: "Missing value for property 'DynPet.name'")
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario.hasPrefix("dynamic-") else { return false }
        let realm = try Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: path), objectTypes: [DynAll.self, DynPet.self, DynAddress.self, DynHolder.self]))
        try realm.write { realm.create(DynPet.self, value: ["name": "Rex", "age": 3], update: .modified) }
        let rex = realm.dynamicObjects("DynPet").first!
        fputs("ready to trap\n", stderr)
        switch scenario {
        case "dynamic-unknown-property": _ = rex.color
        case "dynamic-unknown-property-set": try realm.write { rex["color"] = "brown" }
        case "dynamic-set-outside-write": rex.age = 4
        case "dynamic-create-outside-write": realm.dynamicCreate("DynPet", value: ["name": "Fido"])
        case "dynamic-unknown-class": _ = realm.dynamicObjects("Cat")
        case "dynamic-wrong-type": try realm.write { rex.age = "old" }
        case "dynamic-wrong-link-class":
            try realm.write {
                let all = realm.dynamicCreate("DynAll", value: ["id": 1])
                all.pet = all // a DynAll where a DynPet belongs
            }
        case "dynamic-create-embedded": try realm.write { realm.dynamicCreate("DynAddress", value: ["city": "Oslo"]) }
        case "dynamic-primary-key": try realm.write { rex.name = "Max" }
        case "dynamic-add-unmanaged": try realm.write { realm.add(DynamicObject()) }
        case "dynamic-list-of-values":
            try realm.write { realm.create(DynAll.self, value: ["id": 1]) }
            _ = realm.objects(DynAll.self).first!.dynamicList("ints")
        case "dynamic-missing-primary-key": try realm.write { realm.dynamicCreate("DynPet", value: ["age": 1]) }
        default: return false
        }
        print("NO TRAP")
        return true
    }
}
