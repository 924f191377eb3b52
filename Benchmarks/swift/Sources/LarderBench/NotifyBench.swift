// The notification workloads (issue #14 point 10), Swift only:
//
// workload=insert-observed impl=swift: the objects workload's insert (200,000
// BenchObjects in one write) with one observer registered on all BenchObjects
// (its change set of 200,000 insertions delivered after the commit), beside the
// same insert with none: vs_unobserved (target: within 1.2x).
//
// workload=notify-latency: from just before a commit changing one object to the
// callback of a Results observer, impl=swift-queue when this process commits
// (callback on another DispatchQueue), impl=swift-process when a child process
// does (this binary started as `LarderBench --notify-writer <file>`; both read
// CLOCK_MONOTONIC, which processes share). ns_per_op is the median of 200; it
// includes the commit itself (its fsyncs), whose median alone is commit_ns.
//
// workload=changeset-sorted: n objects (20,000 and 200,000) sorted by v1, observed;
// another thread commits a change of one object's v1 (untimed), then ns_per_op
// times `realm.refresh()`, which computes the change set and calls the callback
// (median of 100). It must not grow with n. impl=grdb-record: what GRDB's natural
// equivalent, a ValueObservation of the same sorted request, does after each commit:
// fetch it again (`BenchRecord.order(Column("v1")).fetchAll`, no change set), timed
// alone; swift_speedup.
import Foundation
import GRDB
import Larder

enum NotifyBench {
    static let latencyRounds = 200
    static let changesetRounds = 100

    static func run(directory: String) throws {
        FileHandle.standardError.write(Data("LarderBench: notification workloads\n".utf8))
        try insertObserved(directory: directory)
        try latencyInProcess(directory: directory)
        try latencyFromAnotherProcess(directory: directory)
        try runChangesetSorted(directory: directory)
    }

    /// Section changes-sorted: only changeset-sorted.
    static func runChangesetSorted(directory: String) throws {
        for n in [20_000, 200_000] { try changesetSorted(directory: directory, n: n) }
    }

    // MARK: insert-observed

    private static func insertObserved(directory: String) throws {
        var best: [Bool: Double] = [:]
        for run in 0..<repeats {
            for observed in [false, true] {
                let realm = try freshRealm(directory, "insert-\(observed)-\(run)")
                var token: NotificationToken?
                var inserted = 0
                if observed {
                    token = realm.objects(BenchObject.self).observe { change in
                        if case .update(_, _, let insertions, _) = change { inserted = insertions.count }
                    }
                    realm.refresh() // its .initial, before the clock
                }
                let ns = try nanoseconds { try SwiftBench.insertAll(into: realm) }
                token?.invalidate()
                if observed && inserted != Workload.count {
                    failCheck("insert-observed: the observer saw \(inserted) insertions, expected \(Workload.count)")
                }
                best[observed] = min(best[observed] ?? .infinity, ns)
            }
        }
        let n = Double(Workload.count)
        print("BENCH workload=insert-observed impl=swift n=\(Workload.count) ns_per_op=\(fixed(best[true]! / n, 1)) " +
              "vs_unobserved=\(fixed(best[true]! / best[false]!, 2))")
        fflush(stdout)
    }

    // MARK: notify-latency

    private static func latencyInProcess(directory: String) throws {
        let realm = try freshRealm(directory, "latency")
        try realm.write { realm.add(BenchObject(value: ["id": 1])) }
        let object = realm.object(ofType: BenchObject.self, forPrimaryKey: 1)!
        let received = DispatchSemaphore(value: 0)
        let arrivals = Arrivals()
        let token = observeOnQueue(realm, arrivals: arrivals, received: received)
        received.wait() // .initial
        var latencies: [Double] = []
        var commits: [Double] = []
        for round in 1...latencyRounds {
            let start = monotonicNow()
            try realm.write { object.v0 = round }
            commits.append(monotonicNow() - start)
            received.wait()
            latencies.append(arrivals.last - start)
        }
        token.invalidate()
        report("notify-latency", "swift-queue", n: latencyRounds, median(latencies),
               extra: " commit_ns=\(fixed(median(commits), 1))")
    }

    private static func latencyFromAnotherProcess(directory: String) throws {
        let realm = try freshRealm(directory, "latency-process")
        try realm.write { realm.add(BenchObject(value: ["id": 1])) }
        let received = DispatchSemaphore(value: 0)
        let arrivals = Arrivals()
        let token = observeOnQueue(realm, arrivals: arrivals, received: received)
        received.wait()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--notify-writer", realm.configuration.fileURL!.path]
        let toChild = Pipe(), fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        let lines = LineReader(fromChild.fileHandleForReading)
        var latencies: [Double] = [], commits: [Double] = []
        for _ in 1...latencyRounds {
            toChild.fileHandleForWriting.write(Data("commit\n".utf8))
            guard let line = lines.next(), case let parts = line.split(separator: " "), parts.count == 2,
                  let start = Double(parts[0]), let end = Double(parts[1]) else { throw BenchError("notify writer stopped") }
            received.wait()
            latencies.append(arrivals.last - start)
            commits.append(end - start)
        }
        try toChild.fileHandleForWriting.close()
        child.waitUntilExit()
        token.invalidate()
        report("notify-latency", "swift-process", n: latencyRounds, median(latencies),
               extra: " commit_ns=\(fixed(median(commits), 1))")
    }

