import Foundation
import XCTest
@testable import Larder

/// An actor with its own Realm that observes dogs on itself, as Realm's actor examples do.
actor DogObserver {
    private var realm: Realm!
    private var tokens: [NotificationToken] = []
    /// What the results callback received, and the names it read from the results each time.
    private(set) var seen: [SeenChange] = []
    private(set) var names: [[String]] = []
    /// What the object callback received: changed property names and the age read then, or "deleted".
    private(set) var objectChanges: [String] = []

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func observeDogs() async {
        let token = await realm.objects(NotifyDog.self).sorted(byKeyPath: "name").observe(on: self) { actor, change in
            actor.record(change)
        }
        tokens.append(token)
    }

    func observeFirstDog() async {
        let dog = realm.objects(NotifyDog.self).first!
        let token = await dog.observe(on: self) { (actor, change: ObjectChange<NotifyDog>) in
            switch change {
            case .change(let dog, let properties):
                actor.objectChanges.append(properties.map(\.name).joined(separator: ",") + "=\(dog.age)")
            case .deleted: actor.objectChanges.append("deleted")
            case .error(let error): XCTFail("\(error)")
            }
        }
        tokens.append(token)
    }

    /// What the map callback received: its initial keys, then the keys inserted, and the value read then.
    private(set) var mapChanges: [String] = []

    func observeScores() async throws {
        let owner = realm.objects(NotifyOwner.self).first!
        let token = await owner.scores.observe(on: self) { actor, change in
            switch change {
            case .initial(let map): actor.mapChanges.append("initial \(map.keys.sorted())")
            case .update(let map, _, let insertions, _):
                actor.mapChanges.append("inserted \(insertions) = \(insertions.map { map[$0] ?? -1 })")
            case .error(let error): XCTFail("\(error)")
            }
        }
        tokens.append(token)
    }

    private func record(_ change: RealmCollectionChange<Results<NotifyDog>>) {
        seen.append(SeenChange(change))
        switch change {
        case .initial(let dogs), .update(let dogs, _, _, _): names.append(dogs.map(\.name))
        case .error(let error): XCTFail("\(error)")
        }
    }

    func add(_ name: String) async throws {
        try await realm.asyncWrite { realm.add(NotifyDog(value: ["name": name])) }
    }

    func invalidate(_ index: Int) {
        tokens[index].invalidate()
    }

    func invalidateAll() {
        tokens.forEach { $0.invalidate() }
    }

    /// Waits (up to 10 s) until done says the actor has seen enough.
    func wait(until done: (isolated DogObserver) -> Bool) async {
        let deadline = Date().addingTimeInterval(10)
        while !done(self) && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
    }
}

final class ActorObservationTests: RealmTestCase {
    static let types: [Object.Type] = [NotifyOwner.self, NotifyDog.self]

    /// Runs body with a Realm of its own on a new thread, and waits for it.
    func onAnotherThread(_ body: @escaping (Realm) throws -> Void) {
        let configuration = configuration(Self.types)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { try body(Realm(configuration: configuration)) } catch { XCTFail("\(error)") }
            done.signal()
        }
        thread.start()
        done.wait()
    }

    func testResultsObservedOnAnActorGetInitialThenUpdates() async throws {
        onAnotherThread { realm in try realm.write { realm.add(NotifyDog(value: ["name": "Rex"])) } }
        let observer = DogObserver()
        try await observer.open(configuration(Self.types))
        await observer.observeDogs()
        let initial = await observer.seen
        XCTAssertEqual(initial, [.initial(1)], "observe returns once .initial is delivered")
        try await observer.add("Ace")
        await observer.wait { $0.seen.count >= 2 }
        let seen = await observer.seen, names = await observer.names
        XCTAssertEqual(seen, [.initial(1), .update(deletions: [], insertions: [0], modifications: [])])
        XCTAssertEqual(names, [["Rex"], ["Ace", "Rex"]], "the results read on the actor")
        await observer.invalidateAll()
    }

    func testACommitOfAnotherThreadReachesTheActor() async throws {
        let observer = DogObserver()
        try await observer.open(configuration(Self.types))
        await observer.observeDogs()
        onAnotherThread { realm in try realm.write { realm.add(NotifyDog(value: ["name": "Rex"])) } }
        await observer.wait { $0.seen.count >= 2 }
        let seen = await observer.seen
        XCTAssertEqual(seen, [.initial(0), .update(deletions: [], insertions: [0], modifications: [])])
        await observer.invalidateAll()
    }

    func testAnObjectObservedOnAnActorSeesChangesThenDeletion() async throws {
        onAnotherThread { realm in try realm.write { realm.add(NotifyDog(value: ["name": "Rex", "age": 1])) } }
        let observer = DogObserver()
        try await observer.open(configuration(Self.types))
        await observer.observeFirstDog()
        onAnotherThread { realm in try realm.write { realm.objects(NotifyDog.self).first!.age = 2 } }
        await observer.wait { $0.objectChanges.count >= 1 }
        onAnotherThread { realm in try realm.write { realm.delete(realm.objects(NotifyDog.self)) } }
        await observer.wait { $0.objectChanges.count >= 2 }
        let changes = await observer.objectChanges
        XCTAssertEqual(changes, ["age=2", "deleted"])
        await observer.invalidateAll()
    }

    func testAMapObservedOnAnActor() async throws {
        onAnotherThread { realm in try realm.write { realm.add(NotifyOwner(value: ["scores": ["a": 1]])) } }
        let observer = DogObserver()
        try await observer.open(configuration(Self.types))
        try await observer.observeScores()
        onAnotherThread { realm in try realm.write { realm.objects(NotifyOwner.self).first!.scores["b"] = 2 } }
        await observer.wait { $0.mapChanges.count >= 2 }
        let changes = await observer.mapChanges
        XCTAssertEqual(changes, ["initial [\"a\"]", "inserted [\"b\"] = [2]"])
        await observer.invalidateAll()
    }

    func testAnInvalidatedActorObservationGetsNoMoreCallbacks() async throws {
        let observer = DogObserver(), witness = DogObserver()
        try await observer.open(configuration(Self.types))
        try await witness.open(configuration(Self.types))
        await observer.observeDogs()
        await witness.observeDogs()
        await observer.invalidate(0)
        onAnotherThread { realm in try realm.write { realm.add(NotifyDog(value: ["name": "Rex"])) } }
        await witness.wait { $0.seen.count >= 2 }
        try await Task.sleep(nanoseconds: 200_000_000)  // time for a wrongly delivered update to arrive
        let witnessed = await witness.seen.count, seen = await observer.seen
        XCTAssertEqual(witnessed, 2, "the commit was delivered to a live observation")
        XCTAssertEqual(seen, [.initial(0)])
        await witness.invalidateAll()
    }
}

