import Foundation
import XCTest
@testable import Larder

final class NotifyOwner: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<NotifyDog>
    @Persisted var dogSet: MutableSet<NotifyDog>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var numbers: List<Int>
}

final class NotifyDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var serial = 0
    @Persisted var owner: NotifyOwner?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<NotifyOwner>
}

/// What a collection callback received, as plain values.
enum SeenChange: Equatable {
    case initial(Int)
    case update(deletions: [Int], insertions: [Int], modifications: [Int])

    init<C>(_ change: RealmCollectionChange<C>) {
        switch change {
        case .initial(let collection):
            self = .initial((collection as? any Collection)?.count ?? (collection as? MutableSet<String>)?.count ?? -1)
        case .update(_, let deletions, let insertions, let modifications):
            self = .update(deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): fatalError("\(error)")
        }
    }
}

final class NotificationTests: RealmTestCase {
    static let types: [Object.Type] = [NotifyOwner.self, NotifyDog.self]

    func open() throws -> Realm { try openRealm(Self.types) }

    // MARK: Realm

    func testRealmObserverIsToldOfLocalCommitsButNotOfSkippedOnes() throws {
        let realm = try open()
        var seen: [Realm.Notification] = []
        let token = realm.observe { notification, observed in
            XCTAssertEqual(observed, realm)
            seen.append(notification)
        }
        try realm.write { realm.add(NotifyDog()) }
        XCTAssertEqual(seen, [.didChange])
        try realm.write(withoutNotifying: [token]) { realm.add(NotifyDog()) }
        XCTAssertEqual(seen, [.didChange])
        realm.beginWrite()
        realm.add(NotifyDog())
        try realm.commitWrite(withoutNotifying: [token])
        XCTAssertEqual(seen, [.didChange])
        realm.refresh()
        XCTAssertEqual(seen, [.didChange], "a refresh that does not move the version tells nobody")
        token.invalidate()
        try realm.write { realm.add(NotifyDog()) }
        XCTAssertEqual(seen, [.didChange])
    }

    func testRealmObserverIsToldWhenRefreshingOntoAnotherThreadsCommit() throws {
        let realm = try open()
        var count = 0
        let token = realm.observe { _, _ in count += 1 }
        try commitOnAnotherThread { other in try other.write { other.add(NotifyDog()) } }
        XCTAssertEqual(count, 0, "nothing is delivered before the thread refreshes")
        realm.refresh()
        XCTAssertEqual(count, 1)
        token.invalidate()
    }

    // MARK: Objects

    func testObjectObserverGetsChangedPropertiesThenDeleted() throws {
        let realm = try open()
        let dog = NotifyDog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        var changes: [String] = []
        let token = dog.observe { (change: ObjectChange<NotifyDog>) in
            switch change {
            case .change(let object, let properties):
                XCTAssertTrue(object === dog)
                for property in properties {
                    XCTAssertNil(property.oldValue, "a write of this thread has no old values, as in Realm")
                    changes.append("\(property.name)=\(property.newValue ?? "nil")")
                }
            case .deleted: changes.append("deleted")
            case .error(let error): XCTFail("\(error)")
            }
        }
        try realm.write { dog.age = 2 }
        try realm.write { dog.name = "Max"; dog.age = 3 }
        try realm.write { realm.add(NotifyDog()) }
        try realm.write { dog.age = 3 }
        try realm.write { realm.delete(dog) }
        XCTAssertEqual(changes, ["age=2", "name=Max", "age=3", "age=3", "deleted"], "a self-assignment is a change")
        token.invalidate()
    }

    func testObjectObserverSeesOldValuesOfAnotherThreadsWrite() throws {
        let realm = try open()
        let dog = NotifyDog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        var seen: [PropertyChange] = []
        let token = dog.observe { (change: ObjectChange<NotifyDog>) in
            if case .change(_, let properties) = change { seen += properties }
        }
        try commitOnAnotherThread { other in
            let copy = other.objects(NotifyDog.self).first!
            try other.write { copy.age = 7 }
        }
        realm.refresh()
        XCTAssertEqual(seen.map(\.name), ["age"])
        XCTAssertEqual(seen.first?.oldValue as? Int, 1)
        XCTAssertEqual(seen.first?.newValue as? Int, 7)
        token.invalidate()
    }

