import Foundation
import XCTest
@testable import Larder

/// A token invalidated on one thread while the observer's instance goes on its own.
final class ObservationTeardownRaceTests: RealmTestCase {
    /// Invalidating a queue observation (here on the main thread) hands the queue's Realm
    /// back to the queue, which frees it at once when that was its last observation:
    /// what the invalidation does after that, on this thread, must not read the instance
    /// (it did: "Attempted to read an unowned reference", in about half the runs of this loop).
    func testInvalidatingQueueObservationsWhileTheirRealmGoesOnTheQueue() throws {
        let realm = try openRealm()
        let queue = DispatchQueue(label: "teardown")
        // Keeps the file's commit watcher running: the loop does not start and stop its thread.
        let keeper = realm.objects(Dog.self).observe(on: DispatchQueue(label: "keeper")) { _ in }
        defer { keeper.invalidate() }
        for _ in 0..<2000 {
            let token = realm.objects(Dog.self).observe(on: queue) { _ in }
            queue.sync {}
            token.invalidate()
        }
        queue.sync {}
    }
}
