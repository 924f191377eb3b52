import CLarder
import Foundation
import XCTest
@testable import Larder

/// The seed's Person and Address (seeds/000_019b421e1700c9ab.txt), with the Dog it lists.
enum EmbeddedSeed {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        // To-many relationship - a person can have many dogs
        @Persisted var dogs: List<Dog>
        // Embed a single object.
        // Embedded object properties must be marked optional.
        @Persisted var address: Address?
    }

    final class Address: EmbeddedObject {
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var country: String?
        @Persisted var postalCode: String?
    }
}

final class EmbGeo: EmbeddedObject {
    @Persisted var lat = 0.0
}

final class EmbAddress: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var geo: EmbGeo?
    @Persisted var tags: List<String>
}

final class EmbOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: EmbAddress?
    @Persisted var past: List<EmbAddress>
    @Persisted var homes: Map<String, EmbAddress?>
}

/// An owner of two embedded objects of a class of plain values, which its add creates
/// with its row (lar_obj_create_with_embedded).
final class EmbTrip: Object {
    @Persisted var name = ""
    @Persisted var from: EmbeddedSeed.Address?
    @Persisted var to: EmbeddedSeed.Address?
}

/// An owner of an embedded object that also links to an ordinary object.
final class EmbNeighbour: Object {
    @Persisted var name = ""
    @Persisted var friend: EmbOwner?
    @Persisted var address: EmbAddress?
}

final class EmbeddedObjectTests: RealmTestCase {
    private func open() throws -> Realm { try openRealm([EmbOwner.self, EmbAddress.self, EmbGeo.self]) }

    private func address(_ street: String, lat: Double? = nil) -> EmbAddress {
        let address = EmbAddress()
        address.street = street
        address.city = "Springfield"
        address.geo = lat.map { EmbGeo(value: ["lat": $0]) }
        return address
    }

    /// The rows of a class in the file: the entries of its LMDB table, counted by the C core in O(1).
    private func rows(_ realm: Realm, _ name: String) -> UInt64 {
        var env: OpaquePointer?
        precondition(lar_env_open(fileURL.path, nil, &env) == LAR_OK)
        defer { lar_env_close(env) }
        var cls = lar_class()
        precondition(lar_class_find(env, name, &cls) == LAR_OK)
        var count: UInt64 = 0
        precondition(lar_objects_count(realm.instance.currentTxn(), cls, &count) == LAR_OK)
        return count
    }

    // MARK: Schema

    func testTheSchemaMarksEmbeddedClasses() throws {
        XCTAssertTrue(EmbAddress.objectSchema.isEmbedded)
        XCTAssertFalse(EmbOwner.objectSchema.isEmbedded)
        let realm = try open()
        XCTAssertTrue(try XCTUnwrap(realm.schema["EmbAddress"]).isEmbedded)
        XCTAssertEqual(EmbAddress.objectSchema.properties.map(\.name), ["street", "city", "geo", "tags"])
        try realm.write { realm.add(EmbOwner(value: ["id": 1, "address": ["street": "a"]])) }
        let managed = try XCTUnwrap(realm.objects(EmbOwner.self).first?.address)
        XCTAssertTrue(managed.objectSchema.isEmbedded)
        XCTAssertNotNil(managed.realm)
        XCTAssertNil(EmbAddress().realm)
    }

    // MARK: Reading through the owner

    /// Link reads rebind the accessor of the last one when nothing else holds it
    /// (RealmInstance.linkTarget): one that is held keeps its own object, and what was
    /// read from a dropped one (a list) keeps its owner.
    func testReadingOwnersInTurnGivesEachItsOwnEmbeddedObject() throws {
        let realm = try open()
        try realm.write {
            for (id, street) in [(1, "A"), (2, "B"), (3, "C")] {
                let home = address(street)
                home.tags.append(street.lowercased())
                realm.add(EmbOwner(value: ["id": id, "address": home]))
            }
        }
        let owners = realm.objects(EmbOwner.self)
        let held = try XCTUnwrap(owners[0].address)
        let second = try XCTUnwrap(owners[1].address)
        XCTAssertFalse(held === second)
        XCTAssertEqual([held.street, second.street], ["A", "B"])
        let tags = try XCTUnwrap(owners[1].address).tags // its accessor dropped at once
        XCTAssertEqual(owners[2].address?.street, "C")
        XCTAssertEqual(Array(tags), ["b"])
        XCTAssertEqual(held.street, "A")
        XCTAssertEqual(owners.map { $0.address?.street }, ["A", "B", "C"])
        try realm.write { owners[1].address = address("D") }
        XCTAssertTrue(second.isInvalidated)
        XCTAssertEqual(owners[1].address?.street, "D")
        XCTAssertEqual(owners[0].address?.street, "A")
    }