    func testObjectKeyPathsFilterAndCrossLinks() throws {
        let realm = try open()
        let owner = NotifyOwner(value: ["name": "Ann"])
        let dog = NotifyDog(value: ["name": "Rex"])
        try realm.write {
            realm.add(dog)
            dog.owner = owner
        }
        var names: [[String]] = []
        let token = dog.observe(keyPaths: ["owner.name"]) { (change: ObjectChange<NotifyDog>) in
            if case .change(_, let properties) = change { names.append(properties.map(\.name)) }
        }
        var deletedOnly: [String] = []
        let deletionToken = dog.observe(keyPaths: []) { (change: ObjectChange<NotifyDog>) in
            if case .deleted = change { deletedOnly.append("deleted") } else { deletedOnly.append("other") }
        }
        var typed = 0
        let typedToken = dog.observe(keyPaths: [\NotifyDog.age]) { (_: ObjectChange<NotifyDog>) in typed += 1 }
        try realm.write { dog.name = "Max" }
        XCTAssertEqual(names, [])
        try realm.write { owner.name = "Bob" }
        XCTAssertEqual(names, [["owner"]])
        try realm.write { dog.owner = nil }
        XCTAssertEqual(names, [["owner"], ["owner"]])
        XCTAssertEqual(typed, 0)
        try realm.write { dog.age = 4 }
        XCTAssertEqual(typed, 1)
        try realm.write { realm.delete(dog) }
        XCTAssertEqual(deletedOnly, ["deleted"])
        [token, deletionToken, typedToken].forEach { $0.invalidate() }
    }

    func testWithoutNotifyingSkipsOnlyTheTokensGiven() throws {
        let realm = try open()
        let dog = NotifyDog()
        try realm.write { realm.add(dog) }
        var first = 0, second = 0
        let a = dog.observe { (_: ObjectChange<NotifyDog>) in first += 1 }
        let b = dog.observe { (_: ObjectChange<NotifyDog>) in second += 1 }
        try realm.write(withoutNotifying: [a]) { dog.age = 1 }
        XCTAssertEqual([first, second], [0, 1])
        try realm.write { dog.age = 2 }
        XCTAssertEqual([first, second], [1, 2], "the skipped observer is told of later writes only")
        a.invalidate()
        b.invalidate()
    }

    // MARK: Results

    func testResultsInitialThenUpdatesWithRealmsIndices() throws {
        let realm = try open()
        try realm.write {
            for (name, age) in [("a", 1), ("b", 5), ("c", 9)] { realm.add(NotifyDog(value: ["name": name, "age": age])) }
        }
        let results = realm.objects(NotifyDog.self).filter("age > 2").sorted(byKeyPath: "age")
        var seen: [SeenChange] = []
        let token = results.observe { seen.append(SeenChange($0)) }
        XCTAssertEqual(seen, [], ".initial comes asynchronously")
        realm.refresh()
        XCTAssertEqual(seen, [.initial(2)])
        try realm.write { realm.add(NotifyDog(value: ["name": "d", "age": 7])) } // b(5) d(7) c(9)
        XCTAssertEqual(seen.last, .update(deletions: [], insertions: [1], modifications: []))
        try realm.write { results[0].name = "B" }
        XCTAssertEqual(seen.last, .update(deletions: [], insertions: [], modifications: [0]))
        try realm.write { results[2].age = 0 } // c leaves
        XCTAssertEqual(seen.last, .update(deletions: [2], insertions: [], modifications: []))
        let before = seen.count
        try realm.write { realm.objects(NotifyDog.self).filter("age == 1").first!.name = "x" }
        XCTAssertEqual(seen.count, before, "a change outside the results tells nobody")
        token.invalidate()
    }

    func testObservedResultsKeepTheirFiltersArgumentsAndDistinct() throws {
        let realm = try open()
        try realm.write {
            realm.add(NotifyDog(value: ["name": "Rex \"the\" dog", "age": 3]))
            realm.add(NotifyDog(value: ["name": "Rex \"the\" dog", "age": 4]))
            realm.add(NotifyDog(value: ["name": "Max", "age": 5]))
        }
        let results = realm.objects(NotifyDog.self).filter("name == %@", "Rex \"the\" dog")
            .where { $0.age > 2 }.distinct(by: ["name"])
        var seen: [SeenChange] = []
        let token = results.observe { seen.append(SeenChange($0)) }
        realm.refresh()
        try realm.write { realm.add(NotifyDog(value: ["name": "Rex \"the\" dog", "age": 9])) }
        try realm.write { realm.objects(NotifyDog.self).filter("age == 3").first!.age = 1 }
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(seen.first, .initial(1))
        XCTAssertEqual(seen.count, 2, "the distinct result's first object changed once: \(seen)")
        token.invalidate()
    }

