import Dispatch
import Foundation
import XCTest
@testable import Larder

final class AsyncTodo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var owner = ""
    @Persisted var status = ""
}

/// The seed page's actor (Use Realm with Actors), as the page declares it.
actor RealmActor {
    // An implicitly-unwrapped optional is used here to let us pass `self` to
    // `Realm(actor:)` within `init`
    var realm: Realm!
    init() async throws {
        realm = try await Realm(actor: self)
    }

    var count: Int {
        realm.objects(AsyncTodo.self).count
    }

    func createTodo(name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite {
            realm.create(AsyncTodo.self, value: [
                "_id": ObjectId.generate(),
                "name": name,
                "owner": owner,
                "status": status
            ])
        }
    }

    func updateTodo(_id: ObjectId, name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite {
            realm.create(AsyncTodo.self, value: [
                "_id": _id,
                "name": name,
                "owner": owner,
                "status": status
            ], update: .modified)
        }
    }

    func close() {
        realm = nil
    }
}

/// An actor that writes with a throwing block, for the rollback and cancellation tests.
actor Writer {
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// `Realm.open` from the actor: confined to it, and a new instance each time as Realm(actor:) is.
    func openAnother() async throws -> Bool {
        let opened = try await Realm.open(configuration: realm.configuration)
        try await opened.asyncWrite { opened.add(Dog(value: ["name": "opened"])) }
        return opened != realm && opened.objects(Dog.self).count == realm.objects(Dog.self).count
    }

    func add(_ name: String) async throws {
        try await realm.asyncWrite { realm.add(Dog(value: ["name": name])) }
    }

    func addThenThrow(_ name: String) async throws {
        try await realm.asyncWrite {
            realm.add(Dog(value: ["name": name]))
            throw CocoaError(.userCancelled)
        }
    }

    func addInsideAWrite(_ name: String) async throws {
        realm.beginWrite()
        try await add(name)
    }

    var names: [String] {
        realm.refresh()
        return realm.objects(Dog.self).map(\.name).sorted()
    }

    func queue(_ name: String) async -> Bool {
        await withCheckedContinuation { continuation in
            realm.writeAsync({ self.realm.add(Dog(value: ["name": name])) }, onComplete: { error in
                continuation.resume(returning: error == nil)
            })
        }
    }

    var isPerforming: Bool { realm.isPerformingAsynchronousWriteOperations }

    /// Misuse for a trap test: hands the actor's Realm out of the actor.
    fileprivate func export(to box: UncheckedSendable<AsyncWriteTests.Box>) {
        box.value.realm = realm
    }
}

final class AsyncWriteTests: RealmTestCase {
    func testTheSeedPagesRealmActorRunsAsThePageShows() async throws {
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        Realm.Configuration.defaultConfiguration = configuration([AsyncTodo.self])

        let actor = try await RealmActor()
        try await actor.createTodo(name: "Keep it safe", owner: "Frodo", status: "In Progress")
        // Read objects in functions isolated to the actor and pass primitive values to the caller
        func getObjectId(in actor: isolated RealmActor, forTodoNamed name: String) async -> ObjectId {
            let todo = actor.realm.objects(AsyncTodo.self).where {
                $0.name == name
            }.first!
            return todo._id
        }
        let objectId = await getObjectId(in: actor, forTodoNamed: "Keep it safe")
        try await actor.updateTodo(_id: objectId, name: "Keep it safe", owner: "Frodo", status: "Completed")
        let count = await actor.count
        XCTAssertEqual(count, 1)
        await actor.close()

        let path = fileURL
        let status = try await Task.detached {
            try Realm(configuration: Realm.Configuration(fileURL: path, objectTypes: [AsyncTodo.self]))
                .object(ofType: AsyncTodo.self, forPrimaryKey: objectId)?.status
        }.value
        XCTAssertEqual(status, "Completed")
    }

    func testAThrowingAsyncWriteIsRolledBackAndRethrows() async throws {
        let writer = try await Writer(configuration: configuration())
        try await writer.add("Rex")
        do {
            try await writer.addThenThrow("Fido")
            XCTFail("no error")
        } catch let error as CocoaError {
            XCTAssertEqual(error.code, .userCancelled)
        }
        let names = await writer.names
        XCTAssertEqual(names, ["Rex"])
    }