    /// The child of swift-process: for each line on stdin, commits one change and prints the clock before and after.
    static func runWriter(path: String) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                 objectTypes: [BenchObject.self]))
        var round = 0
        while readLine() != nil {
            round += 1
            let object = realm.object(ofType: BenchObject.self, forPrimaryKey: 1)!
            let start = monotonicNow()
            try realm.write { object.v0 = -round }
            print(start, monotonicNow())
            fflush(stdout)
        }
    }

    private static func observeOnQueue(_ realm: Realm, arrivals: Arrivals, received: DispatchSemaphore) -> NotificationToken {
        realm.objects(BenchObject.self).observe(on: DispatchQueue(label: "notify-bench")) { _ in
            arrivals.last = monotonicNow()
            received.signal()
        }
    }

    // MARK: changeset-sorted

    private static func changesetSorted(directory: String, n: Int) throws {
        let realm = try freshRealm(directory, "changeset-\(n)")
        try realm.write {
            for id in 1...n { realm.add(BenchObject(value: ["id": id, "v1": id * 10])) }
        }
        var moved = 0, calls = 0
        let token = realm.objects(BenchObject.self).sorted(byKeyPath: "v1").observe { change in
            calls += 1
            if case .update(_, let deletions, let insertions, _) = change { moved += deletions.count + insertions.count }
        }
        realm.refresh() // .initial
        let writer = OtherThreadWriter(realm.configuration)
        var swiftTimes: [Double] = []
        for round in 1...changesetRounds {
            writer.commit { other in
                let object = other.object(ofType: BenchObject.self, forPrimaryKey: (round * 7919) % n + 1)!
                object.v1 = (round * 104_729) % (n * 10) * 3 + 1 // a new place in the order
            }
            swiftTimes.append(nanoseconds { realm.refresh() })
        }
        writer.stop()
        token.invalidate()
        if calls != changesetRounds + 1 || moved != 2 * changesetRounds {
            failCheck("changeset-sorted: \(calls) callbacks moving \(moved) places, expected \(changesetRounds + 1), \(2 * changesetRounds)")
        }

        let grdb = GRDBFile(path: "\(directory)/notify-grdb-\(n).sqlite")
        try grdb.openFresh()
        try grdb.queue.write { db in for id in 1...n { var r = BenchRecord(id: id); r.v1 = id * 10; try r.insert(db) } }
        var grdbTimes: [Double] = []
        for round in 1...changesetRounds {
            try grdb.queue.write { db in
                try db.execute(sql: "UPDATE t SET v1 = ? WHERE id = ?",
                               arguments: [(round * 104_729) % (n * 10) * 3 + 1, (round * 7919) % n + 1])
            }
            var fetched = 0
            grdbTimes.append(try nanoseconds {
                fetched = try grdb.queue.read { db in try BenchRecord.order(Column("v1")).fetchAll(db) }.count
            })
            if fetched != n { failCheck("changeset-sorted: grdb fetched \(fetched) of \(n)") }
        }
        try grdb.close()
        let swiftNs = median(swiftTimes), grdbNs = median(grdbTimes)
        report("changeset-sorted", "swift", n: n, swiftNs)
        report("changeset-sorted", "grdb-record", n: n, grdbNs, extra: " swift_speedup=\(fixed(grdbNs / swiftNs, 2))")
    }

    // MARK: Plumbing

    private static func freshRealm(_ directory: String, _ name: String) throws -> Realm {
        let path = "\(directory)/notify-\(name).larder"
        try removeFileIfPresent(path)
        try removeFileIfPresent(path + "-lock")
        return try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [BenchObject.self]))
    }

    private static func report(_ workload: String, _ impl: String, n: Int, _ ns: Double, extra: String = "") {
        print("BENCH workload=\(workload) impl=\(impl) n=\(n) ns_per_op=\(fixed(ns, 1))" + extra)
        fflush(stdout)
    }

    private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    private static func failCheck(_ message: String) {
        checksFailed = true
        FileHandle.standardError.write(Data("LarderBench: CHECK FAILED: \(message)\n".utf8))
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the machine.
func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

/// When the last callback ran; written on the observer's queue before it signals.
final class Arrivals: @unchecked Sendable {
    var last: Double = 0
}

/// A thread with its own Realm that commits what it is given, one block at a time.
final class OtherThreadWriter: @unchecked Sendable {
    private let work = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    private var block: ((Realm) -> Void)?

    init(_ configuration: Realm.Configuration) {
        Thread { [self] in
            let realm = try! Realm(configuration: configuration)
            while true {
                work.wait()
                guard let block else { break }
                try! realm.write { block(realm) }
                done.signal()
            }
            done.signal()
        }.start()
    }

    /// Commits block on the thread and waits for it.
    func commit(_ block: @escaping (Realm) -> Void) {
        self.block = block
        work.signal()
        done.wait()
    }

    func stop() {
        block = nil
        work.signal()
        done.wait()
    }
}

/// Lines from a pipe.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}
