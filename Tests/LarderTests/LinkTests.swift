import CLarder
import Foundation
import XCTest
@testable import Larder

/// `Object?` properties: links between objects.
final class LinkTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: linkConfiguration(fileURL)) }

    func testObjectTypesMustIncludeLinkTargets() throws {
        XCTAssertThrowsError(try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [Pet.self]))) {
            XCTAssertEqual(($0 as? Realm.Error)?.message, "Schema validation failed due to the following errors:" +
                           "\n- Property 'Pet.toy' of type 'object' has unknown object type 'Toy'" +
                           "\n- Property 'Pet.keyedToy' of type 'object' has unknown object type 'KeyedToy'")
        }
    }

    func testALinkIsDeclaredWithItsTargetClass() throws {
        // Without objectTypes, a class's link targets are declared with it.
        _ = try Realm(configuration: Realm.Configuration(fileURL: fileURL))
        _ = try Realm(fileURL: fileURL).objects(Pet.self).count
        let realm = try open()
        let env = realm.instance.environment.handle
        var cls = lar_class(), index: UInt32 = 0, def = lar_property_def()
        XCTAssertEqual(lar_class_find(env, "Toy", &cls), LAR_OK, "the target was declared with Pet")
        XCTAssertEqual(lar_class_find(env, "Pet", &cls), LAR_OK)
        XCTAssertEqual(lar_property_find(env, cls, "toy", &index), LAR_OK)
        XCTAssertEqual(lar_property_info_get(env, cls, index, &def), LAR_OK)
        XCTAssertEqual(def.type, LAR_TYPE_LINK)
        XCTAssertEqual(String(cString: def.target_class), "Toy")
    }

    func testAddIsRecursiveThroughLinks() throws {
        let realm = try open()
        let pet = Pet(value: ["name": "Rex"])
        let toy = Toy(value: ["name": "Ball"])
        pet.toy = toy
        XCTAssertTrue(pet.toy === toy, "an unmanaged link is the object itself")
        try realm.write { realm.add(pet) }
        XCTAssertEqual(toy.realm, realm, "the target itself became managed")
        XCTAssertEqual(realm.objects(Toy.self).count, 1)
        XCTAssertEqual(pet.toy?.name, "Ball")
        XCTAssertTrue(pet.toy!.isSameObject(as: toy))
    }

    func testAssigningAnUnmanagedObjectToAManagedLinkAddsIt() throws {
        let realm = try open()
        let pet = Pet()
        try realm.write { realm.add(pet) }
        XCTAssertNil(pet.toy)
        let toy = Toy(value: ["name": "Rope"])
        try realm.write { pet.toy = toy }
        XCTAssertNotNil(toy.realm)
        XCTAssertEqual(pet.toy?.name, "Rope")
        try realm.write { pet.toy = nil }
        XCTAssertNil(pet.toy)
        XCTAssertEqual(realm.objects(Toy.self).count, 1, "clearing a link deletes nothing")
    }

    func testCyclesAreAdded() throws {
        let realm = try open()
        let a = Pet(value: ["name": "a"]), b = Pet(value: ["name": "b"])
        a.friend = b
        b.friend = a
        a.toy = Toy()
        try realm.write { realm.add(a) }
        XCTAssertEqual(realm.objects(Pet.self).count, 2)
        XCTAssertEqual(a.friend?.name, "b")
        XCTAssertEqual(a.friend?.friend?.name, "a")
        XCTAssertTrue(a.friend!.friend!.isSameObject(as: a))
        XCTAssertTrue(a.description.contains("<Maximum depth exceeded>"), "a cycle prints to a bounded depth")
    }

    func testAnUnmanagedObjectLinkingItselfIsAddedWithTheLink() throws {
        let realm = try open()
        let pet = Pet(value: ["name": "narcissus"])
        pet.friend = pet
        let other = Pet(value: ["name": "other"])
        try realm.write {
            realm.add(other)
            let linked = Pet(value: ["name": "linked"])
            linked.friend = other // a managed target: written with the row
            realm.add(linked)
            realm.add(pet)
        }
        XCTAssertEqual(realm.objects(Pet.self).count, 3)
        XCTAssertTrue(pet.friend!.isSameObject(as: pet), "the link to itself was written once it was managed")
        XCTAssertEqual(realm.objects(Pet.self).filter("name == 'linked'").first?.friend?.name, "other")
    }

    func testAClassOfOver64PropertiesAddsItsLinksAndCollections() throws {
        let realm = try Realm(configuration: configuration([WideLinker.self]))
        let first = WideLinker(), second = WideLinker(), managed = WideLinker()
        first.p63 = 630
        first.friend = second
        first.tags.append(objectsIn: ["a", "b"])
        second.friend = first
        try realm.write {
            realm.add(managed)
            let third = WideLinker()
            third.friend = managed // a managed target: written with the row
            realm.add(third)
            realm.add(first)
        }
        XCTAssertEqual(realm.objects(WideLinker.self).count, 4)
        XCTAssertEqual(first.p63, 630)
        XCTAssertTrue(first.friend!.isSameObject(as: second))
        XCTAssertTrue(second.friend!.isSameObject(as: first))
        XCTAssertEqual(Array(first.tags), ["a", "b"])
        XCTAssertEqual(realm.objects(WideLinker.self).filter { $0.friend?.isSameObject(as: managed) == true }.count, 1)
    }

    func testSelfLinksReadWhileIteratingResults() throws {
        let realm = try open()
        try realm.write {
            for index in 0..<5 { realm.add(Pet(value: ["name": "p\(index)"])) }
            let pets = Array(realm.objects(Pet.self))
            for (index, pet) in pets.enumerated() { pet.friend = pets[(index + 1) % pets.count] }
        }
        var pairs: [String] = []
        for pet in realm.objects(Pet.self) {
            let friend = pet.friend!.name // loads the friend's row into the class's read cache
            pairs.append("\(pet.name)>\(friend)")
        }
        XCTAssertEqual(pairs, ["p0>p1", "p1>p2", "p2>p3", "p3>p4", "p4>p0"])
    }

    func testAManagedTargetIsLinkedNotCopied() throws {
        let realm = try open()
        let toy = Toy(value: ["name": "Ball"])
        try realm.write { realm.add(toy) }
        let pet = Pet()
        pet.toy = toy
        try realm.write { realm.add(pet) }
        XCTAssertEqual(realm.objects(Toy.self).count, 1)
        XCTAssertTrue(pet.toy!.isSameObject(as: toy))
    }

    func testDeletingTheTargetNullsTheLink() throws {
        let realm = try open()
        let pet = Pet()
        pet.toy = Toy()
        try realm.write { realm.add(pet) }
        XCTAssertNotNil(pet.toy)
        try realm.write { realm.delete(pet.toy!) }
        XCTAssertNil(pet.toy)
    }

    func testNestedValuesCreateTargets() throws {
        let realm = try open()
        let unmanaged = Pet(value: ["name": "Rex", "toy": ["name": "Ball"], "friend": ["Fido", ["Stick"]]])
        XCTAssertEqual(unmanaged.toy?.name, "Ball")
        XCTAssertEqual(unmanaged.friend?.name, "Fido")
        XCTAssertEqual(unmanaged.friend?.toy?.name, "Stick")
        let created = try realm.write { realm.create(Pet.self, value: ["name": "Max", "toy": ["name": "Bone"]]) }
        XCTAssertEqual(created.toy?.name, "Bone")
        XCTAssertNotNil(created.toy?.realm)
        let copied = try realm.write { realm.create(Pet.self, value: unmanaged) }
        XCTAssertNil(unmanaged.realm, "create leaves its value untouched")
        XCTAssertNil(unmanaged.toy?.realm)
        XCTAssertEqual(copied.friend?.toy?.name, "Stick")
        XCTAssertEqual(realm.objects(Toy.self).count, 3)
    }

    func testUpdatePoliciesReachLinkedObjects() throws {
        let realm = try open()
        try realm.write { realm.add(KeyedToy(value: ["id": 1, "name": "Ball", "color": "red"])) }
        // add: the linked object with an existing key updates the stored one.
        let pet = KeyedPet(value: ["id": 1, "keyedToy": KeyedToy(value: ["id": 1, "name": "Bone"])])
        try realm.write { realm.add(pet, update: .modified) }
        XCTAssertEqual(realm.objects(KeyedToy.self).count, 1)
        XCTAssertEqual(realm.object(ofType: KeyedToy.self, forPrimaryKey: 1)?.name, "Bone")
        XCTAssertEqual(realm.object(ofType: KeyedToy.self, forPrimaryKey: 1)?.color, "", "add writes every property")
        // create with .modified: only the named properties of the nested object.
        try realm.write {
            realm.object(ofType: KeyedToy.self, forPrimaryKey: 1)!.color = "blue"
            realm.create(KeyedPet.self, value: ["id": 1, "keyedToy": ["id": 1, "name": "Rope"]], update: .modified)
        }
        let toy = realm.object(ofType: KeyedToy.self, forPrimaryKey: 1)!
        XCTAssertEqual(toy.name, "Rope")
        XCTAssertEqual(toy.color, "blue")
        XCTAssertTrue(realm.object(ofType: KeyedPet.self, forPrimaryKey: 1)!.keyedToy!.isSameObject(as: toy))
        // .all with a nil link clears it.
        try realm.write { realm.add(KeyedPet(value: ["id": 1]), update: .all) }
        XCTAssertNil(realm.object(ofType: KeyedPet.self, forPrimaryKey: 1)!.keyedToy)
    }

    func testKeyValueCodingReadsAndWritesLinks() throws {
        let realm = try open()
        let pet = Pet()
        try realm.write { realm.add(pet) }
        try realm.write { pet.setValue(Toy(value: ["name": "Ball"]), forKey: "toy") }
        XCTAssertEqual((pet.value(forKey: "toy") as? Toy)?.name, "Ball")
        XCTAssertTrue(pet.description.contains("toy = Toy {"))
        try realm.write { pet["toy"] = nil }
        XCTAssertNil(pet.value(forKey: "toy"))
    }

    /// Whether the target was deleted through the accessor being linked or through another
    /// (which only the file knows), linking it traps, however it is linked.
    func testLinkingADeletedObjectTraps() throws {
        for action in ["property", "list-append", "list-insert", "list-set", "set-insert", "map-put"] {
            for how in ["deleted", "invalidated"] {
                let scenario = "link-\(how)-\(action)"
                let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
                XCTAssertTrue(outcome.trapped, scenario)
                XCTAssertTrue(outcome.output.contains("Adding a deleted or invalidated object to a Realm is not permitted"),
                              "\(scenario): \(outcome.output)")
            }
        }
    }

    func testLinkingAnObjectOfAnotherRealmTraps() throws {
        for scenario in ["link-other-realm", "link-set-other-realm", "list-append-other-realm"] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains(
                "Object is already managed by another Realm. Use create instead to copy it into this Realm."), outcome.output)
        }
    }

    /// A deleted object, or one of an invalidated Realm, is refused by every write of a link, with Realm's message.
    func testLinkingADeletedTargetFromACollectionTraps() throws {
        for scenario in ["deleted-target-list-append", "deleted-target-list-set", "deleted-target-list-insert",
                         "deleted-target-set-insert", "deleted-target-map-put", "deleted-target-link",
                         "deleted-owner-and-target", "deleted-here-list-append", "invalidated-target-list-append",
                         "deleted-target-add-link", "deleted-here-add-link"] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, scenario)
            XCTAssertTrue(outcome.output.contains("Adding a deleted or invalidated object to a Realm is not permitted"),
                          "\(scenario): \(outcome.output)")
        }
    }
}