    /// A link read rebinds the accessor the owner's last one returned only for a link of
    /// the same class (RealmInstance.rebindParkedLink): reading an owner's links of two
    /// classes, and two links of one class, in turn gives each its own object.
    func testReadingAnOwnersLinksInTurnGivesEachItsOwnClassAndObject() throws {
        let realm = try openRealm([EmbOwner.self, EmbAddress.self, EmbGeo.self, EmbNeighbour.self,
                                   EmbTrip.self, EmbeddedSeed.Address.self])
        try realm.write {
            let friend = EmbOwner(value: ["id": 7, "name": "friend", "address": address("F")])
            realm.add(EmbNeighbour(value: ["name": "n", "friend": friend, "address": address("N")]))
            realm.add(EmbTrip(value: ["name": "t", "from": ["street": "From"], "to": ["street": "To"]]))
        }
        let neighbour = try XCTUnwrap(realm.objects(EmbNeighbour.self).first)
        for _ in 0..<3 {
            XCTAssertEqual(neighbour.friend?.name, "friend")
            XCTAssertEqual(neighbour.address?.street, "N")
            XCTAssertEqual(neighbour.friend?.address?.street, "F")
        }
        let trip = try XCTUnwrap(realm.objects(EmbTrip.self).first)
        for _ in 0..<3 {
            XCTAssertEqual(trip.from?.street, "From")
            XCTAssertEqual(trip.to?.street, "To")
        }
        let from = try XCTUnwrap(trip.from)
        XCTAssertEqual(trip.to?.street, "To")
        XCTAssertEqual(from.street, "From", "a held accessor is never rebound")
    }

    /// A walk rebinds the owner and embedded accessors nobody holds (ResultsWalker and
    /// linkTarget): those the loop keeps, nested walks' and a frozen walk's stay their own.
    func testWalkingOwnersKeepsTheEmbeddedObjectsTheLoopHolds() throws {
        let realm = try open()
        let streets = (0..<40).map { "street \($0)" }
        try realm.write {
            for (id, street) in streets.enumerated() { realm.add(EmbOwner(value: ["id": id, "address": address(street)])) }
        }
        let owners = realm.objects(EmbOwner.self)
        var keptOwners: [EmbOwner] = [], keptAddresses: [EmbAddress] = []
        for owner in owners {
            let home = try XCTUnwrap(owner.address)
            XCTAssertEqual(home.street, streets[owner.id])
            if owner.id % 3 == 0 { keptAddresses.append(home) }
            if owner.id % 5 == 0 { keptOwners.append(owner) }
            for inner in owners where inner.id % 10 == 0 { // nested walk of the same classes
                XCTAssertEqual(inner.address?.street, streets[inner.id])
            }
            XCTAssertEqual(home.street, streets[owner.id], "a nested walk must not move an accessor the loop holds")
        }
        XCTAssertEqual(keptAddresses.map(\.street), stride(from: 0, to: 40, by: 3).map { streets[$0] })
        XCTAssertEqual(Set(keptAddresses.map(ObjectIdentifier.init)).count, keptAddresses.count)
        XCTAssertEqual(keptOwners.map(\.id), Array(stride(from: 0, to: 40, by: 5)))
        XCTAssertEqual(keptOwners.map { $0.address?.street }, stride(from: 0, to: 40, by: 5).map { streets[$0] })

        let frozen = owners.freeze()
        let frozenHomes = frozen.compactMap(\.address)
        XCTAssertEqual(frozenHomes.map(\.street), streets)
        XCTAssertEqual(Set(frozenHomes.map(ObjectIdentifier.init)).count, streets.count)
        XCTAssertTrue(frozenHomes.allSatisfy(\.isFrozen))

        // Replacing a held one invalidates it; reading the owner again gives the new one.
        let held = try XCTUnwrap(owners[1].address)
        try realm.write { owners[1].address = address("moved") }
        XCTAssertTrue(held.isInvalidated)
        XCTAssertEqual(owners.map { $0.address?.street }[0...2], ["street 0", "moved", "street 2"])
        XCTAssertEqual(keptAddresses[0].street, "street 0")
    }

