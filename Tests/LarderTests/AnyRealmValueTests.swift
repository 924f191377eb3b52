import CLarder
import Foundation
import XCTest
@testable import Larder

// Models with AnyRealmValue, named apart from the other tests' models.

final class MixedCat: Object {
    @Persisted var name = ""
}

final class MixedKeyedToy: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class MixedHolder: Object {
    @Persisted var name = ""
    @Persisted var value: AnyRealmValue
    @Persisted var initial: AnyRealmValue = .string("start")
    @Persisted var values: List<AnyRealmValue>
    @Persisted var valueSet: MutableSet<AnyRealmValue>
    @Persisted var valueMap: Map<String, AnyRealmValue>
}

final class MixedKeyedHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
}

/// Refused by the schema, as Realm refuses it.
final class OptionalMixedHolder: Object {
    @Persisted var name = ""
    @Persisted var value: AnyRealmValue?
}

final class OptionalMixedListHolder: Object {
    @Persisted var values: List<AnyRealmValue?>
}

func mixedConfiguration(_ url: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, objectTypes: [MixedCat.self, MixedKeyedToy.self, MixedHolder.self,
                                                    MixedKeyedHolder.self, Toy.self])
}

/// `AnyRealmValue`: properties and collection elements of any type (the C core's mixed values).
final class AnyRealmValueTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: mixedConfiguration(fileURL)) }

    /// One value of each case but `.object`, with payloads a round trip could damage.
    private let scalars: [AnyRealmValue] = [
        .none, .int(-42), .int(Int.max), .bool(true), .bool(false), .float(1.5), .double(-2.25),
        .string("héllo"), .string(""), .data(Data([0, 1, 2, 255])), .data(Data()),
        .date(Date(timeIntervalSince1970: 1_700_000_000.25)), .objectId(ObjectId("5f481c21f634a1f4eeaa7268")),
        .decimal128(Decimal128(stringLiteral: "123.456")), .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!),
    ]

    // MARK: The enum

    func testAccessorsAnswerOnlyForTheirCase() {
        let cat = MixedCat()
        XCTAssertEqual(AnyRealmValue(), .none)
        XCTAssertEqual(AnyRealmValue.int(3).intValue, 3)
        XCTAssertNil(AnyRealmValue.int(3).doubleValue)
        XCTAssertEqual(AnyRealmValue.bool(true).boolValue, true)
        XCTAssertEqual(AnyRealmValue.float(2).floatValue, 2)
        XCTAssertNil(AnyRealmValue.float(2).doubleValue)
        XCTAssertEqual(AnyRealmValue.double(2).doubleValue, 2)
        XCTAssertEqual(AnyRealmValue.string("a").stringValue, "a")
        XCTAssertNil(AnyRealmValue.string("a").dataValue)
        XCTAssertEqual(AnyRealmValue.data(Data([1])).dataValue, Data([1]))
        XCTAssertEqual(AnyRealmValue.date(Date(timeIntervalSince1970: 5)).dateValue, Date(timeIntervalSince1970: 5))
        let id = ObjectId.generate()
        XCTAssertEqual(AnyRealmValue.objectId(id).objectIdValue, id)
        XCTAssertEqual(AnyRealmValue.decimal128(Decimal128(5)).decimal128Value, Decimal128(5))
        let uuid = UUID()
        XCTAssertEqual(AnyRealmValue.uuid(uuid).uuidValue, uuid)
        XCTAssertNil(AnyRealmValue.none.intValue)
        XCTAssertTrue(AnyRealmValue.object(cat).object(MixedCat.self) === cat)
        XCTAssertNil(AnyRealmValue.object(cat).object(Toy.self))
        XCTAssertNil(AnyRealmValue.int(1).object(MixedCat.self))
    }

    func testEqualityIsByCaseAndPayload() {
        XCTAssertEqual(AnyRealmValue.int(1), .int(1))
        XCTAssertNotEqual(AnyRealmValue.int(1), .int(2))
        XCTAssertNotEqual(AnyRealmValue.int(1), .double(1), "as Realm's enum: another case is another value")
        XCTAssertNotEqual(AnyRealmValue.float(1), .double(1))
        XCTAssertNotEqual(AnyRealmValue.none, .int(0))
        XCTAssertNotEqual(AnyRealmValue.string(""), .none)
        let a = MixedCat(), b = MixedCat()
        XCTAssertEqual(AnyRealmValue.object(a), .object(a))
        XCTAssertNotEqual(AnyRealmValue.object(a), .object(b), "unmanaged objects compare by identity")
        let set: Set<AnyRealmValue> = [.int(1), .int(1), .double(1), .string("1"), .object(a), .object(a), .none]
        XCTAssertEqual(set.count, 5)
        XCTAssertEqual(AnyRealmValue.string("x").hashValue, AnyRealmValue.string("x").hashValue)
    }

    /// As Realm's: objects compare with Object's `==`, which finds two accessors of
    /// one managed object equal only when the class has a primary key.
    func testManagedObjectsCompareAsObjectsDo() throws {
        let realm = try open()
        let toy = MixedKeyedToy(value: ["id": 1])
        let cat = MixedCat(value: ["name": "Tom"])
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.value = .object(toy)
            holder.values.append(.object(cat))
        }
        let read = holder.value
        XCTAssertFalse(read.object(MixedKeyedToy.self) === toy, "a read gives a new accessor")
        XCTAssertEqual(read, .object(toy))
        XCTAssertEqual(read.hashValue, AnyRealmValue.object(toy).hashValue)
        let other = MixedKeyedToy(value: ["id": 2])
        try realm.write { realm.add(other) }
        XCTAssertNotEqual(read, .object(other))
        let readCat = holder.values[0]
        XCTAssertNotEqual(readCat, .object(cat), "no primary key: only the instance equals itself")
        XCTAssertTrue(readCat.object(MixedCat.self)!.isSameObject(as: cat))
    }

    // MARK: Properties

    func testUnmanagedPropertyHoldsEveryCase() {
        let holder = MixedHolder()
        XCTAssertEqual(holder.value, .none, "the default is .none")
        XCTAssertEqual(holder.initial, .string("start"))
        for value in scalars {
            holder.value = value
            XCTAssertEqual(holder.value, value)
        }
        let cat = MixedCat()
        holder.value = .object(cat)
        XCTAssertTrue(holder.value.object(MixedCat.self) === cat)
    }

    func testEveryCaseRoundTripsManagedAndAcrossReopen() throws {
        var keys: [ObjectId] = []
        do {
            let realm = try open()
            try realm.write {
                for value in scalars {
                    let holder = MixedHolder(value: ["name": "\(keys.count)"])
                    holder.value = value // set while unmanaged: copied in by add
                    realm.add(holder)
                    XCTAssertEqual(holder.value, value)
                    keys.append(ObjectId.generate())
                }
            }
            let holders = realm.objects(MixedHolder.self)
            XCTAssertEqual(holders.count, scalars.count)
            for holder in holders { XCTAssertEqual(holder.value, scalars[Int(holder.name)!]) }
            XCTAssertEqual(holders.first!.initial, .string("start"))
        }
        let reopened = try open()
        let holders = reopened.objects(MixedHolder.self)
        XCTAssertEqual(holders.count, scalars.count)
        for holder in holders {
            XCTAssertEqual(holder.value, scalars[Int(holder.name)!], "holder \(holder.name)")
        }
    }

    func testAManagedPropertyChangesType() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.value, .none)
        for value in scalars + scalars.reversed() {
            try realm.write { holder.value = value }
            XCTAssertEqual(holder.value, value)
            XCTAssertEqual(realm.objects(MixedHolder.self).first!.value, value)
        }
        let cat = MixedCat(value: ["name": "Tom"])
        try realm.write { holder.value = .object(cat) }
        XCTAssertEqual(holder.value.object(MixedCat.self)?.name, "Tom")
        try realm.write { holder.value = .int(7) }
        XCTAssertEqual(holder.value, .int(7))
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1, "replacing a link deletes nothing")
        try realm.write { holder.value = .none }
        XCTAssertEqual(holder.value, .none)
    }

    func testIntegersKeepTheirCase() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.value = .double(3)
        }
        XCTAssertEqual(holder.value, .double(3))
        XCTAssertNil(holder.value.intValue)
        try realm.write { holder.value = .float(3) }
        XCTAssertEqual(holder.value, .float(3))
        try realm.write { holder.value = .int(3) }
        XCTAssertEqual(holder.value, .int(3))
    }

    func testSchemaReportsMixed() throws {
        let property = MixedHolder.objectSchema["value"]!
        XCTAssertEqual(property.type, .any)
        XCTAssertFalse(property.isOptional)
        XCTAssertEqual(MixedHolder.objectSchema["values"]?.type, .any)
        XCTAssertEqual(MixedHolder.objectSchema["values"]?.isArray, true)
        XCTAssertEqual(MixedHolder.objectSchema["valueSet"]?.isSet, true)
        XCTAssertEqual(MixedHolder.objectSchema["valueMap"]?.isMap, true)
        let realm = try open()
        let stored = realm.schema["MixedHolder"]!["value"]!
        XCTAssertEqual(stored.type, .any)
        XCTAssertEqual(stored.description.contains("type = mixed;"), true)
        let env = realm.instance.environment.handle
        var cls = lar_class(), index: UInt32 = 0, def = lar_property_def()
        XCTAssertEqual(lar_class_find(env, "MixedHolder", &cls), LAR_OK)
        XCTAssertEqual(lar_property_find(env, cls, "value", &index), LAR_OK)
        XCTAssertEqual(lar_property_info_get(env, cls, index, &def), LAR_OK)
        XCTAssertEqual(def.type, LAR_TYPE_MIXED)
        XCTAssertEqual(def.flags & LAR_PROP_OPTIONAL, 0)
    }

    func testAnOptionalAnyRealmValueIsRefused() throws {
        let config = Realm.Configuration(fileURL: fileURL, objectTypes: [OptionalMixedHolder.self])
        XCTAssertThrowsError(try Realm(configuration: config)) {
            XCTAssertEqual(($0 as? Realm.Error)?.message, "AnyRealmValue property 'value' must not be marked as " +
                           "optional: nil values are represented as AnyRealmValue.none")
        }
        let listConfig = Realm.Configuration(fileURL: fileURL, objectTypes: [OptionalMixedListHolder.self])
        XCTAssertThrowsError(try Realm(configuration: listConfig)) {
            XCTAssertEqual(($0 as? Realm.Error)?.message, "List<AnyRealmValue> property 'values' must not be marked as " +
                           "optional: nil values are represented as AnyRealmValue.none")
        }
        // Known to this process now, the classes do not stop a Realm opened without objectTypes.
        XCTAssertNoThrow(try Realm(configuration: Realm.Configuration(fileURL: fileURL)))
    }

    // MARK: Links

    func testAddIsRecursiveThroughAMixedLink() throws {
        let realm = try open()
        let cat = MixedCat(value: ["name": "Tom"])
        let holder = MixedHolder(value: ["value": AnyRealmValue.object(cat)])
        try realm.write { realm.add(holder) }
        XCTAssertEqual(cat.realm, realm, "the target itself became managed")
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        let read = holder.value.object(MixedCat.self)
        XCTAssertEqual(read?.name, "Tom")
        XCTAssertTrue(read!.isSameObject(as: cat))
    }

    func testAssigningAnUnmanagedObjectAddsIt() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        let toy = Toy(value: ["name": "Ball"])
        try realm.write { holder.value = .object(toy) }
        XCTAssertNotNil(toy.realm)
        XCTAssertEqual(holder.value.object(Toy.self)?.name, "Ball")
        XCTAssertNil(holder.value.object(MixedCat.self), "the link keeps its class")
        // A managed object of this Realm is linked as it is.
        let cat = MixedCat(value: ["name": "Tom"])
        try realm.write { realm.add(cat) }
        try realm.write { holder.value = .object(cat) }
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        XCTAssertTrue(holder.value.object(MixedCat.self)!.isSameObject(as: cat))
    }

    func testLinksToObjectsOfTwoClassesReadWithTheirClassAfterReopen() throws {
        do {
            let realm = try open()
            try realm.write {
                realm.add(MixedHolder(value: ["name": "cat", "value": AnyRealmValue.object(MixedCat(value: ["name": "Tom"]))]))
                realm.add(MixedHolder(value: ["name": "toy", "value": AnyRealmValue.object(Toy(value: ["name": "Ball"]))]))
            }
        }
        let realm = try open()
        let holders = realm.objects(MixedHolder.self)
        let cat = holders.first { $0.name == "cat" }!.value
        let toy = holders.first { $0.name == "toy" }!.value
        guard case .object(let catObject) = cat, case .object(let toyObject) = toy else {
            return XCTFail("links read as \(cat), \(toy)")
        }
        XCTAssertTrue(catObject is MixedCat)
        XCTAssertTrue(toyObject is Toy)
        XCTAssertEqual(cat.object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(toy.object(Toy.self)?.name, "Ball")
        XCTAssertEqual(catObject.realm, realm)
    }

    /// Each Realm instance resolves a stored class to its model class once, then by
    /// class id: reads of many links, through properties and lists, keep their class.
    func testRepeatedLinkReadsKeepTheirClass() throws {
        let realm = try open()
        try realm.write {
            for i in 0..<50 {
                let target: Object = i % 2 == 0 ? MixedCat(value: ["name": "cat\(i)"]) : Toy(value: ["name": "toy\(i)"])
                let holder = MixedHolder(value: ["name": "h\(i)"])
                holder.value = .object(target)
                holder.values.append(.object(target))
                realm.add(holder)
            }
        }
        for _ in 0..<3 {
            for holder in realm.objects(MixedHolder.self) {
                let i = Int(holder.name.dropFirst())!
                for value in [holder.value, holder.values[0]] {
                    if i % 2 == 0 {
                        XCTAssertEqual(value.object(MixedCat.self)?.name, "cat\(i)")
                    } else {
                        XCTAssertEqual(value.object(Toy.self)?.name, "toy\(i)")
                    }
                }
            }
        }
    }

    /// A class first used in a cancelled write may be undeclared with it: the class a
    /// mixed link resolved to in that write is looked up again afterwards.
    func testALinkReadInACancelledWriteResolvesAgain() throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL))
        realm.beginWrite()
        let first = MixedHolder(value: ["name": "first"])
        first.value = .object(MixedCat(value: ["name": "Tom"]))
        realm.add(first)
        XCTAssertEqual(first.value.object(MixedCat.self)?.name, "Tom")
        realm.cancelWrite()
        XCTAssertTrue(realm.objects(MixedHolder.self).isEmpty)
        let second = MixedHolder(value: ["name": "second"])
        second.value = .object(MixedCat(value: ["name": "Felix"]))
        try realm.write { realm.add(second) }
        XCTAssertEqual(second.value.object(MixedCat.self)?.name, "Felix")
        XCTAssertEqual(realm.objects(MixedCat.self).first?.name, "Felix")
        XCTAssertTrue(second.value.object(MixedCat.self)!.isSameObject(as: realm.objects(MixedCat.self).first!))
    }

    func testUpdatePolicyAppliesThroughMixedLinks() throws {
        let realm = try open()
        try realm.write { realm.add(MixedKeyedToy(value: ["id": 1, "name": "old"])) }
        let holder = MixedKeyedHolder(value: ["id": 1, "value": AnyRealmValue.object(MixedKeyedToy(value: ["id": 1, "name": "new"]))])
        try realm.write { realm.add(holder, update: .modified) }
        XCTAssertEqual(realm.objects(MixedKeyedToy.self).count, 1)
        XCTAssertEqual(realm.objects(MixedKeyedToy.self).first?.name, "new")
        XCTAssertEqual(holder.value.object(MixedKeyedToy.self)?.name, "new")
        // Without an update policy the existing primary key fails the write.
        let second = MixedKeyedHolder(value: ["id": 2, "value": AnyRealmValue.object(MixedKeyedToy(value: ["id": 1]))])
        XCTAssertThrowsError(try realm.write { realm.add(second) })
    }

    func testUpsertReplacesAMixedValueOfAnyType() throws {
        let realm = try open()
        try realm.write { realm.add(MixedKeyedHolder(value: ["id": 1, "value": AnyRealmValue.int(1)])) }
        let stored = realm.object(ofType: MixedKeyedHolder.self, forPrimaryKey: 1)!
        XCTAssertEqual(stored.value, .int(1))
        try realm.write { realm.add(MixedKeyedHolder(value: ["id": 1, "value": AnyRealmValue.string("x")]), update: .modified) }
        XCTAssertEqual(stored.value, .string("x"))
        try realm.write { realm.add(MixedKeyedHolder(value: ["id": 1, "value": AnyRealmValue.object(MixedCat())]), update: .all) }
        XCTAssertNotNil(stored.value.object(MixedCat.self))
        try realm.write { realm.add(MixedKeyedHolder(value: ["id": 1]), update: .all) }
        XCTAssertEqual(stored.value, .none)
        try realm.write { realm.create(MixedKeyedHolder.self, value: ["id": 1, "value": 2.5] as [String: Any], update: .modified) }
        XCTAssertEqual(stored.value, .double(2.5))
        XCTAssertEqual(realm.objects(MixedKeyedHolder.self).count, 1)
    }

    func testValueInputFillsCollectionsOfMixedValues() throws {
        let realm = try open()
        let cat = MixedCat(value: ["name": "Tom"])
        let holder = try realm.write {
            realm.create(MixedHolder.self, value: [
                "values": [1, "two", nil, AnyRealmValue.double(3), cat],
                "valueSet": [true, 1] as [Any],
                "valueMap": ["a": 1, "b": "b", "c": NSNull()],
            ])
        }
        XCTAssertEqual(Array(holder.values.prefix(4)), [.int(1), .string("two"), .none, .double(3)])
        XCTAssertEqual(holder.values[4].object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(Set(holder.valueSet), [.bool(true), .int(1)], "a bool is never a number")
        XCTAssertEqual(holder.valueMap["a"], .int(1))
        XCTAssertEqual(holder.valueMap["b"], .string("b"))
        XCTAssertEqual(holder.valueMap["c"], AnyRealmValue.none)
        let unmanaged = MixedHolder(value: ["values": [AnyRealmValue.int(1), .string("x")], "value": Data([7])])
        XCTAssertEqual(Array(unmanaged.values), [.int(1), .string("x")])
        XCTAssertEqual(unmanaged.value, .data(Data([7])))
    }

    func testJSONNumbersKeepTheirType() throws {
        let json = #"{"name": "j", "value": 5, "values": [true, 2.5, -7, "x", null], "valueMap": {"f": false}}"#
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let realm = try open()
        let holder = try realm.write { realm.create(MixedHolder.self, value: parsed) }
        XCTAssertEqual(holder.value, .int(5))
        XCTAssertEqual(Array(holder.values), [.bool(true), .double(2.5), .int(-7), .string("x"), .none])
        XCTAssertEqual(holder.valueMap["f"], .bool(false))
        XCTAssertEqual(MixedHolder(value: ["value": NSNumber(value: Float(1.5))]).value, .float(1.5))
    }

    func testCreateCopiesAnUnmanagedTargetIn() throws {
        let realm = try open()
        let cat = MixedCat(value: ["name": "Tom"])
        let holder = try realm.write {
            realm.create(MixedHolder.self, value: ["name": "h", "value": AnyRealmValue.object(cat), "initial": 5])
        }
        XCTAssertNil(cat.realm, "create copies, as it does for links")
        XCTAssertEqual(holder.value.object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(holder.initial, .int(5), "a plain value is taken as the value it is")
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        let copy = MixedHolder(value: holder)
        XCTAssertTrue(copy.value.object(MixedCat.self)!.isSameObject(as: holder.value.object(MixedCat.self)),
                      "copied from a managed object: the same object")
    }

    func testKeyValueCodingReadsAndWritesMixedValues() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.setValue(AnyRealmValue.string("x"), forKey: "value")
        }
        XCTAssertEqual(holder.value, .string("x"))
        try realm.write { holder["value"] = 12 }
        XCTAssertEqual(holder.value, .int(12))
        try realm.write { holder["value"] = nil }
        XCTAssertEqual(holder.value, .none)
    }

    func testDeletingTheTargetNullsThePropertyAndLeavesListsAndSets() throws {
        let realm = try open()
        let cat = MixedCat(value: ["name": "Tom"])
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.value = .object(cat)
            holder.values.append(objectsIn: [.int(1), .object(cat), .string("a"), .object(cat)])
            holder.valueSet.insert(objectsIn: [.object(cat), .int(1)])
            holder.valueMap["cat"] = .object(cat)
            holder.valueMap["n"] = .int(2)
        }
        XCTAssertEqual(holder.values.count, 4)
        try realm.write { realm.delete(cat) }
        XCTAssertEqual(holder.value, .none)
        XCTAssertEqual(Array(holder.values), [.int(1), .string("a")])
        XCTAssertEqual(Array(holder.valueSet), [.int(1)])
        XCTAssertEqual(holder.valueMap.count, 2, "a map keeps the key")
        XCTAssertEqual(holder.valueMap["cat"], AnyRealmValue.none)
        XCTAssertEqual(holder.valueMap["n"], .int(2))
    }

    func testLinkingObjectsOfAnotherRealmTraps() throws {
        for scenario in ["mixed-other-realm-property", "mixed-other-realm-list"] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, "scenario \(scenario) did not trap")
            XCTAssertTrue(outcome.output.contains("Object is already managed by another Realm. Use create instead to copy it into this Realm."),
                          "scenario \(scenario) printed: \(outcome.output)")
        }
    }

    // MARK: Collections

    func testListOfMixedValuesManagedAndUnmanaged() throws {
        let cat = MixedCat(value: ["name": "Tom"])
        let holder = MixedHolder()
        holder.values.append(objectsIn: scalars)
        holder.values.append(.object(cat))
        XCTAssertEqual(holder.values.count, scalars.count + 1)
        XCTAssertEqual(Array(holder.values.prefix(scalars.count)), scalars)
        XCTAssertTrue(holder.values.last?.object(MixedCat.self) === cat)
        do {
            let realm = try open()
            try realm.write { realm.add(holder) }
            XCTAssertEqual(cat.realm, realm, "an element's object is added with the list")
            XCTAssertEqual(Array(holder.values.prefix(scalars.count)), scalars)
            try realm.write {
                holder.values[0] = .string("first")
                holder.values.insert(.double(0.5), at: 1)
                holder.values.append(.object(Toy(value: ["name": "Ball"])))
            }
            XCTAssertEqual(holder.values[0], .string("first"))
            XCTAssertEqual(holder.values[1], .double(0.5))
            XCTAssertEqual(holder.values.last?.object(Toy.self)?.name, "Ball")
        }
        let realm = try open()
        let values = realm.objects(MixedHolder.self).first!.values
        XCTAssertEqual(values.count, scalars.count + 3)
        XCTAssertEqual(values[0], .string("first"))
        XCTAssertEqual(values[1], .double(0.5))
        XCTAssertEqual(Array(values[2..<(scalars.count + 1)]), Array(scalars.dropFirst()))
        XCTAssertEqual(values[scalars.count + 1].object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(values[scalars.count + 2].object(Toy.self)?.name, "Ball")
        XCTAssertEqual(values.index(of: .double(0.5)), 1)
    }

    func testSetOfMixedValues() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        let cat = MixedCat(value: ["name": "Tom"])
        try realm.write {
            holder.valueSet.insert(objectsIn: scalars)
            holder.valueSet.insert(objectsIn: scalars) // again: nothing new
            holder.valueSet.insert(.object(cat))
            holder.valueSet.insert(.object(cat))
        }
        XCTAssertEqual(holder.valueSet.count, scalars.count + 1)
        for value in scalars { XCTAssertTrue(holder.valueSet.contains(value), "\(value)") }
        XCTAssertTrue(holder.valueSet.contains(.object(cat)))
        XCTAssertFalse(holder.valueSet.contains(.int(99)))
        XCTAssertFalse(holder.valueSet.contains(.object(MixedCat())), "an unmanaged object is never in a managed set")
        try realm.write { holder.valueSet.remove(.string("héllo")) }
        XCTAssertFalse(holder.valueSet.contains(.string("héllo")))
        XCTAssertEqual(holder.valueSet.count, scalars.count)
    }

    /// The C core keeps one element for numbers of equal value, as realm-core's
    /// Set<Mixed>: it reads back with the case first inserted. An unmanaged set
    /// compares as the enum does, so it keeps them apart.
    func testNumbersOfEqualValueAreOneElementOfAManagedSet() throws {
        let realm = try open()
        let holder = MixedHolder()
        holder.valueSet.insert(objectsIn: [.int(1), .double(1), .float(1), .int(2)])
        XCTAssertEqual(holder.valueSet.count, 4, "unmanaged: by case and payload")
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.valueSet.count, 2, "managed: 1, 1.0 and 1.0f are one element")
        XCTAssertEqual(Array(holder.valueSet), [.int(1), .int(2)], "read back with the case first inserted")
        XCTAssertTrue(holder.valueSet.contains(.double(1)))
        XCTAssertTrue(holder.valueSet.contains(.float(1)))
        try realm.write { holder.valueSet.remove(.double(1)) }
        XCTAssertEqual(Array(holder.valueSet), [.int(2)], "removing any of them removes the element")
        try realm.write { holder.valueSet.insert(.double(2.5)); holder.valueSet.insert(.string("2")) }
        XCTAssertEqual(holder.valueSet.count, 3, "a string is never a number")
    }

    /// Decimals too, by exact value: int 1 == double 1.0 == decimal128 1, but
    /// decimal128 0.1 is not double 0.1 (0.1000000000000000055...).
    func testDecimalsOfEqualValueAreOneElementOfAManagedSet() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        try realm.write {
            holder.valueSet.insert(objectsIn: [.int(1), .double(1), .decimal128(Decimal128(1)), .decimal128("1.00"),
                                               .decimal128("0.5"), .double(0.5), .decimal128("0.1"), .double(0.1),
                                               .decimal128("-7"), .int(-7), .decimal128("2.25")])
        }
        XCTAssertEqual(Array(holder.valueSet), [.decimal128("-7"), .decimal128("0.1"), .double(0.1),
                                                .decimal128("0.5"), .int(1), .decimal128("2.25")])
        XCTAssertTrue(holder.valueSet.contains(.decimal128("1")))
        XCTAssertTrue(holder.valueSet.contains(.int(-7)))
        XCTAssertFalse(holder.valueSet.contains(.decimal128("2")))
        try realm.write { holder.valueSet.remove(.decimal128("1.0")) }
        XCTAssertFalse(holder.valueSet.contains(.int(1)))
    }

    func testMapOfMixedValuesManagedAndUnmanaged() throws {
        let holder = MixedHolder()
        holder.valueMap["none"] = AnyRealmValue.none
        holder.valueMap["int"] = .int(1)
        holder.valueMap["string"] = .string("s")
        holder.valueMap["cat"] = .object(MixedCat(value: ["name": "Tom"]))
        XCTAssertEqual(holder.valueMap.count, 4)
        XCTAssertEqual(holder.valueMap["int"], .int(1))
        do {
            let realm = try open()
            try realm.write { realm.add(holder) }
            XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
            try realm.write {
                holder.valueMap["uuid"] = .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!)
                holder.valueMap["int"] = .double(2)
            }
        }
        let realm = try open()
        let map = realm.objects(MixedHolder.self).first!.valueMap
        XCTAssertEqual(map.keys, ["cat", "int", "none", "string", "uuid"])
        XCTAssertEqual(map["none"], AnyRealmValue.none)
        XCTAssertEqual(map["int"], .double(2))
        XCTAssertEqual(map["string"], .string("s"))
        XCTAssertEqual(map["cat"]?.object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(map["uuid"], .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!))
        XCTAssertNil(map["missing"])
    }

    // MARK: Sorting

    /// Values of different types sort by kind (numbers by value across ints,
    /// floats, doubles and decimals), as the C core orders a set of mixed values.
    func testResultsAndListsSortOnMixedValues() throws {
        let realm = try open()
        let date = Date(timeIntervalSince1970: 1_000)
        let ordered: [AnyRealmValue] = [
            .none, .bool(false), .bool(true), .decimal128(Decimal128(-4)), .int(-3), .float(0.5), .int(1),
            .decimal128(Decimal128(1.25)), .double(1.5), .int(2), .decimal128(Decimal128(2.5)), .string("a"), .string("b"), .data(Data([1])), .date(date),
            .objectId(ObjectId("5f481c21f634a1f4eeaa7268")), .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!),
        ]
        try realm.write {
            for (index, value) in ordered.enumerated().reversed() {
                realm.add(MixedHolder(value: ["name": "\(index)", "value": value]))
            }
        }
        let sorted = realm.objects(MixedHolder.self).sorted(byKeyPath: "value")
        XCTAssertEqual(sorted.map(\.value), ordered)
        XCTAssertEqual(realm.objects(MixedHolder.self).sorted(byKeyPath: "value", ascending: false).map(\.value),
                       ordered.reversed())
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.values.append(objectsIn: ordered.reversed())
        }
        XCTAssertEqual(Array(holder.values.sorted()), ordered)
        XCTAssertEqual(Array(holder.values.sorted(ascending: false)), ordered.reversed())
    }

    // MARK: Aggregates

    /// As realm-core (aggregate_ops.hpp, Minimum<Mixed>): min and max take values of every
    /// kind but null, in Realm's order of kinds (bool < numbers < string < ... < object),
    /// numbers by value across ints, floats, doubles and decimals; a sum or an average
    /// takes the numbers and is a decimal.
    func testAggregatesOverMixedValuesFollowRealmCore() throws {
        let realm = try open()
        let values: [AnyRealmValue] = [.string("zzz"), .int(2), .none, .decimal128(Decimal128(1.5)), .double(4),
                                       .bool(true), .date(Date(timeIntervalSince1970: 9)), .float(0.5),
                                       .object(MixedCat(value: ["name": "Tom"]))]
        let holder = MixedHolder()
        holder.values.append(objectsIn: values)
        for list in [holder.values, { try! realm.write { realm.add(holder) }; return holder.values }()] {
            XCTAssertEqual(list.min(), .bool(true))
            XCTAssertEqual(list.max()?.object(MixedCat.self)?.name, "Tom", "an object ranks above every other kind")
            XCTAssertEqual(list.sum(), .decimal128(Decimal128(8)))
            XCTAssertEqual(list.average(), AnyRealmValue.decimal128(Decimal128(2)))
            XCTAssertEqual(list.average() as Double?, 2)
        }
        try realm.write {
            holder.values.removeAll()
            holder.values.append(objectsIn: [.int(2), .decimal128(Decimal128(-1)), .double(4), .float(0.5), .none])
        }
        XCTAssertEqual(holder.values.min(), .decimal128(Decimal128(-1)))
        XCTAssertEqual(holder.values.max(), .double(4))
        try realm.write { holder.values.removeAll(); holder.values.append(.string("only")) }
        XCTAssertEqual(holder.values.min(), .string("only"))
        XCTAssertEqual(holder.values.max(), .string("only"))
        XCTAssertNil(holder.values.average() as AnyRealmValue?)
        XCTAssertEqual(holder.values.sum(), .decimal128(Decimal128(0)))
        try realm.write { holder.values.removeAll(); holder.values.append(.none) }
        XCTAssertNil(holder.values.min())
    }

    func testAggregatesOverAMixedPropertyOfResults() throws {
        let realm = try open()
        try realm.write {
            for value: AnyRealmValue in [.int(3), .string("a"), .decimal128(Decimal128(10)), .double(-2.5), .none] {
                realm.add(MixedHolder(value: ["value": value]))
            }
            // Set and map elements too.
            let holder = realm.objects(MixedHolder.self).first!
            holder.valueSet.insert(objectsIn: [.int(7), .string("x"), .decimal128(Decimal128(0.5))])
            holder.valueMap["a"] = .double(1)
            holder.valueMap["b"] = .int(5)
        }
        let results = realm.objects(MixedHolder.self)
        XCTAssertEqual(results.min(ofProperty: "value"), AnyRealmValue.double(-2.5))
        XCTAssertEqual(results.max(ofProperty: "value"), AnyRealmValue.string("a"), "a string ranks above every number")
        XCTAssertEqual(results.where { $0.value != .string("a") }.max(ofProperty: "value"),
                       AnyRealmValue.decimal128(Decimal128(10)))
        XCTAssertEqual(results.sum(ofProperty: "value"), AnyRealmValue.decimal128(Decimal128(10.5)))
        XCTAssertEqual(results.average(ofProperty: "value") as Double?, 3.5)
        let holder = try XCTUnwrap(results.first)
        XCTAssertEqual(holder.valueSet.min(), .decimal128(Decimal128(0.5)))
        XCTAssertEqual(holder.valueSet.max(), .string("x"))
        XCTAssertEqual(holder.valueSet.sum(), .decimal128(Decimal128(7.5)))
        XCTAssertEqual(holder.valueMap.max(), .int(5))
        XCTAssertEqual(holder.valueMap.sum(), .decimal128(Decimal128(6)))
    }

    // MARK: The seed

    /// The seed page's sample for `Dog.companion`, as written.
    func testSeedCompanionSample() throws {
        typealias Dog = SeedModels.Dog
        let realm = try Realm(configuration: Realm.Configuration(
            fileURL: fileURL, objectTypes: [Dog.self, SeedModels.Person.self, SeedModels.DogToy.self]))
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        // Get a dog to update
        let rex = realm.objects(Dog.self).where {
            $0.name == "Rex"
        }.first!
        XCTAssertEqual(rex.companion, .none)
        try! realm.write {
            // As with creating an object with an AnyRealmValue, you must specify the
            // type of the value when you update the property.
            rex.companion = .object(Dog(value: ["name": "Regina"]))
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        XCTAssertEqual(rex.companion.object(Dog.self)?.name, "Regina")
        let regina = realm.objects(Dog.self).where { $0.name == "Regina" }.first!
        XCTAssertTrue(rex.companion.object(Dog.self)!.isSameObject(as: regina))
    }
}

/// Mixed-value misuse run in a child process (see ChildScenarios).
enum MixedScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        let url = URL(fileURLWithPath: path)
        switch scenario {
        case "mixed-other-realm-property", "mixed-other-realm-list":
            let realm = try Realm(configuration: mixedConfiguration(url))
            let otherRealm = try Realm(configuration: mixedConfiguration(url.deletingLastPathComponent()
                .appendingPathComponent("other.realm")))
            let cat = MixedCat()
            try otherRealm.write { otherRealm.add(cat) }
            let holder = MixedHolder()
            try realm.write {
                realm.add(holder)
                if scenario == "mixed-other-realm-property" {
                    holder.value = .object(cat)
                } else {
                    holder.values.append(.object(cat))
                }
            }
        default:
            return false
        }
        return true
    }
}