    func testACancelledTaskThrowsCancellationErrorAndWritesNothing() async throws {
        let writer = try await Writer(configuration: configuration())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await writer.add("Rex")
        }
        await XCTAssertThrowsCancellation(try await task.value)
        let names = await writer.names
        XCTAssertEqual(names, [])
    }

    /// Waiting for another writer suspends: cancelling the waiting task ends the wait.
    func testCancellingAWriteWaitingForAnotherWriterThrowsCancellationError() async throws {
        let writer = try await Writer(configuration: configuration())
        let holder = WriteHolder(configuration: configuration())
        holder.begin()
        let task = Task { try await writer.add("Rex") }
        try await Task.sleep(nanoseconds: 50_000_000)
        task.cancel()
        await XCTAssertThrowsCancellation(try await task.value)
        holder.commit()
        try await writer.add("Fido")
        let names = await writer.names
        XCTAssertEqual(names, ["Fido"])
    }

    /// While a thread holds the file's writer, actors waiting for it leave the
    /// cooperative pool's threads (two here, with two cores) free for other tasks.
    func testWritersWaitingForTheLockDoNotHoldThePoolsThreads() async throws {
        let configuration = configuration()
        let holder = WriteHolder(configuration: configuration)
        holder.begin()
        var writers: [Writer] = []
        for _ in 0..<6 { writers.append(try await Writer(configuration: configuration)) }
        let waiting = writers.enumerated().map { index, writer in
            Task { try await writer.add("dog \(index)") }
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        let started = Date()
        let answer = await Task.detached { 6 * 7 }.value
        XCTAssertEqual(answer, 42)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        holder.commit()
        for task in waiting { try await task.value }
        let names = await writers[0].names
        XCTAssertEqual(names.count, 6)
    }

    func testRealmOpenOnAnActorIsConfinedToIt() async throws {
        let writer = try await Writer(configuration: configuration())
        let opened = try await writer.openAnother()
        XCTAssertTrue(opened)
    }

    /// A task waiting for the gate is not handed it while it has no thread: with every
    /// thread of the pool blocked in synchronous writes behind it, that would never end.
    func testSynchronousWritesOnEveryPoolThreadDoNotDeadlockATaskWaitingBeforeThem() throws {
        let configuration = configuration()
        let holder = WriteHolder(configuration: configuration)
        holder.begin()
        let done = DispatchGroup()
        done.enter()
        Task.detached {
            let writer = try await Writer(configuration: configuration)
            try await writer.add("async")
            done.leave()
        }
        Thread.sleep(forTimeInterval: 0.05)
        for index in 0..<(ProcessInfo.processInfo.activeProcessorCount + 2) {
            done.enter()
            Task.detached {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.add(Dog(value: ["name": "sync \(index)"])) }
                done.leave()
            }
        }
        Thread.sleep(forTimeInterval: 0.05)
        holder.commit()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the writers deadlocked")
    }

    func testWriteAsyncOnAnActorRunsTheBlockAndCallsItsCompletion() async throws {
        let writer = try await Writer(configuration: configuration())
        let succeeded = await writer.queue("Rex")
        XCTAssertTrue(succeeded)
        let names = await writer.names
        XCTAssertEqual(names, ["Rex"])
        let performing = await writer.isPerforming
        XCTAssertFalse(performing)
    }

    func testRealmOpenOnTheMainActorIsConfinedToIt() async throws {
        let count = try await Self.writeOnMainActor(configuration())
        XCTAssertEqual(count, 1)
    }

    @MainActor
    private static func writeOnMainActor(_ configuration: Realm.Configuration) async throws -> Int {
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { realm.add(Dog(value: ["name": "Rex"])) }
        XCTAssertNotEqual(realm, try Realm(configuration: configuration))
        return realm.objects(Dog.self).count
    }

    /// Callback writes on a queue's Realm: queued in order (also from inside a write),
    /// cancellable until they begin, completions called on the queue.
    func testWriteAsyncOnAQueuesRealm() throws {
        let queue = DispatchQueue(label: "larder.async")
        let configuration = configuration()
        let log = Log()
        let done = expectation(description: "completions")
        queue.sync {
            let realm = try! Realm(configuration: configuration, queue: queue)
            XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
            try! realm.write {
                realm.add(Dog(value: ["name": "first"]))
                realm.writeAsync({ realm.add(Dog(value: ["name": "queued in a write"])) },
                                 onComplete: { log.append("completed 1: \($0 == nil)") })
            }
            let cancelled = realm.writeAsync({ realm.add(Dog(value: ["name": "cancelled"])) },
                                             onComplete: { _ in log.append("cancelled one completed") })
            realm.beginAsyncWrite {
                realm.add(Dog(value: ["name": "begun"]))
                realm.commitAsyncWrite { error in
                    log.append("committed: \(error == nil)")
                    XCTAssertNotNil(QueueContext.current)
                    XCTAssertEqual(realm.objects(Dog.self).map(\.name).sorted(),
                                   ["begun", "first", "queued in a write"])
                    DispatchQueue.main.async { done.fulfill() }
                }
            }
            try! realm.cancelAsyncWrite(cancelled)
            try! realm.cancelAsyncWrite(9999)  // unknown: nothing happens
            XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
            XCTAssertEqual(realm.objects(Dog.self).count, 1)
        }
        wait(for: [done], timeout: 10)
        queue.sync {
            XCTAssertFalse(try! Realm(configuration: configuration, queue: queue).isPerformingAsynchronousWriteOperations)
        }
        XCTAssertEqual(log.entries, ["completed 1: true", "committed: true"])
    }

    /// The main thread's Realm runs its callback writes from the main queue.
    func testWriteAsyncOnTheMainThreadsRealm() throws {
        XCTAssertTrue(Thread.isMainThread)
        let realm = try openRealm()
        let done = expectation(description: "completion")
        realm.writeAsync({ realm.add(Dog(value: ["name": "Rex"])) }, onComplete: { error in
            XCTAssertNil(error)
            done.fulfill()
        })
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    /// Another thread has no run loop: its Realm runs callback writes when it refreshes.
    func testWriteAsyncOnAnotherThreadsRealmRunsAtItsRefresh() throws {
        let configuration = configuration()
        onAnotherThread {
            let realm = try Realm(configuration: configuration)
            var completed = false
            realm.writeAsync({ realm.add(Dog(value: ["name": "Rex"])) }, onComplete: { _ in completed = true })
            XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
            XCTAssertEqual(realm.objects(Dog.self).count, 0)
            realm.refresh()
            XCTAssertTrue(completed)
            XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
            XCTAssertEqual(realm.objects(Dog.self).count, 1)
        }
    }

    func testAWriteLeftOpenAcrossAQueuesBlocksTraps() throws {
        try assertChildTraps("queue-write-across-blocks", message: "A write transaction must end on the thread that began it")
    }

    /// Two instances of one file on one thread (different objectTypes): the second
    /// write is refused by the C core, not left waiting for the first forever.
    func testASecondWriteOfTheSameThreadTrapsRatherThanWaits() throws {
        try assertChildTraps("second-write-same-thread", message: "already holds a write transaction")
    }

    func testAnAsyncWriteInsideAWriteTrapsRatherThanWaits() throws {
        try assertChildTraps("async-write-inside-write", message: "The Realm is already in a write transaction")
    }

    func testUsingAnActorsRealmOffTheActorTraps() throws {
        try assertChildTraps("actor-realm-other-thread", message: "Realm accessed from incorrect thread.")
    }

    func testAsyncWriteOnAThreadsRealmTraps() throws {
        try assertChildTraps("async-write-thread-realm",
                             message: "asyncWrite() can only be called on main thread or actor-isolated Realms")
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        let configuration = ChildScenarios.configuration(path)
        switch scenario {
        case "actor-realm-other-thread":
            let done = DispatchSemaphore(value: 0)
            let box = UncheckedSendable(value: Box())
            Task.detached {
                let writer = try await Writer(configuration: configuration)
                try await writer.add("Rex")
                await writer.export(to: box)
                done.signal()
            }
            done.wait()
            print(box.value.realm!.objects(Dog.self).count)
        case "async-write-thread-realm":
            // A thread's Realm, not the main thread's (which may asyncWrite from the main actor).
            let opened = DispatchSemaphore(value: 0)
            let box = UncheckedSendable(value: Box())
            Thread {
                box.value.realm = try! Realm(configuration: configuration)
                opened.signal()
                Thread.sleep(forTimeInterval: 10)
            }.start()
            opened.wait()
            let realm = UncheckedSendable(value: box.value.realm!)
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                try await Nobody().write(realm.value)
                done.signal()
            }
            done.wait()
        case "async-write-inside-write":
            Thread {
                Thread.sleep(forTimeInterval: 10)
                print("HUNG")
                exit(0)
            }.start()
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                let writer = try await Writer(configuration: configuration)
                try await writer.addInsideAWrite("Rex")
                done.signal()
            }
            done.wait()
        case "second-write-same-thread":
            Thread {
                Thread.sleep(forTimeInterval: 10)
                print("HUNG")
                exit(0)
            }.start()
            let first = try Realm(configuration: configuration)
            let second = try Realm(configuration: ChildScenarios.dogsOnly(path))
            first.beginWrite()
            second.beginWrite()
        case "queue-write-across-blocks":
            let queue = DispatchQueue(label: "larder.child")
            let box = UncheckedSendable(value: Box())
            // Two threads alive together run the two blocks (sync runs on the caller's thread).
            let began = DispatchSemaphore(value: 0)
            Thread {
                queue.sync {
                    box.value.realm = try! Realm(configuration: configuration, queue: queue)
                    box.value.realm!.beginWrite()
                }
                began.signal()
                Thread.sleep(forTimeInterval: 5)
            }.start()
            began.wait()
            queue.sync { try! box.value.realm!.commitWrite() }
        default:
            return false
        }
        print("NO TRAP")
        return true
    }

    fileprivate final class Box { var realm: Realm? }

    private final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var logged: [String] = []
        func append(_ entry: String) { lock.withLock { logged.append(entry) } }
        var entries: [String] { lock.withLock { logged } }
    }

    private actor Nobody {
        func write(_ realm: Realm) async throws { try await realm.asyncWrite { } }
    }
}

/// A write held open on a thread of its own, as another writer of the file.
final class WriteHolder: @unchecked Sendable {
    private let configuration: Realm.Configuration
    private let began = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(configuration: Realm.Configuration) {
        self.configuration = configuration
    }

    func begin() {
        Thread { [self] in
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            began.signal()
            release.wait()
            try! realm.commitWrite()
            ended.signal()
        }.start()
        began.wait()
    }

    func commit() {
        release.signal()
        ended.wait()
    }
}

func XCTAssertThrowsCancellation<T>(_ body: @autoclosure () async throws -> T,
                                    file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await body()
        XCTFail("no error", file: file, line: line)
    } catch {
        XCTAssertTrue(error is CancellationError, "\(error)", file: file, line: line)
    }
}
