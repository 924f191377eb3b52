import Foundation
import XCTest
@testable import Larder

/// `commitAsyncWrite(allowGrouping: true)`: commits visible at once, flushed to disk by
/// one sync per group, completions after it.
final class GroupedCommitTests: RealmTestCase {
    private final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var logged: [String] = []
        func append(_ entry: String) { lock.withLock { logged.append(entry) } }
        var entries: [String] { lock.withLock { logged } }
    }

    /// Three writes queued behind one another on a queue's Realm, committed with grouping or not:
    /// what each block and completion saw, and how many syncs the grouped commits asked for.
    private func commitThree(grouping: Bool) throws -> (log: [String], syncs: Int) {
        let queue = DispatchQueue(label: "grouped")
        let configuration = configuration()
        let log = Log()
        let done = expectation(description: "completions")
        let kept = Box<Realm?>(nil)  // the queue's Realm, and with it its count of syncs
        queue.sync {
            let realm = try! Realm(configuration: configuration, queue: queue)
            kept.value = realm
            for i in 0..<3 {
                realm.beginAsyncWrite {
                    log.append("write \(i) sees \(realm.objects(Dog.self).count)")
                    realm.add(Dog(value: ["name": "dog \(i)"]))
                    realm.commitAsyncWrite(allowGrouping: grouping) { error in
                        log.append("completed \(i): \(error == nil ? "ok" : "\(error!)")")
                        if i == 2 { done.fulfill() }
                    }
                }
            }
            XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
        }
        wait(for: [done], timeout: 10)
        return queue.sync {
            let realm = try! Realm(configuration: configuration, queue: queue)
            defer { kept.value = nil }
            XCTAssertTrue(realm == kept.value)
            XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
            XCTAssertEqual(realm.objects(Dog.self).count, 3)
            return (log.entries, realm.instance.asyncWrites!.groupSyncs)
        }
    }

    func testGroupedCommitsAreVisibleAtOnceAndCompleteAfterOneSync() throws {
        let (log, syncs) = try commitThree(grouping: true)
        XCTAssertEqual(log, ["write 0 sees 0", "write 1 sees 1", "write 2 sees 2",
                             "completed 0: ok", "completed 1: ok", "completed 2: ok"])
        XCTAssertEqual(syncs, 1, "one sync for the group")
    }

    func testUngroupedCommitsSyncEachTimeAndAskForNoGroupSync() throws {
        let (log, syncs) = try commitThree(grouping: false)
        XCTAssertEqual(log.filter { $0.hasPrefix("completed") }, ["completed 0: ok", "completed 1: ok", "completed 2: ok"])
        XCTAssertEqual(syncs, 0)
    }

    func testAGroupedCommitOnTheMainThreadsRealmAndAnotherThreadsRealm() throws {
        let realm = try openRealm()
        let done = expectation(description: "main queue completion")
        realm.beginAsyncWrite {
            realm.add(Dog(value: ["name": "Rex"]))
            realm.commitAsyncWrite(allowGrouping: true) { error in
                XCTAssertNil(error)
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        let configuration = configuration()
        onAnotherThread {
            let realm = try Realm(configuration: configuration)
            var completed = false
            realm.beginWrite()
            realm.add(Dog(value: ["name": "Ace"]))
            realm.commitAsyncWrite(allowGrouping: true) { _ in completed = true }
            XCTAssertEqual(realm.objects(Dog.self).count, 2, "visible before the sync")
            XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
            realm.refresh()  // a thread's Realm runs its scheduled work when it refreshes
            XCTAssertTrue(completed)
        }
    }

    func testGroupedCommitsOnAnActorsRealm() async throws {
        let writer = try await GroupingWriter(configuration: configuration())
        let (errors, syncs) = await writer.commitTwoGrouped()
        XCTAssertEqual(errors, [true, true])
        XCTAssertEqual(syncs, 1)
    }

    /// An actor with its own Realm that queues two writes and commits them in one group.
    private actor GroupingWriter {
        private var realm: Realm!
        init(configuration: Realm.Configuration) async throws {
            realm = try await Realm(configuration: configuration, actor: self)
        }

        /// Whether each completion saw no error, and the syncs of the group.
        func commitTwoGrouped() async -> ([Bool], Int) {
            var completed: [Bool] = []
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                for name in ["a", "b"] {
                    realm.beginAsyncWrite {
                        self.realm.add(Dog(value: ["name": name]))
                        self.realm.commitAsyncWrite(allowGrouping: true) { error in
                            completed.append(error == nil)
                            if completed.count == 2 { done.resume() }
                        }
                    }
                }
            }
            return (completed, realm.instance.asyncWrites!.groupSyncs)
        }
    }

    /// A completion that ran means the commit survives kill -9 of the process.
    func testACompletedGroupedCommitSurvivesKill9() throws {
        let child = try ChildProcess.start("grouped-commit-then-hang", argument: fileURL.path)
        var output = ""
        let handle = child.pipe.fileHandleForReading
        let deadline = Date().addingTimeInterval(20)
        while !output.contains("COMPLETED") && Date() < deadline {
            let data = handle.availableData
            if data.isEmpty { break }
            output += String(decoding: data, as: UTF8.self)
        }
        XCTAssertTrue(output.contains("COMPLETED"), output)
        kill(child.process.processIdentifier, SIGKILL)
        child.process.waitUntilExit()
        XCTAssertEqual(child.process.terminationReason, .uncaughtSignal)
        let realm = try Realm(configuration: ChildScenarios.configuration(fileURL.path))
        XCTAssertEqual(realm.objects(Dog.self).map(\.name), ["grouped"])
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        guard scenario == "grouped-commit-then-hang" else { return false }
        let realm = try Realm(configuration: ChildScenarios.configuration(path))
        var completed = false
        realm.beginAsyncWrite {
            realm.add(Dog(value: ["name": "grouped"]))
            realm.commitAsyncWrite(allowGrouping: true) { error in
                completed = error == nil
            }
        }
        while !completed { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
        print("COMPLETED")
        fflush(stdout)
        Thread.sleep(forTimeInterval: 60)  // until the parent kills this process
        return true
    }
}