final class KeyPathDogMap: Object {
    @Persisted var dogs: Map<String, NotifyDog?>
}

/// Observes a dog's age by key path of the model on itself: in results, the object and a map.
actor AgeObserver {
    private var realm: Realm!
    private var tokens: [NotificationToken] = []
    /// Callbacks by what they observe: "results initial", "results ~[0]", "object age", "map ~[a]".
    private(set) var seen: [String] = []

    func observe(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
        let dog = realm.objects(NotifyDog.self).first!
        let map = realm.objects(KeyPathDogMap.self).first!.dogs
        tokens.append(await realm.objects(NotifyDog.self).observe(keyPaths: [\NotifyDog.age], on: self) { actor, change in
            switch change {
            case .initial: actor.seen.append("results initial")
            case .update(_, _, _, let modifications): actor.seen.append("results ~\(modifications)")
            case .error(let error): XCTFail("\(error)")
            }
        })
        tokens.append(await dog.observe(keyPaths: [\NotifyDog.age], on: self) { actor, change in
            if case .change(_, let properties) = change { actor.seen.append("object " + properties.map(\.name).joined()) }
        })
        tokens.append(await map.observe(keyPaths: [\NotifyDog.age], on: self) { actor, change in
            switch change {
            case .initial: actor.seen.append("map initial")
            case .update(_, _, _, let modifications): actor.seen.append("map ~\(modifications)")
            case .error(let error): XCTFail("\(error)")
            }
        })
    }

    func invalidateAll() { tokens.forEach { $0.invalidate() } }

    func wait(forCount count: Int) async {
        let deadline = Date().addingTimeInterval(10)
        while seen.count < count && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
    }
}

final class ActorKeyPathObservationTests: RealmTestCase {
    static let types: [Object.Type] = [NotifyOwner.self, NotifyDog.self, KeyPathDogMap.self]

    func testModelKeyPathsOnAnActorFilterChanges() async throws {
        let configuration = configuration(Self.types)
        try onAnotherThread(configuration) { realm in
            try realm.write {
                let dog = realm.create(NotifyDog.self, value: ["name": "Rex"])
                realm.create(KeyPathDogMap.self, value: ["dogs": ["a": dog]])
            }
        }
        let observer = AgeObserver()
        try await observer.observe(configuration)
        // A name change is not the age: no callback. The age change then reaches all three.
        try onAnotherThread(configuration) { realm in try realm.write { realm.objects(NotifyDog.self).first!.name = "Ace" } }
        try onAnotherThread(configuration) { realm in try realm.write { realm.objects(NotifyDog.self).first!.age = 3 } }
        await observer.wait(forCount: 5)
        try await Task.sleep(nanoseconds: 100_000_000)  // time for a wrong extra callback to arrive
        let seen = await observer.seen
        XCTAssertEqual(seen.sorted(), ["map initial", "map ~[\"a\"]", "object age", "results initial", "results ~[0]"])
        await observer.invalidateAll()
    }

    func testModelKeyPathsOfAMapOfObjectsOnAQueue() throws {
        let realm = try Realm(configuration: configuration(Self.types))
        let dog = NotifyDog()
        let holder = KeyPathDogMap()
        try realm.write {
            realm.add(dog)
            holder.dogs["a"] = dog
            realm.add(holder)
        }
        let queue = DispatchQueue(label: "map key paths")
        var seen: [String] = []
        let updated = expectation(description: "update")
        let token = holder.dogs.observe(keyPaths: [\NotifyDog.age], on: queue) { change in
            switch change {
            case .initial: seen.append("initial")
            case .update(_, _, _, let modifications):
                seen.append("~\(modifications)")
                updated.fulfill()
            case .error(let error): XCTFail("\(error)")
            }
        }
        queue.sync {}
        try realm.write { dog.name = "not observed" }
        try realm.write { dog.age = 2 }
        wait(for: [updated], timeout: 10)
        queue.sync { XCTAssertEqual(seen, ["initial", "~[\"a\"]"]) }
        token.invalidate()
    }

    private func onAnotherThread(_ configuration: Realm.Configuration, _ body: @escaping (Realm) throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Box<Error?>(nil)
        let thread = Thread {
            do { try body(Realm(configuration: configuration)) } catch { failure.value = error }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = failure.value { throw error }
    }
}