    /// A walk whose loop reads the first owner's embedded object reads each later one with
    /// its owner (lar_iter_follow) into the embedded class's read cache: owners without one,
    /// writes that move the walk to a new transaction, owners added during the walk (which
    /// it stops before) and embedded objects held from earlier steps all read their own values.
    func testFollowedEmbeddedObjectsReadTheirOwnValues() throws {
        let realm = try open()
        try realm.write {
            realm.add(EmbOwner(value: ["id": 0])) // undecided past an owner without one
            for id in 1..<30 {
                var values: [String: Any] = ["id": id]
                if id % 4 != 0 { values["address"] = address("s\(id)") }
                realm.add(EmbOwner(value: values))
            }
        }
        var held: [EmbAddress] = []
        var seen: [String?] = []
        var previous: (home: EmbAddress, street: String?)?
        try realm.write {
            for owner in realm.objects(EmbOwner.self) {
                // The step read this owner's embedded object into the cache, which names it alone.
                if let previous { XCTAssertEqual(previous.home.street, previous.street, "at \(owner.id)") }
                let home = owner.address
                seen.append(home?.street)
                if owner.id % 7 == 0, let home { held.append(home) }
                if owner.id == 10 { home?.street = "changed" } // a write: the walk goes on in a new version
                if owner.id == 12 { realm.objects(EmbOwner.self).first { $0.id == 13 }?.address?.street = "ahead" }
                if owner.id == 20 { realm.add(EmbOwner(value: ["id": 100, "address": address("new")])) }
                previous = home.map { ($0, $0.street) }
                // Last, so that the cache holds another object's row when the next step comes.
                XCTAssertEqual(held.map(\.street), Array(["s7", "s14", "s21"].prefix(held.count)))
            }
            // The walk's last step read owner 100 and its embedded object, past its end: the
            // cache names neither that row nor the one it held before (the loop read s21 last).
            XCTAssertEqual(held.last?.street, "s21")
            if let previous { XCTAssertEqual(previous.home.street, previous.street) }
        }
        let expected: [String?] = (0..<30).map { id in
            id == 0 || id % 4 == 0 ? nil : id == 10 ? "changed" : id == 13 ? "ahead" : "s\(id)"
        }
        XCTAssertEqual(seen, expected.map { $0 == "changed" ? "s10" : $0 })
        XCTAssertEqual(held.map(\.street), ["s7", "s14", "s21"])
        XCTAssertEqual(realm.objects(EmbOwner.self).map { $0.address?.street }, expected + ["new"])

        // The loop reads the embedded objects only from the third owner on: never followed, still right.
        var late: [String?] = []
        for owner in realm.objects(EmbOwner.self) where owner.id >= 2 { late.append(owner.address?.street) }
        XCTAssertEqual(late, Array(expected.dropFirst(2)) + ["new"])
    }

    // MARK: Creating in place

    func testAddingAnOwnerCreatesItsEmbeddedObjectsInPlace() throws {
        let realm = try open()
        let owner = EmbOwner(value: ["id": 1, "name": "Ann"])
        let home = address("1 Main St", lat: 1.5)
        owner.address = home
        owner.past.append(address("old"))
        owner.homes["summer"] = address("beach")
        try realm.write { realm.add(owner) }
        XCTAssertEqual(owner.address?.street, "1 Main St")
        XCTAssertEqual(owner.address?.geo?.lat, 1.5)
        XCTAssertEqual(owner.past.map(\.street), ["old"])
        XCTAssertEqual(owner.homes["summer"]??.street, "beach")
        // The instance assigned is now the managed object.
        XCTAssertNotNil(home.realm)
        XCTAssertTrue(home.isSameObject(as: owner.address))
        XCTAssertEqual(rows(realm, "EmbAddress"), 3)
        XCTAssertEqual(rows(realm, "EmbGeo"), 1)
    }

