import Foundation
import XCTest
@testable import Larder

private struct Oops: Error {}

final class RealmTests: RealmTestCase {
    func testTheSameThreadGetsTheSameInstance() throws {
        let first = try openRealm()
        let second = try openRealm()
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.configuration.fileURL, fileURL)
        // Without objectTypes the Realm may use every class: another instance, on the same file.
        let unrestricted = try Realm(fileURL: fileURL)
        XCTAssertNotEqual(unrestricted, first)
        XCTAssertEqual(unrestricted, try Realm(fileURL: fileURL))
        XCTAssertEqual(unrestricted.configuration.fileURL, fileURL)
    }

    func testDefaultConfigurationAndItsDocumentedPlace() throws {
        XCTAssertTrue(Realm.Configuration.defaultFileURL.path.hasSuffix("larder/default.realm"))
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        Realm.Configuration.defaultConfiguration = configuration()
        let realm = try Realm()
        try realm.write { realm.add(Dog()) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: fileURL.path))
    }

    func testWriteReturnsTheBlocksValueAndCommits() throws {
        let realm = try openRealm()
        let name = try realm.write { () -> String in
            realm.add(Dog(value: ["name": "Rex"]))
            return "done"
        }
        XCTAssertEqual(name, "done")
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testAThrowingWriteIsCancelledAndRethrows() throws {
        let realm = try openRealm()
        let dog = Dog()
        XCTAssertThrowsError(try realm.write {
            realm.add(dog)
            throw Oops()
        }) { XCTAssertTrue($0 is Oops) }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertTrue(dog.isInvalidated, "objects added in a cancelled write are invalidated")
    }

    func testManualTransactions() throws {
        let realm = try openRealm()
        realm.beginWrite()
        XCTAssertTrue(realm.isInWriteTransaction)
        realm.add(Dog())
        realm.cancelWrite()
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        realm.beginWrite()
        realm.add(Dog())
        try realm.commitWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        try realm.write {
            realm.add(Dog())
            realm.cancelWrite()
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 1, "cancelling inside write {} is allowed")
    }

    func testAnInstanceSeesOneVersionUntilItRefreshes() throws {
        let realm = try openRealm()
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        let url = fileURL
        onAnotherThread {
            let other = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self]))
            try other.write { other.add(Dog()) }
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 0, "the snapshot does not move by itself")
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testWritesOnManyThreadsSerializeAndNoneIsLost() throws {
        let realm = try openRealm()
        let url = fileURL
        let threads = (0..<4).map { _ in
            Thread {
                let local = try! Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self]))
                for _ in 0..<50 { try! local.write { local.add(Dog()) } }
            }
        }
        // All four run at once: their writes must queue, not collide.
        threads.forEach { $0.start() }
        while !threads.allSatisfy(\.isFinished) { Thread.sleep(forTimeInterval: 0.005) }
        realm.refresh()
        XCTAssertEqual(realm.objects(Dog.self).count, 200)
    }

    func testInvalidateEndsTheReadTransaction() throws {
        let realm = try openRealm()
        let dog = Dog()
        try realm.write { realm.add(dog) }
        realm.invalidate()
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertEqual(realm.objects(Dog.self).count, 1, "the next read starts a new transaction")
    }

    func testAutorefreshRefreshesTheInstanceRealmHandsOut() throws {
        let realm = try openRealm()
        XCTAssertTrue(realm.autorefresh)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        let url = fileURL
        onAnotherThread {
            let other = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self]))
            try other.write { other.add(Dog()) }
        }
        XCTAssertEqual(try openRealm().objects(Dog.self).count, 1)
    }

    func testReadOnlyRealm() throws {
        let writable = try openRealm()
        try writable.write { writable.add(Dog(value: ["name": "Rex"])) }
        var readOnly = configuration()
        readOnly.readOnly = true
        let frozenConfiguration = readOnly
        onAnotherThread {
            let realm = try Realm(configuration: frozenConfiguration)
            XCTAssertEqual(realm.objects(Dog.self).first?.name, "Rex")
        }
        var missing = readOnly
        missing.fileURL = directory.appendingPathComponent("missing.realm")
        XCTAssertThrowsError(try Realm(configuration: missing)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileNotFound)
        }
    }

    func testInMemoryRealm() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "memory-\(UUID().uuidString)", objectTypes: [Dog.self])
        XCTAssertNil(configuration.fileURL)
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog()) }
        XCTAssertEqual(try Realm(configuration: configuration).objects(Dog.self).count, 1)
    }

    func testAFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let text = Data("not a database".utf8)
        try text.write(to: fileURL)
        XCTAssertThrowsError(try openRealm()) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidDatabase)
        }
        XCTAssertEqual(try Data(contentsOf: fileURL), text)
    }

    func testALowerSchemaVersionIsRefused() throws {
        var newer = configuration()
        newer.schemaVersion = 2
        _ = try Realm(configuration: newer)
        let url = fileURL
        onAnotherThread {
            var older = Realm.Configuration(fileURL: url, objectTypes: [Dog.self])
            older.schemaVersion = 1
            XCTAssertThrowsError(try Realm(configuration: older)) { error in
                XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch)
            }
        }
    }

    func testIsEmpty() throws {
        let realm = try openRealm()
        XCTAssertTrue(realm.isEmpty)
        try realm.write { realm.add(Dog()) }
        XCTAssertFalse(realm.isEmpty)
    }
}
