import Foundation
import XCTest
@testable import Larder

/// Observations on one queue deliver in the queue's Realm, one per file as in Realm:
/// the one `Realm(configuration:queue:)` gives there, alive while they are.
final class QueueRealmSharingTests: RealmTestCase {
    private func open() throws -> Realm { try openRealm(NotificationTests.types) }

    func testObservationsOnOneQueueShareTheQueuesRealm() throws {
        let realm = try open()
        let dog = NotifyDog()
        try realm.write { realm.add(dog) }
        let queue = DispatchQueue(label: "shared")
        var realms: [String: Realm] = [:]
        var objects: [String: NotifyDog] = [:]
        let delivered = expectation(description: "both callbacks")
        delivered.expectedFulfillmentCount = 2
        let resultsToken = realm.objects(NotifyDog.self).observe(on: queue) { change in
            guard case .update(let dogs, _, _, _) = change else { return }
            realms["results"] = try! Realm(configuration: realm.configuration)
            objects["results"] = dogs.first
            delivered.fulfill()
        }
        let objectToken = dog.observe(on: queue) { (change: ObjectChange<NotifyDog>) in
            guard case .change(let changed, _) = change else { return }
            realms["object"] = try! Realm(configuration: realm.configuration, queue: queue)
            objects["object"] = changed
            XCTAssertEqual(changed.realm, realms["object"])
            delivered.fulfill()
        }
        queue.sync {}
        try realm.write { dog.age = 4 }
        wait(for: [delivered], timeout: 10)
        queue.sync {
            let queueRealm = try! Realm(configuration: realm.configuration, queue: queue)
            XCTAssertEqual(realms["results"], realms["object"], "one Realm in both callbacks")
            XCTAssertEqual(realms["results"], queueRealm, "the queue's Realm")
            XCTAssertTrue(realms["results"]?.instance === queueRealm.instance)
            XCTAssertTrue(objects["results"]!.isSameObject(as: objects["object"]), "the same object, one Realm")
            XCTAssertEqual(queueRealm.objects(NotifyDog.self).first?.age, 4)
        }
        resultsToken.invalidate()
        objectToken.invalidate()
        realms = [:]
        objects = [:]
    }

    func testTheQueuesRealmGoesWhenItsLastObservationIsInvalidated() throws {
        let realm = try open()
        let queue = DispatchQueue(label: "released")
        let context = QueueContext.of(queue)
        let key = RealmInstance.cacheKey(realm.configuration)
        let first = realm.objects(NotifyDog.self).observe(on: queue) { _ in }
        let second = realm.objects(NotifyDog.self).filter("age > 1").observe(on: queue) { _ in }
        queue.sync {}
        XCTAssertNotNil(context.cache.instance(at: key), "the observations keep the queue's Realm")
        first.invalidate()
        queue.sync {}
        XCTAssertNotNil(context.cache.instance(at: key), "one observation is left")
        second.invalidate()
        queue.sync {}
        XCTAssertNil(context.cache.instance(at: key), "no observation keeps the queue's Realm")
    }

    func testARealmOpenedOnTheQueueBeforeObservingIsTheOneDeliveredIn() throws {
        let realm = try open()
        let queue = DispatchQueue(label: "opened first")
        var opened: Realm?
        queue.sync { opened = try! Realm(configuration: realm.configuration, queue: queue) }
        var delivered: Realm?
        let initial = expectation(description: "initial")
        let token = realm.objects(NotifyDog.self).observe(on: queue) { change in
            if case .initial(let dogs) = change {
                delivered = dogs.realm
                initial.fulfill()
            }
        }
        wait(for: [initial], timeout: 10)
        queue.sync {
            XCTAssertEqual(delivered, opened)
            opened = nil
            delivered = nil
        }
        token.invalidate()
    }
}