    func testAddingAnOwnerLinksAManagedObjectInItsRowAndCreatesItsEmbeddedObjectInPlace() throws {
        let realm = try openRealm([EmbOwner.self, EmbAddress.self, EmbGeo.self, EmbNeighbour.self])
        let friend = EmbOwner(value: ["id": 1, "name": "Ann"])
        try realm.write { realm.add(friend) }
        // The link to a managed object goes into the new row (no write after it), so
        // adding one with a friend counts as many writes as adding one without.
        var withFriend: UInt64 = 0, without: UInt64 = 0
        let alone = EmbNeighbour(value: ["name": "alone"])
        alone.address = address("s0", lat: 1)
        let linked = EmbNeighbour(value: ["name": "linked", "friend": friend])
        linked.address = address("s1", lat: 2)
        try realm.write {
            var before = realm.instance.version
            realm.add(alone)
            without = realm.instance.version &- before
            before = realm.instance.version
            realm.add(linked)
            withFriend = realm.instance.version &- before
        }
        XCTAssertEqual(withFriend, without)
        XCTAssertTrue(linked.friend?.isSameObject(as: friend) == true)
        XCTAssertEqual(linked.address?.street, "s1")
        XCTAssertEqual(linked.address?.geo?.lat, 2)
        XCTAssertEqual(alone.address?.street, "s0")
        XCTAssertEqual(rows(realm, "EmbAddress"), 2)
        XCTAssertEqual(rows(realm, "EmbGeo"), 2)
        // A managed embedded object is never linked as it is by an add.
        try assertTraps("embedded-add-holding-managed", message: "Can't set link to existing managed embedded object")
    }

    func testAddingAnOwnerCreatesAnEmbeddedObjectOfPlainValuesWithItsRow() throws {
        let realm = try openRealm([EmbTrip.self, EmbeddedSeed.Address.self])
        func stop(_ city: String) -> EmbeddedSeed.Address { EmbeddedSeed.Address(value: ["city": city, "country": "NO"]) }
        let bare = EmbTrip(value: ["name": "bare"])
        let oneWay = EmbTrip(value: ["name": "one way"])
        let oslo = stop("Oslo")
        oneWay.from = oslo
        let roundTrip = EmbTrip(value: ["name": "round trip"])
        let (bergen, rome) = (stop("Bergen"), stop("Rome"))
        roundTrip.from = bergen
        roundTrip.to = rome
        var writes: [UInt64] = []
        try realm.write {
            for trip in [bare, oneWay, roundTrip] {
                let before = realm.instance.version
                realm.add(trip)
                writes.append(realm.instance.version &- before)
            }
        }
        // The first embedded object comes with the row, in the same C call; a second one after it.
        XCTAssertEqual(writes, [1, 1, 2])
        for (held, city) in [(oslo, "Oslo"), (bergen, "Bergen"), (rome, "Rome")] {
            XCTAssertNotNil(held.realm)
            XCTAssertEqual(held.city, city)
            XCTAssertEqual(held.country, "NO")
            XCTAssertNil(held.street)
        }
        XCTAssertTrue(oslo.isSameObject(as: oneWay.from))
        XCTAssertNil(oneWay.to)
        XCTAssertTrue(rome.isSameObject(as: roundTrip.to))
        XCTAssertEqual(rows(realm, "Address"), 3)
        // Owned as any embedded object: replaced, deleted with the owner, forgotten by a cancel.
        try realm.write { oneWay.from = stop("Lima") }
        XCTAssertTrue(oslo.isInvalidated)
        try realm.write { realm.delete(roundTrip) }
        XCTAssertTrue(bergen.isInvalidated && rome.isInvalidated)
        realm.beginWrite()
        realm.add(EmbTrip(value: ["name": "cancelled", "from": ["city": "X"]]))
        realm.cancelWrite()
        XCTAssertEqual(rows(realm, "Address"), 1)
        XCTAssertEqual(realm.objects(EmbTrip.self).map { $0.from?.city }, [nil, "Lima"])
        // One unmanaged object given to both links: the second is Realm's trap.
        try assertTraps("embedded-plain-given-twice", message: "Can't set link to existing managed embedded object")
    }