    func testResultsKeyPathsChooseModifications() throws {
        let realm = try open()
        try realm.write { realm.add(NotifyDog(value: ["name": "a", "age": 1])) }
        var seen: [SeenChange] = []
        let token = realm.objects(NotifyDog.self).observe(keyPaths: ["age"]) { seen.append(SeenChange($0)) }
        realm.refresh()
        try realm.write { realm.objects(NotifyDog.self)[0].name = "b" }
        XCTAssertEqual(seen, [.initial(1)])
        try realm.write { realm.objects(NotifyDog.self)[0].age = 2 }
        XCTAssertEqual(seen, [.initial(1), .update(deletions: [], insertions: [], modifications: [0])])
        token.invalidate()
    }

    /// Random inserts, deletes, modifications and moves (sort-key changes) on a
    /// filtered, sorted result: each change set, applied to the old result, gives the
    /// new one, with as few moves as possible and exactly the modified survivors.
    func testSortedFilteredChangeSetsMatchABruteForceDiff() throws {
        let realm = try open()
        var generator = SeededGenerator(seed: 14)
        var serial = 0
        func newDog() -> NotifyDog {
            serial += 1
            return NotifyDog(value: ["name": "d\(Int.random(in: 0..<100, using: &generator))", "serial": serial,
                                     "age": Int.random(in: 0..<50, using: &generator)])
        }
        try realm.write { for _ in 0..<40 { realm.add(newDog()) } }
        let results = realm.objects(NotifyDog.self).filter("age >= 10")
            .sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
        var last: RealmCollectionChange<Results<NotifyDog>>?
        let token = results.observe { last = $0 }
        realm.refresh()
        var old = results.map(\.serial)
        for round in 0..<80 {
            var modified = Set<Int>()
            try realm.write {
                let all = realm.objects(NotifyDog.self)
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let operation = Int.random(in: 0..<4, using: &generator)
                    if operation == 0 || all.isEmpty {
                        realm.add(newDog())
                        continue
                    }
                    let dog = all[Int.random(in: 0..<all.count, using: &generator)]
                    switch operation {
                    case 1: realm.delete(dog)
                    case 2: dog.age = (dog.age + Int.random(in: 1..<50, using: &generator)) % 50 // moves, enters, leaves
                    default: dog.name += "+"
                    }
                    if operation != 1 { modified.insert(dog.serial) }
                }
            }
            let new = results.map(\.serial)
            BruteForceDiff.check(old: old, new: new, delivered: &last, modified: modified, round: round)
            old = new
        }
        token.invalidate()
    }

    // MARK: Other collections

    func testListChangesIncludeModifiedElements() throws {
        let realm = try open()
        let owner = NotifyOwner()
        try realm.write {
            realm.add(owner)
            for name in ["a", "b", "c"] { owner.dogs.append(NotifyDog(value: ["name": name])) }
        }
        var seen: [SeenChange] = []
        let token = owner.dogs.observe { seen.append(SeenChange($0)) }
        realm.refresh()
        try realm.write { owner.dogs.append(NotifyDog(value: ["name": "d"])) }
        try realm.write { owner.dogs.remove(at: 0) }
        try realm.write { owner.dogs[1].age = 3 }
        try realm.write { owner.dogs.move(from: 0, to: 2) }
        XCTAssertEqual(seen, [.initial(3),
                              .update(deletions: [], insertions: [3], modifications: []),
                              .update(deletions: [0], insertions: [], modifications: []),
                              .update(deletions: [], insertions: [], modifications: [1]),
                              .update(deletions: [0], insertions: [2], modifications: [])])
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(seen.last, .update(deletions: [0, 1, 2], insertions: [], modifications: []))
        token.invalidate()
    }

    func testSetLinkingObjectsMapAndAnyRealmCollection() throws {
        let realm = try open()
        let owner = NotifyOwner()
        let dog = NotifyDog(value: ["name": "a"])
        try realm.write { realm.add(owner); realm.add(dog) }
        var tags: [SeenChange] = [], owners: [SeenChange] = [], any: [SeenChange] = [], dogSet: [SeenChange] = []
        var scores: [String] = []
        let tokens = [
            owner.tags.observe { tags.append(SeenChange($0)) },
            dog.owners.observe { owners.append(SeenChange($0)) },
            AnyRealmCollection(owner.dogs).observe { any.append(SeenChange($0)) },
            owner.dogSet.observe { dogSet.append(SeenChange($0)) },
            owner.scores.observe { change in
                switch change {
                case .initial(let map): scores.append("initial \(map.count)")
                case .update(_, let deletions, let insertions, let modifications):
                    scores.append("-\(deletions) +\(insertions) ~\(modifications)")
                case .error: break
                }
            },
        ]
        realm.refresh()
        try realm.write {
            owner.tags.insert("m")
            owner.dogs.append(dog)
            owner.dogSet.insert(dog)
            owner.scores["x"] = 1
        }
        try realm.write {
            owner.tags.insert("a")
            owner.scores["x"] = 2
            owner.scores["y"] = 3
            dog.age = 5
        }
        try realm.write { owner.tags.remove("m"); owner.scores["x"] = nil }
        XCTAssertEqual(tags, [.initial(0), .update(deletions: [], insertions: [0], modifications: []),
                              .update(deletions: [], insertions: [0], modifications: []),
                              .update(deletions: [1], insertions: [], modifications: [])])
        XCTAssertEqual(owners, [.initial(0), .update(deletions: [], insertions: [0], modifications: []),
                                .update(deletions: [], insertions: [], modifications: [0]),
                                .update(deletions: [], insertions: [], modifications: [0])],
                       "the owner's tags and scores are its own properties")
        XCTAssertEqual(any, [.initial(0), .update(deletions: [], insertions: [0], modifications: []),
                             .update(deletions: [], insertions: [], modifications: [0])])
        XCTAssertEqual(dogSet, any)
        XCTAssertEqual(scores, ["initial 0", "-[] +[\"x\"] ~[]", "-[] +[\"y\"] ~[\"x\"]", "-[\"x\"] +[] ~[]"])
        tokens.forEach { $0.invalidate() }
    }

    // MARK: Queues and processes

    func testQueueObserverRunsOnTheQueueWithItsOwnConfinedResults() throws {
        let realm = try open()
        let queue = DispatchQueue(label: "observer")
        let updated = expectation(description: "update")
        var seen: [SeenChange] = []
        let token = realm.objects(NotifyDog.self).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .update(let results, _, _, _) = change {
                XCTAssertEqual(results.first?.name, "Rex", "the results read on the queue")
            }
            seen.append(SeenChange(change))
            if seen.count == 2 { updated.fulfill() }
        }
        queue.sync {} // .initial is queued by now or delivered
        try realm.write { realm.add(NotifyDog(value: ["name": "Rex"])) }
        wait(for: [updated], timeout: 10)
        queue.sync {
            XCTAssertEqual(seen.first, .initial(0))
            XCTAssertEqual(seen.last, .update(deletions: [], insertions: [0], modifications: []))
        }
        token.invalidate()
    }

    func testRealmInsideAQueueCallbackIsTheDeliveredCollectionsRealm() throws {
        let realm = try open()
        let queue = DispatchQueue(label: "callback realm")
        let updated = expectation(description: "update")
        var sameInstance: [Bool] = []
        let token = realm.objects(NotifyDog.self).observe(on: queue) { change in
            let results: Results<NotifyDog>
            switch change {
            case .initial(let collection): results = collection
            case .update(let collection, _, _, _): results = collection
            case .error: return
            }
            let inside = try! Realm(configuration: realm.configuration)
            let queues = try! Realm(configuration: realm.configuration, queue: queue)
            sameInstance.append(inside == results.realm! && queues == inside
                                && inside.objects(NotifyDog.self).count == results.count)
            if sameInstance.count == 2 { updated.fulfill() }
        }
        queue.sync {}
        try realm.write { realm.add(NotifyDog(value: ["name": "Rex"])) }
        wait(for: [updated], timeout: 10)
        queue.sync { XCTAssertEqual(sameInstance, [true, true]) }
        token.invalidate()
    }

    func testQueueObserverOfAnObjectSeesOldValues() throws {
        let realm = try open()
        let dog = NotifyDog(value: ["age": 1])
        try realm.write { realm.add(dog) }
        let queue = DispatchQueue(label: "object observer")
        let changed = expectation(description: "change")
        var old: Any?
        let token = dog.observe(on: queue) { (change: ObjectChange<NotifyDog>) in
            if case .change(let object, let properties) = change {
                XCTAssertEqual(object.age, 2)
                old = properties.first?.oldValue
                changed.fulfill()
            }
        }
        queue.sync {}
        try realm.write { dog.age = 2 }
        wait(for: [changed], timeout: 10)
        queue.sync { XCTAssertEqual(old as? Int, 1, "another thread's write has old values") }
        token.invalidate()
    }

    func testNotificationsOfAnotherProcessesCommit() throws {
        let realm = try open()
        let queue = DispatchQueue(label: "process observer")
        let updated = expectation(description: "update from the child")
        var insertions: [Int] = []
        let token = realm.objects(NotifyDog.self).observe(on: queue) { change in
            if case .update(_, _, let inserted, _) = change {
                insertions += inserted
                updated.fulfill()
            }
        }
        queue.sync {}
        let outcome = try ChildProcess.run("notify-add-dog", argument: fileURL.path)
        XCTAssertEqual(outcome.status, 0, outcome.output)
        wait(for: [updated], timeout: 10)
        queue.sync { XCTAssertEqual(insertions, [0]) }
        realm.refresh()
        XCTAssertEqual(realm.objects(NotifyDog.self).count, 1)
        token.invalidate()
    }

    func testInvalidatedTokenGetsNoMoreCallbacks() throws {
        let realm = try open()
        var count = 0
        let token = realm.objects(NotifyDog.self).observe { _ in count += 1 }
        realm.refresh()
        XCTAssertEqual(count, 1)
        token.invalidate()
        token.invalidate()
        try realm.write { realm.add(NotifyDog()) }
        XCTAssertEqual(count, 1)
    }

    func testQueueObserverOfAListAndAMap() throws {
        let realm = try open()
        let owner = NotifyOwner()
        try realm.write { realm.add(owner) }
        let queue = DispatchQueue(label: "list observer")
        let done = expectation(description: "list and map updates")
        done.expectedFulfillmentCount = 2
        var listChange: SeenChange?, mapKeys: [String] = []
        let listToken = owner.numbers.observe(on: queue) { change in
            if case .update = change {
                listChange = SeenChange(change)
                done.fulfill()
            }
        }
        let mapToken = owner.scores.observe(on: queue) { change in
            if case .update(let map, _, let insertions, _) = change {
                XCTAssertEqual(map["k"], 4, "the map read on the queue")
                mapKeys = insertions
                done.fulfill()
            }
        }
        queue.sync {}
        try realm.write {
            owner.numbers.append(objectsIn: [1, 2])
            owner.scores["k"] = 4
        }
        wait(for: [done], timeout: 10)
        queue.sync {
            XCTAssertEqual(listChange, .update(deletions: [], insertions: [0, 1], modifications: []))
            XCTAssertEqual(mapKeys, ["k"])
        }
        listToken.invalidate()
        mapToken.invalidate()
    }

    func testInvalidatingRunsEveryActionRegisteredOnTheToken() {
        let token = NotificationToken()
        var ran: [String] = []
        token.whenInvalidated { ran.append("observer") } // a queue observation registers two
        token.whenInvalidated { ran.append("watch") }
        token.invalidate()
        token.invalidate()
        token.whenInvalidated { ran.append("late") }
        XCTAssertEqual(ran, ["observer", "watch", "late"])
    }

    func testInvalidatingAQueueObserverReleasesItsRealmAndWatch() throws {
        let path = fileURL.path
        try {
            let realm = try open()
            let queue = DispatchQueue(label: "released")
            let token = realm.objects(NotifyDog.self).observe(on: queue) { _ in }
            queue.sync {}
            token.invalidate()
            queue.sync {}
        }()
        // The watcher's thread lets go of the file as it ends, a moment after it is told to.
        let deadline = Date().addingTimeInterval(5)
        while Environment.isOpen(at: path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertFalse(Environment.isOpen(at: path), "the queue's Realm or the commit watcher kept the file open")
    }

    // MARK: Delivery

    func testRealmOnTheSameThreadDeliversWhenItAutorefreshes() throws {
        let realm = try open()
        var notifications: [Realm.Notification] = []
        let token = realm.observe { notification, _ in notifications.append(notification) }
        try commitOnAnotherThread { other in try other.write { other.add(NotifyDog()) } }
        _ = try open() // Realm() on this thread: the cached instance, refreshed
        XCTAssertEqual(notifications, [.didChange])
        realm.autorefresh = false
        try commitOnAnotherThread { other in try other.write { other.add(NotifyDog()) } }
        _ = try open()
        XCTAssertEqual(notifications, [.didChange, .refreshRequired],
                       "without autorefresh, Realm() does not move the instance: it says a refresh is required")
        realm.refresh()
        XCTAssertEqual(notifications, [.didChange, .refreshRequired, .didChange])
        token.invalidate()
    }

    /// The main thread's observers need no refresh while the main queue runs (here
    /// XCTest's wait): `.initial`, then other threads' commits, come from it.
    func testTheMainThreadIsDeliveredFromTheMainQueue() throws {
        XCTAssertTrue(Thread.isMainThread)
        let realm = try open()
        var seen: [SeenChange] = []
        let initial = expectation(description: "initial"), update = expectation(description: "update")
        let token = realm.objects(NotifyDog.self).observe { change in
            seen.append(SeenChange(change))
            (seen.count == 1 ? initial : update).fulfill()
        }
        wait(for: [initial], timeout: 10)
        try commitOnAnotherThread { other in try other.write { other.add(NotifyDog()) } }
        wait(for: [update], timeout: 10)
        XCTAssertEqual(seen, [.initial(0), .update(deletions: [], insertions: [0], modifications: [])])
        token.invalidate()
    }

    func testACallbackMayWriteAndItsWriteIsDeliveredNext() throws {
        let realm = try open()
        var seen: [SeenChange] = []
        let token = realm.objects(NotifyDog.self).observe { change in
            seen.append(SeenChange(change))
            if seen.count == 2 { try! realm.write { realm.add(NotifyDog(value: ["name": "from the callback"])) } }
        }
        realm.refresh()
        try realm.write { realm.add(NotifyDog()) }
        XCTAssertEqual(seen.count, 2)
        realm.refresh()
        XCTAssertEqual(seen, [.initial(0), .update(deletions: [], insertions: [0], modifications: []),
                              .update(deletions: [], insertions: [1], modifications: [])])
        token.invalidate()
    }

    // MARK: AsyncSequence

    @MainActor
    func testChangesAsAnAsyncSequence() async throws {
        let realm = try Realm(configuration: configuration(Self.types))
        let dogs = realm.objects(NotifyDog.self)
        var seen: [SeenChange] = []
        for await change in dogs.changes {
            seen.append(SeenChange(change))
            if seen.count == 1 { try realm.write { realm.add(NotifyDog()) } }
            if seen.count == 2 { break }
        }
        XCTAssertEqual(seen, [.initial(0), .update(deletions: [], insertions: [0], modifications: [])])
    }

    @MainActor
    func testObjectChangesEndAfterDeletion() async throws {
        let realm = try Realm(configuration: configuration(Self.types))
        let dog = NotifyDog()
        try realm.write { realm.add(dog) }
        let writer = Task { @MainActor in
            try realm.write { dog.age = 1 }
            try realm.write { realm.delete(dog) }
        }
        var seen: [String] = []
        for await change in dog.changes {
            switch change {
            case .change(_, let properties): seen.append(properties.map(\.name).joined())
            case .deleted: seen.append("deleted")
            case .error: break
            }
        }
        try await writer.value
        XCTAssertEqual(seen, ["age", "deleted"])
    }

    // MARK: Misuse

    func testObservingInsideAWriteTraps() throws {
        try assertChildTraps("notify-observe-in-write", message: "Cannot create asynchronous query while in a write transaction")
        try assertChildTraps("notify-observe-object-in-write",
                         message: "Cannot register notification blocks from within write transactions.")
        try assertChildTraps("notify-observe-list-results",
                         message: "Cannot create asynchronous query while in a write transaction")
        try assertChildTraps("notify-observe-read-only",
                         message: "Read-only Realms do not change and do not have change notifications.")
    }

    /// Child-process scenarios (ChildScenarios): a commit from another process, and traps.
    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types)
        switch scenario {
        case "notify-add-dog":
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(NotifyDog(value: ["name": "from the child"])) }
        case "notify-observe-in-write":
            let realm = try Realm(configuration: configuration)
            realm.beginWrite()
            _ = realm.objects(NotifyDog.self).observe { _ in }
        case "notify-observe-object-in-write":
            let realm = try Realm(configuration: configuration)
            let dog = NotifyDog()
            try realm.write { realm.add(dog) }
            realm.beginWrite()
            _ = dog.observe { (_: ObjectChange<NotifyDog>) in }
        case "notify-observe-list-results":
            let realm = try Realm(configuration: configuration)
            let owner = NotifyOwner()
            try realm.write { realm.add(owner) }
            realm.beginWrite()
            _ = owner.dogs.sorted(byKeyPath: "age").observe { _ in }
        case "notify-observe-read-only":
            try Realm(configuration: configuration).write { }
            configuration.readOnly = true
            _ = try Realm(configuration: configuration).objects(NotifyDog.self).observe { _ in }
        default:
            return false
        }
        return true
    }

    // MARK: Helpers

    /// Runs body with this file's Realm on a new thread and waits for it.
    private func commitOnAnotherThread(_ body: @escaping (Realm) throws -> Void) throws {
        let configuration = configuration(Self.types)
        let failure = Box<Error?>(nil)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let body = body
        let thread = Thread {
            do { try body(try Realm(configuration: configuration)) } catch { failure.value = error }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = failure.value { throw error }
    }
}

