import Foundation
import XCTest
@testable import Larder

final class Blob: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var bytes = Data()
}

/// "A write must never wait on another thread's idle snapshot": a Realm held open on
/// one thread does not stall or fail another thread's large writes.
final class GrowthTests: RealmTestCase {
    func testLargeWritesOnAnotherThreadBesideAnOpenRealm() throws {
        let config = configuration([Blob.self])
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.objects(Blob.self).count, 0) // this thread now holds a snapshot

        // 270 writes of 64 x 64 KiB: 1,080 MiB, past the 1 GiB map Swift used to open with
        let perWrite = 64, writes = 270
        let longest = Longest()
        onAnotherThread {
            let writer = try Realm(configuration: config)
            let bytes = Data(repeating: 7, count: 64 << 10)
            for w in 0..<writes {
                let started = Date()
                try writer.write {
                    for i in 0..<perWrite {
                        let blob = Blob()
                        blob.id = w * perWrite + i
                        blob.bytes = bytes
                        writer.add(blob)
                    }
                }
                longest.seconds = max(longest.seconds, Date().timeIntervalSince(started))
            }
        }
        XCTAssertLessThan(longest.seconds, 1.0)
        XCTAssertEqual(realm.objects(Blob.self).count, 0) // its snapshot, until it refreshes
        realm.refresh()
        XCTAssertEqual(realm.objects(Blob.self).count, perWrite * writes)
        XCTAssertEqual(realm.object(ofType: Blob.self, forPrimaryKey: 1234)?.bytes.count, 64 << 10)
    }
}

/// The writer thread's slowest write, read after the thread has finished.
private final class Longest: @unchecked Sendable {
    var seconds: TimeInterval = 0
}
