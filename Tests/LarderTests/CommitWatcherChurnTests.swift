import Foundation
import XCTest
@testable import Larder

/// A file's only queue observer comes and goes many times in a row: the commit watcher
/// must not leave a thread and an inotify descriptor behind for each.
final class CommitWatcherChurnTests: RealmTestCase {
    func testObservingAndInvalidatingThousandsOfTimesKeepsDescriptorsBounded() throws {
        let realm = try openRealm()
        let queue = DispatchQueue(label: "watcher-churn")
        let before = openDescriptorCount()
        // Each stop used to start a new watcher (an inotify instance, closed slowly by its
        // ending thread): a few hundred rounds ran out of inotify instances and trapped.
        for _ in 0..<3000 {
            let token = realm.objects(Dog.self).observe(on: queue) { _ in }
            queue.sync {}
            token.invalidate()
        }
        queue.sync {}
        let deadline = Date().addingTimeInterval(10)
        while openDescriptorCount() - before >= 8 && Date() < deadline { usleep(10_000) }
        XCTAssertLessThan(openDescriptorCount() - before, 8, "descriptors left open by stopped watchers")
    }

    /// The watcher outlives its subscribers but not its file: once the last Realm of the
    /// file goes, the file is closed (its watcher's thread ended) and can be deleted.
    func testTheFileClosesWithItsLastRealmThoughItWasWatched() throws {
        let config = configuration()
        let queue = DispatchQueue(label: "watched-then-closed")
        func observeOnceAndLetGo() throws {
            let realm = try Realm(configuration: config)
            let token = realm.objects(Dog.self).observe(on: queue) { _ in }
            queue.sync {}
            token.invalidate()
            queue.sync {}
        }
        try observeOnceAndLetGo()
        queue.sync {}
        XCTAssertTrue(try Realm.deleteFiles(for: config))
    }

    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
