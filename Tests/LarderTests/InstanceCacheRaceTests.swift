import Foundation
import XCTest
@testable import Larder

/// A queue's Realm whose last reference goes on another thread while the queue asks for
/// its Realm again: the cache must not hand out the instance being destroyed.
final class InstanceCacheRaceTests: RealmTestCase {
    private final class Holder: @unchecked Sendable { var realm: Realm? }

    func testAQueuesRealmDyingElsewhereIsNotHandedOutAgain() throws {
        let config = configuration([Dog.self])
        let queue = DispatchQueue(label: "instance-cache-race")
        let holder = Holder()
        queue.sync { holder.realm = try! Realm(configuration: config, queue: queue) }
        let dying = ObjectIdentifier(holder.realm!.instance)

        let entered = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        RealmInstance.deinitHookForTesting = {
            RealmInstance.deinitHookForTesting = nil
            entered.signal()
            proceed.wait()
        }
        defer { RealmInstance.deinitHookForTesting = nil }
        // The last reference goes on another thread; its deinit waits in the hook.
        Thread { holder.realm = nil }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)

        var reopened: ObjectIdentifier?
        var count = -1
        queue.sync {
            let realm = try! Realm(configuration: config, queue: queue)
            reopened = ObjectIdentifier(realm.instance)
            count = realm.objects(Dog.self).count
        }
        proceed.signal()
        XCTAssertNotEqual(reopened, dying, "the cache handed out an instance in its deinit")
        XCTAssertEqual(count, 0)
    }

    /// The cache holds instances unretained and retains what it hands out: an instance
    /// asked for again and again is freed, once, with its last reference.
    func testAnInstanceTheCacheHandedOutIsFreedWithItsLastReference() throws {
        let config = configuration([Dog.self])
        var deinits = 0
        RealmInstance.deinitHookForTesting = { deinits += 1 }
        defer { RealmInstance.deinitHookForTesting = nil }
        var first: Realm? = try Realm(configuration: config)
        var again = try (0..<3).map { _ in try Realm(configuration: config) }
        XCTAssertTrue(again.allSatisfy { $0.instance === first?.instance })
        first = nil
        XCTAssertEqual(deinits, 0)
        again = []
        XCTAssertEqual(deinits, 1)
        XCTAssertEqual(try Realm(configuration: config).objects(Dog.self).count, 0)
        XCTAssertEqual(deinits, 2)
    }

    /// Reading a link or an embedded object keeps its accessor for the next read, in the
    /// object read from: a Realm whose objects read links is freed with its last reference.
    /// (Kept in the class, the accessor held the instance, which held the class: it never was.)
    func testAnInstanceWhoseObjectsReadLinksIsFreedWithItsLastReference() throws {
        let config = configuration([OrdPerson.self, OrdPet.self, EmbOwner.self, EmbAddress.self, EmbGeo.self])
        var deinits = 0
        RealmInstance.deinitHookForTesting = { deinits += 1 }
        defer { RealmInstance.deinitHookForTesting = nil }
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let pet = realm.create(OrdPet.self, value: ["name": "Rex"])
                pet.owner = realm.create(OrdPerson.self, value: ["name": "Ada"])
                realm.create(EmbOwner.self, value: ["id": 1, "address": ["city": "Lyon"]])
            }
            let pet = realm.objects(OrdPet.self).first!
            XCTAssertEqual(pet.owner?.name, "Ada")
            XCTAssertEqual(pet.owner?.name, "Ada") // the kept accessor, rebound
            XCTAssertEqual(realm.objects(EmbOwner.self).first!.address?.city, "Lyon")
        }
        XCTAssertEqual(deinits, 1)
    }
}