/// The tests' oracle: checks a change set against the old and new result by brute force.
enum BruteForceDiff {
    static func check(old: [Int], new: [Int], deletions: [Int], insertions: [Int], modifications: [Int],
                      modified: Set<Int>, round: Int, file: StaticString = #filePath, line: UInt = #line) {
        let context = "round \(round): old \(old) new \(new) -\(deletions) +\(insertions) ~\(modifications)"
        XCTAssertEqual(deletions, deletions.sorted(), context, file: file, line: line)
        XCTAssertEqual(insertions, insertions.sorted(), context, file: file, line: line)
        XCTAssertEqual(modifications, modifications.sorted(), context, file: file, line: line)
        // Applying it: remove the deletions, insert the insertions' new elements.
        let deleted = Set(deletions)
        var applied = old.indices.filter { !deleted.contains($0) }.map { old[$0] }
        for index in insertions where index <= applied.count { applied.insert(new[index], at: index) }
        XCTAssertEqual(applied, new, "the change set does not turn old into new: \(context)", file: file, line: line)
        // As few moves as possible: what stays is a longest common subsequence.
        XCTAssertEqual(old.count - deletions.count, longestCommonSubsequence(old, new),
                       "more deletions than needed: \(context)", file: file, line: line)
        // Modifications: exactly the surviving elements that were modified.
        let expected = old.indices.filter { !deleted.contains($0) && modified.contains(old[$0]) }
        XCTAssertEqual(modifications, expected, "modifications: \(context)", file: file, line: line)
    }

    /// The same for the change delivered (which it forgets); none: nothing in old changed.
    static func check<C>(old: [Int], new: [Int], delivered: inout RealmCollectionChange<C>?, modified: Set<Int>,
                         round: Int, file: StaticString = #filePath, line: UInt = #line) {
        defer { delivered = nil }
        guard case .update(_, let deletions, let insertions, let modifications)? = delivered else {
            XCTAssertEqual(old, new, "round \(round): no update, so nothing changed", file: file, line: line)
            XCTAssertTrue(Set(old).isDisjoint(with: modified), "round \(round): a modified object not reported",
                          file: file, line: line)
            return
        }
        check(old: old, new: new, deletions: deletions, insertions: insertions, modifications: modifications,
              modified: modified, round: round, file: file, line: line)
    }

    static func longestCommonSubsequence(_ a: [Int], _ b: [Int]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in a.indices.reversed() {
            for j in b.indices.reversed() {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        return table[0][0]
    }
}

/// A reproducible random source for the randomized tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A value threads share in the tests, handed over by a semaphore.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
