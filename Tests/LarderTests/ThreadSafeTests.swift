import Foundation
import XCTest
@testable import Larder

/// What a test hands between threads through `@ThreadSafe` properties.
final class ThreadSafeHolder: @unchecked Sendable {
    @ThreadSafe var dog: NotifyDog?
    @ThreadSafe var puppies: Results<NotifyDog>?
    @ThreadSafe var dogs: List<NotifyDog>?
}

final class ThreadSafeTests: RealmTestCase {
    private func open() throws -> Realm { try openRealm(NotificationTests.types) }

    /// Runs body on a new thread and returns what it returns.
    private func onThread<T>(_ body: @escaping () throws -> T) throws -> T {
        let outcome = Box<Result<T, Error>?>(nil)
        nonisolated(unsafe) let body = body
        onAnotherThread { outcome.value = Result { try body() } }
        return try outcome.value!.get()
    }

    func testAnObjectIsReadInTheReadingThreadsRealm() throws {
        let realm = try open()
        let configuration = realm.configuration
        let dog = NotifyDog(value: ["name": "Rex", "age": 3])
        try realm.write { realm.add(dog) }
        let holder = ThreadSafeHolder()
        holder.dog = dog
        XCTAssertTrue(holder.dog === dog, "on its own thread, the object itself")
        let read: (name: String, age: Int, isThatThreadsRealm: Bool) = try onThread {
            let there = holder.dog!
            let threadRealm = try Realm(configuration: configuration)
            try threadRealm.write { there.age = 4 }  // live there: writable in that thread's Realm
            return (there.name, there.age, there.realm == threadRealm)
        }
        XCTAssertEqual(read.name, "Rex")
        XCTAssertEqual(read.age, 4)
        XCTAssertTrue(read.isThatThreadsRealm)
        realm.refresh()
        XCTAssertEqual(holder.dog?.age, 4)
        XCTAssertEqual(holder.dog?.realm, realm, "back on this thread, in this thread's Realm")
    }

    func testADeletedObjectReadsAsNil() throws {
        let realm = try open()
        let dog = NotifyDog()
        try realm.write { realm.add(dog) }
        let holder = ThreadSafeHolder()
        holder.dog = dog
        try realm.write { realm.delete(dog) }
        let seenElsewhere: Bool = try onThread { holder.dog == nil }
        XCTAssertTrue(seenElsewhere)
        XCTAssertNil(holder.dog)
    }

    func testAnObjectCreatedAfterTheReadersRealmWasOpenedIsFound() throws {
        let realm = try open()
        let configuration = realm.configuration
        let holder = ThreadSafeHolder()
        // A thread whose Realm, without autorefresh, stays at the version before the dog.
        let readerReady = DispatchSemaphore(value: 0), dogSet = DispatchSemaphore(value: 0)
        let outcome = Box<String?>(nil)
        let reader = Thread {
            let threadRealm = try! Realm(configuration: configuration)
            threadRealm.autorefresh = false
            _ = threadRealm.objects(NotifyDog.self).count
            readerReady.signal()
            dogSet.wait()
            outcome.value = holder.dog?.name
        }
        reader.start()
        readerReady.wait()
        let dog = NotifyDog(value: ["name": "Late"])
        try realm.write { realm.add(dog) }
        holder.dog = dog
        dogSet.signal()
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.002) }
        XCTAssertEqual(outcome.value, "Late", "the reader's Realm moved forward to the value's version")
    }

    func testCollectionsAndNil() throws {
        let realm = try open()
        let owner = NotifyOwner()
        try realm.write {
            realm.add(owner)
            owner.dogs.append(objectsIn: [NotifyDog(value: ["name": "a", "age": 1]), NotifyDog(value: ["name": "b", "age": 5])])
        }
        let holder = ThreadSafeHolder()
        holder.puppies = realm.objects(NotifyDog.self).filter("age < 3")
        holder.dogs = owner.dogs
        let read: ([String], Int) = try onThread {
            (holder.puppies!.map(\.name), holder.dogs!.count)
        }
        XCTAssertEqual(read.0, ["a"])
        XCTAssertEqual(read.1, 2)
        holder.puppies = nil
        XCTAssertNil(holder.puppies)
        let afterNil: Bool = try onThread { holder.puppies == nil }
        XCTAssertTrue(afterNil)
    }

    func testAFrozenObjectIsGivenAsItIs() throws {
        let realm = try open()
        let dog = NotifyDog(value: ["name": "Ice"])
        try realm.write { realm.add(dog) }
        let holder = ThreadSafeHolder()
        let frozen = dog.freeze()
        holder.dog = frozen
        let same: Bool = try onThread { holder.dog === frozen && holder.dog!.isFrozen }
        XCTAssertTrue(same)
    }

    func testAnUnmanagedObjectTraps() throws {
        try assertChildTraps("thread-safe-unmanaged", message: "Cannot construct reference to unmanaged object")
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario == "thread-safe-unmanaged" else { return false }
        let holder = ThreadSafeHolder()
        holder.dog = NotifyDog()
        return true
    }
}