    func testAssigningAnUnmanagedEmbeddedObjectToAManagedOwnerCopiesItIn() throws {
        let realm = try open()
        let owner = EmbOwner(value: ["id": 1])
        try realm.write { realm.add(owner) }
        let home = address("2 Elm St", lat: 2)
        home.tags.append(objectsIn: ["a", "b"])
        try realm.write { owner.address = home }
        XCTAssertEqual(owner.address?.street, "2 Elm St")
        XCTAssertEqual(owner.address?.geo?.lat, 2)
        XCTAssertEqual(Array(owner.address!.tags), ["a", "b"])
        // Updating through the owner inside a write.
        try realm.write {
            owner.address?.city = "Shelbyville"
            owner.address?.geo?.lat = 3
        }
        XCTAssertEqual(owner.address?.city, "Shelbyville")
        XCTAssertEqual(realm.objects(EmbOwner.self).first?.address?.geo?.lat, 3)
        // create copies nested values in place too.
        try realm.write {
            realm.create(EmbOwner.self, value: ["id": 2, "address": ["street": "3 Oak"], "past": [["street": "p"]],
                                                "homes": ["h": ["street": "m"]]])
        }
        let created = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 2))
        XCTAssertEqual(created.address?.street, "3 Oak")
        XCTAssertEqual(created.past.first?.street, "p")
        XCTAssertEqual(created.homes["h"]??.street, "m")
    }

    // MARK: Replacing and removing

    func testReplacingAnEmbeddedObjectDeletesTheOldOneAndInvalidatesIt() throws {
        let realm = try open()
        let owner = EmbOwner(value: ["id": 1])
        owner.address = address("old", lat: 1)
        try realm.write { realm.add(owner) }
        let old = try XCTUnwrap(owner.address)
        let oldGeo = try XCTUnwrap(old.geo)
        try realm.write { owner.address = address("new", lat: 2) }
        XCTAssertTrue(old.isInvalidated)
        XCTAssertTrue(oldGeo.isInvalidated)
        XCTAssertEqual(owner.address?.street, "new")
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
        XCTAssertEqual(rows(realm, "EmbGeo"), 1)
        try realm.write { owner.address = nil }
        XCTAssertNil(owner.address)
        XCTAssertEqual(rows(realm, "EmbAddress"), 0)
        XCTAssertEqual(rows(realm, "EmbGeo"), 0)
        // Assigning the object a link already holds changes nothing.
        try realm.write { owner.address = address("again") }
        let held = try XCTUnwrap(owner.address)
        try realm.write { owner.address = held }
        XCTAssertFalse(held.isInvalidated)
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
    }

    func testListsAndMapsOwnTheirEmbeddedObjects() throws {
        let realm = try open()
        let owner = EmbOwner(value: ["id": 1])
        try realm.write { realm.add(owner) }
        try realm.write {
            owner.past.append(address("a", lat: 1))
            owner.past.append(address("b"))
            owner.past.insert(address("z"), at: 0)
        }
        XCTAssertEqual(owner.past.map(\.street), ["z", "a", "b"])
        let a = owner.past[1]
        try realm.write { owner.past[1] = address("y") }
        XCTAssertTrue(a.isInvalidated)
        XCTAssertEqual(owner.past.map(\.street), ["z", "y", "b"])
        try realm.write { owner.past.move(from: 0, to: 2) }
        XCTAssertEqual(owner.past.map(\.street), ["y", "b", "z"])
        XCTAssertEqual(rows(realm, "EmbAddress"), 3)
        XCTAssertEqual(rows(realm, "EmbGeo"), 0)
        try realm.write { owner.past.remove(at: 0) }
        XCTAssertEqual(rows(realm, "EmbAddress"), 2)
        try realm.write { owner.past.removeAll() }
        XCTAssertEqual(rows(realm, "EmbAddress"), 0)

        try realm.write {
            owner.homes["home"] = address("h1", lat: 1)
            owner.homes["work"] = address("w")
        }
        let h1 = try XCTUnwrap(owner.homes["home"] ?? nil)
        try realm.write { owner.homes["home"] = address("h2") }
        XCTAssertTrue(h1.isInvalidated)
        XCTAssertEqual(owner.homes["home"]??.street, "h2")
        XCTAssertEqual(rows(realm, "EmbGeo"), 0)
        try realm.write { owner.homes["work"] = nil }
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
        try realm.write { owner.homes.removeAll() }
        XCTAssertEqual(rows(realm, "EmbAddress"), 0)
    }

    // MARK: Deleting the owner

    func testDeletingTheOwnerDeletesEveryEmbeddedDescendant() throws {
        let realm = try open()
        let owner = EmbOwner(value: ["id": 1])
        owner.address = address("a", lat: 1)
        owner.past.append(objectsIn: [address("b", lat: 2), address("c")])
        owner.homes["h"] = address("d", lat: 3)
        let keep = EmbOwner(value: ["id": 2, "address": address("kept")])
        try realm.write { realm.add([owner, keep]) }
        let embedded = try XCTUnwrap(owner.address)
        XCTAssertEqual(rows(realm, "EmbAddress"), 5)
        XCTAssertEqual(rows(realm, "EmbGeo"), 3)
        try realm.write { realm.delete(owner) }
        XCTAssertTrue(embedded.isInvalidated)
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
        XCTAssertEqual(rows(realm, "EmbGeo"), 0)
        XCTAssertEqual(keep.address?.street, "kept")
        try realm.write { realm.deleteAll() }
        XCTAssertEqual(rows(realm, "EmbAddress"), 0)
    }

    func testDeletingAnEmbeddedObjectDirectlyUnlinksIt() throws {
        let realm = try open()
        let owner = EmbOwner(value: ["id": 1, "address": address("a"), "past": [address("b")]])
        try realm.write { realm.add(owner) }
        try realm.write { realm.delete(owner.address!) }
        XCTAssertNil(owner.address)
        try realm.write { realm.delete(owner.past[0]) }
        XCTAssertEqual(owner.past.count, 0)
        XCTAssertEqual(rows(realm, "EmbAddress"), 0)
    }

    // MARK: Update policies (Realm's testAddAndUpdateEmbedded)

    func testModifiedUpdatesTheEmbeddedObjectInPlace() throws {
        let realm = try open()
        try realm.write { realm.add(EmbOwner(value: ["id": 1, "address": address("a", lat: 1)])) }
        let before = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1)?.address)
        let update = EmbOwner(value: ["id": 1, "name": "Ann"])
        update.address = address("b", lat: 2)
        try realm.write { realm.add(update, update: .modified) }
        XCTAssertFalse(before.isInvalidated)
        XCTAssertEqual(before.street, "b")
        XCTAssertEqual(before.geo?.lat, 2)
        XCTAssertTrue(before.isSameObject(as: update.address))
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
    }

    func testAllReplacesTheEmbeddedObject() throws {
        let realm = try open()
        try realm.write { realm.add(EmbOwner(value: ["id": 1, "address": address("a", lat: 1)])) }
        let before = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1)?.address)
        let update = EmbOwner(value: ["id": 1, "name": "Ann", "address": address("b")])
        try realm.write { realm.add(update, update: .all) }
        XCTAssertTrue(before.isInvalidated)
        XCTAssertEqual(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1)?.address?.street, "b")
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
        XCTAssertEqual(rows(realm, "EmbGeo"), 0)
        // create(update:) follows the same policies.
        let held = try XCTUnwrap(update.address)
        try realm.write { realm.create(EmbOwner.self, value: ["id": 1, "address": ["street": "c"]], update: .modified) }
        XCTAssertFalse(held.isInvalidated)
        XCTAssertEqual(held.street, "c")
        try realm.write { realm.create(EmbOwner.self, value: ["id": 1, "address": ["street": "d"]], update: .all) }
        XCTAssertTrue(held.isInvalidated)
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
    }

    /// core's List::set_if_different: with `.modified` an embedded list element at a
    /// position both lists have is updated in place; extras are created, the tail deleted.
    func testModifiedUpdatesEmbeddedListElementsInPlace() throws {
        let realm = try open()
        try realm.write { realm.add(EmbOwner(value: ["id": 1, "past": [address("a", lat: 1), address("b"), address("c")]])) }
        let owner = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1))
        let (first, second, third) = (owner.past[0], owner.past[1], owner.past[2])
        let geo = try XCTUnwrap(first.geo)
        let update = EmbOwner(value: ["id": 1, "past": [address("x", lat: 2), address("b")]])
        try realm.write { realm.add(update, update: .modified) }
        XCTAssertFalse(first.isInvalidated)
        XCTAssertFalse(second.isInvalidated)
        XCTAssertTrue(third.isInvalidated) // the truncated tail
        XCTAssertEqual(first.street, "x")
        XCTAssertFalse(geo.isInvalidated) // nested embedded objects are updated in place too
        XCTAssertEqual(geo.lat, 2)
        XCTAssertTrue(first.isSameObject(as: update.past[0]))
        XCTAssertEqual(owner.past.map(\.street), ["x", "b"])
        XCTAssertEqual(rows(realm, "EmbAddress"), 2)
        XCTAssertEqual(rows(realm, "EmbGeo"), 1)
        // An extra element is created after them.
        try realm.write {
            realm.create(EmbOwner.self, value: ["id": 1, "past": [["street": "y"], ["street": "b"], ["street": "z"]]],
                         update: .modified)
        }
        XCTAssertFalse(first.isInvalidated)
        XCTAssertEqual(first.street, "y")
        XCTAssertEqual(owner.past.map(\.street), ["y", "b", "z"])
        XCTAssertEqual(rows(realm, "EmbAddress"), 3)
    }

    func testAllReplacesEmbeddedListElements() throws {
        let realm = try open()
        try realm.write { realm.add(EmbOwner(value: ["id": 1, "past": [address("a"), address("b")]])) }
        let owner = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1))
        let (first, second) = (owner.past[0], owner.past[1])
        try realm.write { realm.add(EmbOwner(value: ["id": 1, "past": [address("a"), address("c")]]), update: .all) }
        XCTAssertTrue(first.isInvalidated)
        XCTAssertTrue(second.isInvalidated)
        XCTAssertEqual(owner.past.map(\.street), ["a", "c"])
        XCTAssertEqual(rows(realm, "EmbAddress"), 2)
    }

    // MARK: Persistence and cancel

    func testEmbeddedObjectsPersistAndACancelledWriteForgetsThem() throws {
        do {
            let realm = try open()
            try realm.write { realm.add(EmbOwner(value: ["id": 1, "address": address("kept", lat: 4)])) }
            let owner = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1))
            realm.beginWrite()
            owner.address = address("dropped")
            realm.cancelWrite()
            XCTAssertEqual(owner.address?.street, "kept")
        }
        let realm = try open()
        let owner = try XCTUnwrap(realm.object(ofType: EmbOwner.self, forPrimaryKey: 1))
        XCTAssertEqual(owner.address?.street, "kept")
        XCTAssertEqual(owner.address?.geo?.lat, 4)
        XCTAssertEqual(rows(realm, "EmbAddress"), 1)
    }

    /// Link reads and in-place creation keep the last target table they resolved
    /// (ClassRegistry.linkTable); a cancelled write that first used the class retires
    /// that table, and the next write and read find the class's table again.
    func testACancelledWriteThatFirstUsedTheEmbeddedClassLeavesLaterLinksWorking() throws {
        let realm = try open()
        realm.beginWrite()
        realm.add(EmbOwner(value: ["id": 1, "address": address("dropped")]))
        XCTAssertEqual(realm.objects(EmbOwner.self).first?.address?.street, "dropped")
        realm.cancelWrite()
        try realm.write {
            realm.add(EmbOwner(value: ["id": 2, "address": address("kept")]))
            realm.add(EmbOwner(value: ["id": 3, "address": address("also kept")]))
        }
        XCTAssertEqual(realm.objects(EmbOwner.self).map { $0.address?.street }, ["kept", "also kept"])
        XCTAssertEqual(rows(realm, "EmbAddress"), 2)
    }

    // MARK: Misuse traps with Realm's messages

    private func assertTraps(_ scenario: String, message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
        XCTAssertTrue(outcome.trapped, "scenario \(scenario) did not trap", file: file, line: line)
        XCTAssertTrue(outcome.output.contains(message), "scenario \(scenario) printed: \(outcome.output)",
                      file: file, line: line)
    }

    func testMisuseTrapsWithRealmsMessages() throws {
        try assertTraps("embedded-link-twice", message: "Can't set link to existing managed embedded object")
        try assertTraps("embedded-list-twice", message: "Cannot add an existing managed embedded object to a List.")
        try assertTraps("embedded-map-twice", message: "Cannot add an existing managed embedded object to a Dictionary.")
        try assertTraps("embedded-add-directly", message: "Embedded objects cannot be created directly")
        try assertTraps("embedded-create-directly", message: "Embedded objects cannot be created directly")
        try assertTraps("embedded-query", message: "Embedded objects cannot be queried directly")
        try assertTraps("embedded-set-outside-write",
                        message: "Attempting to modify object outside of a write transaction")
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario.hasPrefix("embedded-") else { return false }
        if scenario == "embedded-plain-given-twice" {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path + "-" + scenario),
                                                                     objectTypes: [EmbTrip.self, EmbeddedSeed.Address.self]))
            let trip = EmbTrip()
            let stop = EmbeddedSeed.Address()
            trip.from = stop
            trip.to = stop
            realm.beginWrite()
            realm.add(trip)
            realm.cancelWrite()
            print("DID NOT TRAP")
            return true
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path + "-" + scenario),
                                                                 objectTypes: [EmbOwner.self, EmbAddress.self, EmbGeo.self]))
        let one = EmbOwner(value: ["id": 1, "address": ["street": "a"]])
        let two = EmbOwner(value: ["id": 2])
        try realm.write { realm.add([one, two]) }
        let held = one.address!
        switch scenario {
        case "embedded-link-twice": try realm.write { two.address = held }
        case "embedded-list-twice": try realm.write { two.past.append(held) }
        case "embedded-map-twice": try realm.write { two.homes["x"] = held }
        case "embedded-add-directly": try realm.write { realm.add(EmbAddress()) }
        case "embedded-create-directly": try realm.write { realm.create(EmbAddress.self, value: ["street": "s"]) }
        case "embedded-query": _ = realm.objects(EmbAddress.self)
        case "embedded-set-outside-write": held.street = "b"
        case "embedded-add-holding-managed": // a new owner given another's managed embedded object
            realm.beginWrite() // a trap in add, not an error thrown at the commit
            realm.add(EmbOwner(value: ["id": 3, "address": held]))
            realm.cancelWrite()
        default: return false
        }
        print("DID NOT TRAP")
        return true
    }

    // MARK: The seed page's samples

    private func openSeed() throws -> Realm {
        try openRealm([EmbeddedSeed.Person.self, EmbeddedSeed.Address.self, EmbeddedSeed.Dog.self])
    }

    func testSeedUpdateAnEmbeddedObjectProperty() throws {
        let realm = try openSeed()
        try realm.write {
            let person = EmbeddedSeed.Person(value: ["id": 123, "name": "Ann"])
            person.address = EmbeddedSeed.Address(value: ["street": "1 Main St", "city": "Somewhere"])
            realm.add(person)
        }
        // Open the default realm
        // let realm = try! Realm()
        let idOfPersonToUpdate = 123
        // Find the person to update by ID
        guard let person = realm.object(ofType: EmbeddedSeed.Person.self, forPrimaryKey: idOfPersonToUpdate) else {
            XCTFail("Person \(idOfPersonToUpdate) not found")
            return
        }
        try! realm.write {
            // Update the embedded object directly through the person
            // If the embedded object is null, updating these properties has no effect
            person.address?.street = "789 Any Street"
            person.address?.city = "Anytown"
            person.address?.postalCode = "12345"
            print("Updated person: \(person)")
        }
        XCTAssertEqual(person.address?.street, "789 Any Street")
        XCTAssertEqual(person.address?.city, "Anytown")
        XCTAssertEqual(person.address?.postalCode, "12345")
        XCTAssertNil(person.address?.country)
    }

    func testSeedOverwriteAnEmbeddedObject() throws {
        let realm = try openSeed()
        try realm.write {
            realm.add(EmbeddedSeed.Person(value: ["id": 123, "name": "Ann", "address": ["street": "old"]]))
        }
        let idOfPersonToUpdate = 123
        // Find the person to update by ID
        guard let person = realm.object(ofType: EmbeddedSeed.Person.self, forPrimaryKey: idOfPersonToUpdate) else {
            XCTFail("Person \(idOfPersonToUpdate) not found")
            return
        }
        let old = try XCTUnwrap(person.address)
        try! realm.write {
            let newAddress = EmbeddedSeed.Address()
            newAddress.street = "789 Any Street"
            newAddress.city = "Anytown"
            newAddress.country = "USA"
            newAddress.postalCode = "12345"
            // Overwrite the embedded object
            person.address = newAddress
            print("Updated person: \(person)")
        }
        XCTAssertTrue(old.isInvalidated)
        XCTAssertEqual(person.address?.country, "USA")
        XCTAssertEqual(person.address?.postalCode, "12345")
        XCTAssertEqual(rows(realm, "Address"), 1)
        // The person prints its embedded address nested, as Realm does.
        XCTAssertTrue(person.description.contains("street = \"789 Any Street\""), person.description)
    }
}
