import CLarderSwift
import Dispatch
import Foundation
import XCTest
@testable import Larder

/// Realms confined to a dispatch queue, and the confinement override (Impl/Confinement.swift).
final class ConfinementTests: RealmTestCase {
    /// Holds what the queue's blocks share; the queue serialises them.
    private final class Shared: @unchecked Sendable {
        var realm: Realm?
        var dog: Dog?
        var threads: Set<UInt> = []
        var names: [String] = []
    }

    func testAQueueConfinedRealmServesEveryBlockOfItsQueueOnWhateverThread() throws {
        let queue = DispatchQueue(label: "larder.confinement")
        let shared = Shared()
        let configuration = configuration()
        try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            XCTAssertEqual(try Realm(configuration: configuration, queue: queue), realm)
            let dog = Dog(value: ["name": "Rex"])
            try realm.write { realm.add(dog) }
            shared.realm = realm
            shared.dog = dog
        }
        // Blocks run on whichever thread: sync ones on the caller's, here two threads alive together.
        let done = DispatchGroup()
        for first in 0..<2 {
            done.enter()
            Thread {
                for index in stride(from: first, to: 40, by: 2) { queue.sync {
                let realm = shared.realm!
                shared.threads.insert(UInt(bitPattern: larder_swift_os_thread_token()))
                shared.names.append(shared.dog!.name)
                XCTAssertEqual(try? Realm(configuration: configuration, queue: queue), realm)
                if index % 10 == 0 {
                    try? realm.write { shared.dog!.age += 1 }
                }
                XCTAssertEqual(realm.objects(Dog.self).count, 1)
                } }
                done.leave()
            }.start()
        }
        done.wait()
        XCTAssertEqual(shared.names, Array(repeating: "Rex", count: 40))
        queue.sync { XCTAssertEqual(shared.dog!.age, 4) }
        XCTAssertGreaterThan(shared.threads.count, 1, "libdispatch ran every block on one thread: nothing checked")
        queue.sync { shared.dog = nil; shared.realm = nil }
    }

    /// A row one thread of the queue read is not read stale by it after another thread
    /// of the queue wrote the object, nor after a write on another instance was refreshed.
    func testQueueThreadsReadWhatTheOthersWrote() throws {
        let queue = DispatchQueue(label: "larder.confinement")
        let configuration = configuration()
        let shared = Shared()
        queue.sync {
            shared.realm = try! Realm(configuration: configuration, queue: queue)
            let dog = Dog(value: ["name": "Rex", "age": 0])
            try! shared.realm!.write { shared.realm!.add(dog) }
            shared.dog = dog
        }
        let turns = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let done = DispatchSemaphore(value: 0)
        var seen: [Int] = []
        Thread {  // reads on its turn
            for _ in 0..<20 {
                turns.0.wait()
                queue.sync { seen.append(shared.dog!.age) }
                turns.1.signal()
            }
            done.signal()
        }.start()
        Thread {  // writes, through the queue's Realm and through its own
            for round in 0..<20 {
                queue.sync {
                    if round % 2 == 0 {
                        try! shared.realm!.write { shared.dog!.age += 1 }
                    } else {
                        let own = try! Realm(configuration: configuration)
                        try! own.write { own.objects(Dog.self).first!.age += 1 }
                        shared.realm!.refresh()
                    }
                }
                turns.0.signal()
                turns.1.wait()
            }
            done.signal()
        }.start()
        done.wait()
        done.wait()
        XCTAssertEqual(seen, Array(1...20))
        queue.sync { shared.dog = nil; shared.realm = nil }
    }

    func testAQueueRealmIsNotTheThreadsRealm() throws {
        let queue = DispatchQueue(label: "larder.confinement")
        let threadRealm = try openRealm()
        let configuration = configuration()
        let shared = Shared()
        queue.sync { shared.realm = try? Realm(configuration: configuration, queue: queue) }
        XCTAssertNotNil(shared.realm)
        XCTAssertNotEqual(shared.realm, threadRealm)
        // With a nil queue it is the thread's own.
        XCTAssertEqual(try Realm(configuration: configuration, queue: nil), threadRealm)
        queue.sync { shared.realm = nil }
    }

    /// Work run for a queue under its token takes the fast path; the thread's own Realm
    /// stays usable when a token of someone else is set on its thread.
    func testTheOverrideStandsForTheQueueAndLeavesTheThreadsRealmUsable() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        let dog = realm.objects(Dog.self).first!
        let queue = DispatchQueue(label: "larder.confinement")
        let context = QueueContext.of(queue)
        let token = UnsafeRawPointer(Unmanaged.passUnretained(context).toOpaque())
        withConfinement(token) {
            XCTAssertEqual(larder_swift_thread_token(), token)
            XCTAssertEqual(dog.name, "Rex")
            XCTAssertEqual(realm.objects(Dog.self).count, 1)
        }
        XCTAssertEqual(larder_swift_thread_token(), larder_swift_os_thread_token())
        XCTAssertEqual(dog.name, "Rex")
    }

    func testUsingAQueueRealmOffItsQueueTraps() throws {
        // Also right after a read on the queue cached the row on this very thread (sync runs here).
        for scenario in ["queue-realm-other-thread", "queue-realm-cached-row-off-queue"] {
            try assertChildTraps(scenario, message: "Realm accessed from incorrect thread.")
        }
        try assertChildTraps("queue-realm-opened-elsewhere", message: "Realm opened from incorrect dispatch queue.")
    }

    /// After `dispatchMain()` (an async main calls it) Linux runs the main queue and the
    /// main actor on other threads: the main thread's Realm is still theirs.
    func testTheMainThreadsRealmServesTheMainActorAfterDispatchMain() throws {
        let outcome = try ChildProcess.run("main-realm-after-dispatch-main", argument: fileURL.path)
        XCTAssertFalse(outcome.trapped, outcome.output)
        XCTAssertTrue(outcome.output.contains("MAIN 1 true"), outcome.output)
    }

    static func runScenario(_ scenario: String, path: String) throws -> Bool {
        let configuration = ChildScenarios.configuration(path)
        let queue = DispatchQueue(label: "larder.child")
        switch scenario {
        case "queue-realm-other-thread":
            let dog = try queue.sync {
                let realm = try Realm(configuration: configuration, queue: queue)
                let dog = Dog(value: ["name": "Rex"])
                try realm.write { realm.add(dog) }
                return dog
            }
            let thread = Thread { print(dog.name) }
            thread.start()
            Thread.sleep(forTimeInterval: 5)
        case "queue-realm-cached-row-off-queue":
            let dog = try queue.sync {
                let realm = try Realm(configuration: configuration, queue: queue)
                let dog = Dog(value: ["name": "Rex"])
                try realm.write { realm.add(dog) }
                _ = dog.name
                return dog
            }
            print(dog.name)
        case "main-realm-after-dispatch-main":
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
            let box = UncheckedSendable(value: realm)
            Task { @MainActor in
                for _ in 0..<10 { try? await Task.sleep(nanoseconds: 1_000_000) }
                let again = try! Realm(configuration: configuration)
                try! again.write { again.add(Dog(value: ["name": "Fido"])) }
                try! await again.asyncWrite { again.delete(again.objects(Dog.self).filter("name == 'Fido'")) }
                print("MAIN \(box.value.objects(Dog.self).count) \(again == box.value) on main thread: \(Thread.isMainThread)")
                fflush(stdout)
                exit(0)
            }
            dispatchMain()
        case "queue-realm-opened-elsewhere":
            _ = try Realm(configuration: configuration, queue: queue)
        default:
            return false
        }
        print("NO TRAP")
        return true
    }
}
