import Foundation
import XCTest
@testable import Larder

/// `Realm.Notification.refreshRequired`: a Realm whose autorefresh is off is told that
/// another thread or process committed, stays at its version, and `refresh()` then
/// sends `.didChange`.
final class RefreshRequiredTests: RealmTestCase {
    private func open() throws -> Realm { try openRealm(NotificationTests.types) }

    /// Commits a dog on a thread of its own and waits for it.
    private func commitOnAnotherThread() {
        let configuration = configuration(NotificationTests.types)
        onAnotherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.add(NotifyDog()) }
        }
    }

    func testRealmOnAThreadIsToldAtItsNextRealmCallAndMovesOnlyOnRefresh() throws {
        let configuration = configuration(NotificationTests.types)
        let commit = { [self] in commitOnAnotherThread() }
        let outcome = Box<[String]>([])
        onAnotherThread {
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            var seen: [String] = []
            let token = realm.observe { notification, notified in
                XCTAssertEqual(notified, realm)
                seen.append("\(notification == .didChange ? "didChange" : "refreshRequired") \(notified.objects(NotifyDog.self).count)")
            }
            commit()
            _ = try Realm(configuration: configuration)  // where an autorefreshing Realm would refresh
            _ = try Realm(configuration: configuration)  // the same version: told once
            seen.append("count \(realm.objects(NotifyDog.self).count)")
            realm.refresh()
            seen.append("count \(realm.objects(NotifyDog.self).count)")
            commit()
            realm.refresh()  // refresh() itself delivers .didChange, no .refreshRequired
            token.invalidate()
            outcome.value = seen
        }
        XCTAssertEqual(outcome.value, ["refreshRequired 0", "count 0", "didChange 1", "count 1", "didChange 2"])
    }

    func testAutorefreshingRealmIsNeverToldARefreshIsRequired() throws {
        let realm = try open()
        var seen: [Realm.Notification] = []
        let token = realm.observe { notification, _ in seen.append(notification) }
        commitOnAnotherThread()
        _ = try open()
        XCTAssertEqual(seen, [.didChange])
        token.invalidate()
    }

    /// The main thread's Realm learns of another process's commit from the main queue
    /// (the commit watcher), which XCTest's wait runs.
    func testMainThreadRealmIsToldOfAnotherProcessesCommit() throws {
        XCTAssertTrue(Thread.isMainThread)
        let realm = try open()
        realm.autorefresh = false
        let required = expectation(description: "refreshRequired")
        var seen: [Realm.Notification] = []
        let token = realm.observe { notification, _ in
            seen.append(notification)
            if notification == .refreshRequired { required.fulfill() }
        }
        XCTAssertEqual(realm.objects(NotifyDog.self).count, 0)
        let outcome = try ChildProcess.run("notify-add-dog", argument: fileURL.path)
        XCTAssertEqual(outcome.status, 0, outcome.output)
        wait(for: [required], timeout: 10)
        XCTAssertEqual(seen, [.refreshRequired])
        XCTAssertEqual(realm.objects(NotifyDog.self).count, 0, "the Realm stays at its version")
        realm.refresh()
        XCTAssertEqual(seen, [.refreshRequired, .didChange])
        XCTAssertEqual(realm.objects(NotifyDog.self).count, 1)
        token.invalidate()
        realm.autorefresh = true
    }

    /// A queue's Realm with autorefresh off: the observations sharing it wait for its refresh.
    func testQueuesRealmWithoutAutorefreshIsToldAndItsObservationsWait() throws {
        let realm = try open()
        let queue = DispatchQueue(label: "no autorefresh")
        var collectionChanges: [SeenChange] = [], notifications: [Realm.Notification] = []
        let required = expectation(description: "refreshRequired"), updated = expectation(description: "update")
        let collectionToken = realm.objects(NotifyDog.self).observe(on: queue) { change in
            collectionChanges.append(SeenChange(change))
            if collectionChanges.count == 2 { updated.fulfill() }
        }
        queue.sync {}
        var realmToken: NotificationToken?
        queue.sync {
            let queueRealm = try! Realm(configuration: realm.configuration, queue: queue)
            queueRealm.autorefresh = false
            realmToken = queueRealm.observe { notification, _ in
                notifications.append(notification)
                if notification == .refreshRequired { required.fulfill() }
            }
        }
        try realm.write { realm.add(NotifyDog()) }
        wait(for: [required], timeout: 10)
        queue.sync {
            XCTAssertEqual(collectionChanges, [.initial(0)], "not refreshed: no update")
            XCTAssertTrue(try! Realm(configuration: realm.configuration, queue: queue).refresh())
        }
        wait(for: [updated], timeout: 10)
        queue.sync {
            XCTAssertEqual(notifications, [.refreshRequired, .didChange])
            XCTAssertEqual(collectionChanges.last, .update(deletions: [], insertions: [0], modifications: []))
        }
        collectionToken.invalidate()
        realmToken?.invalidate()
    }
}