/// A class of over 64 properties whose links and collections come after slot 63: `add`
/// then nulls them in a copy of its values, not in a one-word mask (SlotMask).
final class WideLinker: Object {
    @Persisted var p0 = 0
    @Persisted var p1 = 1
    @Persisted var p2 = 2
    @Persisted var p3 = 3
    @Persisted var p4 = 4
    @Persisted var p5 = 5
    @Persisted var p6 = 6
    @Persisted var p7 = 7
    @Persisted var p8 = 8
    @Persisted var p9 = 9
    @Persisted var p10 = 10
    @Persisted var p11 = 11
    @Persisted var p12 = 12
    @Persisted var p13 = 13
    @Persisted var p14 = 14
    @Persisted var p15 = 15
    @Persisted var p16 = 16
    @Persisted var p17 = 17
    @Persisted var p18 = 18
    @Persisted var p19 = 19
    @Persisted var p20 = 20
    @Persisted var p21 = 21
    @Persisted var p22 = 22
    @Persisted var p23 = 23
    @Persisted var p24 = 24
    @Persisted var p25 = 25
    @Persisted var p26 = 26
    @Persisted var p27 = 27
    @Persisted var p28 = 28
    @Persisted var p29 = 29
    @Persisted var p30 = 30
    @Persisted var p31 = 31
    @Persisted var p32 = 32
    @Persisted var p33 = 33
    @Persisted var p34 = 34
    @Persisted var p35 = 35
    @Persisted var p36 = 36
    @Persisted var p37 = 37
    @Persisted var p38 = 38
    @Persisted var p39 = 39
    @Persisted var p40 = 40
    @Persisted var p41 = 41
    @Persisted var p42 = 42
    @Persisted var p43 = 43
    @Persisted var p44 = 44
    @Persisted var p45 = 45
    @Persisted var p46 = 46
    @Persisted var p47 = 47
    @Persisted var p48 = 48
    @Persisted var p49 = 49
    @Persisted var p50 = 50
    @Persisted var p51 = 51
    @Persisted var p52 = 52
    @Persisted var p53 = 53
    @Persisted var p54 = 54
    @Persisted var p55 = 55
    @Persisted var p56 = 56
    @Persisted var p57 = 57
    @Persisted var p58 = 58
    @Persisted var p59 = 59
    @Persisted var p60 = 60
    @Persisted var p61 = 61
    @Persisted var p62 = 62
    @Persisted var p63 = 63
    @Persisted var friend: WideLinker?
    @Persisted var tags: List<String>
}
