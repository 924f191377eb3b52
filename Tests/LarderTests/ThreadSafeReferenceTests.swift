import Foundation
import XCTest
@testable import Larder

/// Threads (issue 14 point 6) and pinned versions (point 8).
final class ThreadSafeReferenceTests: RealmTestCase {
    func testAReferenceResolvesOnAnotherThreadAtItsVersion() throws {
        let realm = try openRealm(frozenTypes)
        let owner = FrozenOwner(value: ["id": 1, "name": "Ann"])
        try realm.write {
            realm.add(owner)
            owner.dogs.append(objectsIn: [FrozenDog(value: ["name": "Rex", "age": 3]), FrozenDog(value: ["name": "Bo", "age": 1])])
        }
        let objectReference = ThreadSafeReference(to: owner)
        let listReference = ThreadSafeReference(to: owner.dogs)
        let resultsReference = ThreadSafeReference(to: realm.objects(FrozenDog.self).filter("age > 0").sorted(byKeyPath: "age"))
        let linkingReference = ThreadSafeReference(to: owner.dogs[0].owners)
        let setReference = ThreadSafeReference(to: owner.tags)
        let mapReference = ThreadSafeReference(to: owner.scores)
        XCTAssertFalse(objectReference.isInvalidated)
        onAnotherThread {
            let other = try Realm(configuration: self.configuration(frozenTypes))
            let resolved = other.resolve(objectReference)!
            XCTAssertEqual(resolved.name, "Ann")
            XCTAssertEqual(resolved.realm, other)
            XCTAssertEqual(other.resolve(listReference)!.map(\.name), ["Rex", "Bo"])
            XCTAssertEqual(other.resolve(resultsReference)!.map(\.name), ["Bo", "Rex"])
            XCTAssertEqual(other.resolve(linkingReference)!.first?.name, "Ann")
            XCTAssertEqual(other.resolve(setReference)!.count, 0)
            XCTAssertEqual(other.resolve(mapReference)!.count, 0)
            try other.write { resolved.name = "Bea" }
        }
        XCTAssertTrue(objectReference.isInvalidated)
        realm.refresh()
        XCTAssertEqual(owner.name, "Bea")
    }

    func testAReferenceToADeletedObjectResolvesToNil() throws {
        let realm = try openRealm(frozenTypes)
        let owner = FrozenOwner(value: ["id": 1])
        try realm.write { realm.add(owner) }
        let reference = ThreadSafeReference(to: owner)
        try realm.write { realm.delete(owner) }
        onAnotherThread {
            let other = try Realm(configuration: self.configuration(frozenTypes))
            XCTAssertNil(other.resolve(reference))
        }
    }

    func testARealmBehindTheReferencesVersionMovesToIt() throws {
        let realm = try openRealm(frozenTypes)
        XCTAssertTrue(realm.objects(FrozenOwner.self).isEmpty) // a read at the version before the object
        let reference = Handoff<ThreadSafeReference<FrozenOwner>>()
        onAnotherThread {
            let other = try Realm(configuration: self.configuration(frozenTypes))
            let owner = FrozenOwner(value: ["id": 5, "name": "New"])
            try other.write { other.add(owner) }
            reference.value = ThreadSafeReference(to: owner)
        }
        XCTAssertEqual(realm.resolve(reference.value!)?.name, "New")
    }

    func testRealmIsCachedPerThread() throws {
        let realm = try openRealm(frozenTypes)
        XCTAssertTrue(try openRealm(frozenTypes) == realm)
        let other = Handoff<Realm>()
        onAnotherThread { other.value = try Realm(configuration: self.configuration(frozenTypes)) }
        XCTAssertFalse(other.value! == realm)
    }

    func testMisusingReferencesAndThreadsTrapsWithRealmsMessages() throws {
        try assertChildTraps("freeze-resolve-twice", message: "Can only resolve a thread safe reference once")
        try assertChildTraps("freeze-reference-unmanaged", message: "Cannot construct reference to unmanaged object")
        try assertChildTraps("freeze-live-object-other-thread", message: "Realm accessed from incorrect thread.")
    }

    // MARK: Versions

    func testFrozenRealmsAndOldReadersCountAsActiveVersions() throws {
        let realm = try openRealm(frozenTypes)
        try realm.write { realm.add(FrozenOwner(value: ["id": 1])) }
        realm.invalidate()
        XCTAssertEqual(realm.numberOfActiveVersions, 1)
        var frozen: Realm? = realm.freeze()
        XCTAssertEqual(realm.numberOfActiveVersions, 1, "the newest version is the frozen one")
        try realm.write { realm.add(FrozenOwner(value: ["id": 2])) }
        XCTAssertEqual(realm.numberOfActiveVersions, 2)
        XCTAssertEqual(frozen!.objects(FrozenOwner.self).count, 1)
        frozen = nil
        realm.invalidate()
        XCTAssertEqual(realm.numberOfActiveVersions, 1)
    }

    func testExceedingTheMaximumNumberOfActiveVersionsThrows() throws {
        var configuration = configuration(frozenTypes)
        configuration.maximumNumberOfActiveVersions = 2
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(FrozenOwner(value: ["id": 1])) }
        let first = realm.freeze()
        try realm.write { realm.add(FrozenOwner(value: ["id": 2])) }
        let second = realm.freeze()
        try realm.write { realm.add(FrozenOwner(value: ["id": 3])) } // two kept before it commits
        XCTAssertThrowsError(try realm.write { realm.add(FrozenOwner(value: ["id": 4])) }) { error in
            XCTAssertEqual((error as? Realm.Error)?.message,
                           "Number of active versions (3) in the Realm exceeded the limit of 2")
        }
        XCTAssertNil(realm.object(ofType: FrozenOwner.self, forPrimaryKey: 4), "the write was cancelled")
        XCTAssertEqual(first.objects(FrozenOwner.self).count + second.objects(FrozenOwner.self).count, 3)
        let limited = configuration
        onAnotherThread {
            XCTAssertThrowsError(try Realm(configuration: limited), "opening checks the limit too")
        }
    }

    func testTheFileStopsGrowingOncePinnedVersionsAreReleased() throws {
        let realm = try openRealm(frozenTypes)
        let blob = String(repeating: "x", count: 4000)
        func rewrite(_ rounds: Int) throws {
            for round in 0..<rounds {
                try realm.write {
                    for id in 0..<20 { realm.create(FrozenOwner.self, value: ["id": id, "name": "\(round)\(blob)"], update: .modified) }
                }
            }
        }
        func fileSize() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: fileURL.path)[.size] as! Int
        }
        try rewrite(5)
        realm.invalidate()
        var pin: Realm? = realm.freeze()
        let pinnedStart = try fileSize()
        try rewrite(100)
        let pinnedEnd = try fileSize()
        XCTAssertGreaterThan(pinnedEnd, pinnedStart + 100 * 20 * 4000 / 2, "an old version kept its pages: the file grew")
        XCTAssertEqual(pin!.objects(FrozenOwner.self).first!.name.prefix(1), "4")
        pin = nil
        realm.invalidate()
        XCTAssertEqual(realm.numberOfActiveVersions, 1)
        try rewrite(20)
        let releasedStart = try fileSize()
        try rewrite(200)
        XCTAssertEqual(try fileSize(), releasedStart, "with nothing pinned, freed pages are reused")
    }
}

/// A value one thread leaves for another, under a lock.
final class Handoff<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
