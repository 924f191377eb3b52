// The mixed-value workloads (issue #12 point 8), compared with the raw-LMDB and C-API
// lines bench_c wrote for them (Benchmarks/c/bench_mixed.c describes the data, the
// workloads and the raw baselines). Run after the collection workloads by main.swift.
//
// 200,000 objects, ids 1...200,000, each with an int primary key and a mixed value
// holding, by id % 3, the int id * 7, the string "name-<id>", or a link to an earlier
// object (drawn with bench_mixed.c's seed). The strings and link targets are computed
// before any clock starts, as in C. mixed-insert adds them all in one write, commit
// included; mixed-scan reads every object's value in one read, summing the ints, the
// strings' UTF-8 lengths and the ids of the links' targets.
//
// impl=swift: `class MixedItem: Object` with `@Persisted(primaryKey: true) var id` and
// `@Persisted var value: AnyRealmValue`; `realm.write { realm.add(item) }` with
// `item.value = .int(...)`, `.string(...)` or `.object(earlierItem)`; the scan is
// `for item in realm.objects(MixedItem.self)` switching on `item.value`, and a link's
// target id is `(object as! MixedItem).id`, which reads the target's row (follows the
// link, as the C lines do).
//
// impl=grdb-record: a Codable record over a table with a type column and one nullable
// column per kind: `kind` ('int', 'string', 'link'), `intValue INTEGER`, `stringValue
// TEXT`, and a link as `linkTable TEXT` + `linkId INTEGER` (a mixed link may lead to any
// class, so there is no foreign key: a polymorphic association), with a partial index on
// (linkTable, linkId), the counterpart of Larder's backlink index (a GRDB user finding
// who links to an object needs it). Typed columns are the natural choice over a JSON
// column: SQLite keeps ints and text in their own types, the record decodes each
// column without a JSON parse, and links can be indexed and joined; it is also the
// faster of the two for GRDB. Its link column holds the target's primary key, so its
// scan reads the target's id without a join (it does not follow the link; Larder's
// lines do). Same configuration as the other GRDB workloads (DatabaseQueue, rollback
// journal, synchronous=FULL).
import Foundation
import GRDB
import Larder

enum MixedWorkload: String, CaseIterable {
    case insert = "mixed-insert"
    case scan = "mixed-scan"
}

/// The sizes, seed and data of bench_mixed.c.
enum MixedData {
    static let count = 200_000
    static let seed: UInt64 = 0x3113ED
    static let writeRepeats = 3
    static let readRepeats = 10

    static func intValue(_ id: Int) -> Int { id &* 7 }

    /// names[id - 1] is "name-<id>" when id % 3 == 1; targets[id - 1] the linked id when id % 3 == 2.
    static let plan: (names: [String], targets: [Int], sum: Int) = {
        var rng = XorShift64Star(seed: seed)
        var names = [String](repeating: "", count: count), targets = [Int](repeating: 0, count: count)
        var sum = 0
        for id in 1...count {
            switch id % 3 {
            case 0: sum &+= intValue(id)
            case 1:
                names[id - 1] = "name-\(id)"
                sum &+= names[id - 1].utf8.count
            default:
                targets[id - 1] = 1 + Int(rng.below(UInt64(id - 1)))
                sum &+= targets[id - 1]
            }
        }
        return (names, targets, sum)
    }()
}

// MARK: The Swift API

final class MixedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
}

final class SwiftMixedBench {
    let name = "swift"
    private let directory: String
    private var realm: Realm?
    private var opened = 0

    init(directory: String) { self.directory = directory }

    private func path(ofRun run: Int) -> String { "\(directory)/swift-mixed-\(run).larder" }

    /// A file of its own per run (a Realm instance is cached per thread and file); the
    /// previous run's file is removed, so only the last stays.
    func openFresh() throws {
        realm = nil
        for run in [opened - 1, opened] where run >= 0 {
            try removeFileIfPresent(path(ofRun: run))
            try removeFileIfPresent(path(ofRun: run) + "-lock")
        }
        let url = URL(fileURLWithPath: path(ofRun: opened))
        opened += 1
        realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MixedItem.self]))
    }

    private var openRealm: Realm {
        guard let realm else { fatalError("swift mixed: no open Realm") }
        return realm
    }

    func insertAll() throws {
        let realm = openRealm
        let plan = MixedData.plan
        try realm.write {
            var items: [MixedItem] = []
            items.reserveCapacity(MixedData.count)
            for id in 1...MixedData.count {
                let item = MixedItem()
                item.id = id
                switch id % 3 {
                case 0: item.value = .int(MixedData.intValue(id))
                case 1: item.value = .string(plan.names[id - 1])
                default: item.value = .object(items[plan.targets[id - 1] - 1])
                }
                realm.add(item)
                items.append(item)
            }
        }
    }

    func scan() throws -> Tally {
        var tally = Tally()
        for item in openRealm.objects(MixedItem.self) {
            tally.objects += 1
            switch item.value {
            case .int(let v): tally.sum &+= v
            case .string(let s): tally.sum &+= s.utf8.count
            case .object(let target): tally.sum &+= (target as! MixedItem).id
            default: throw BenchError("swift mixed-scan: a value of an unexpected kind")
            }
        }
        return tally
    }

    func close() { realm = nil }
}

// MARK: GRDB

struct MixedItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mixedItem"
    enum Kind: String, Codable { case int, string, link }

    var id: Int
    var kind: Kind
    var intValue: Int?
    var stringValue: String?
    var linkTable: String?
    var linkId: Int?
}

final class GRDBMixedBench {
    let name = "grdb-record"
    private let path: String
    private var queue: DatabaseQueue?

    init(directory: String) { path = "\(directory)/grdb-mixed.sqlite" }

    func openFresh() throws {
        try close()
        for suffix in ["", "-journal", "-wal", "-shm"] { try removeFileIfPresent(path + suffix) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE mixedItem (id INTEGER PRIMARY KEY, kind TEXT NOT NULL,
                    intValue INTEGER, stringValue TEXT, linkTable TEXT, linkId INTEGER);
                CREATE INDEX mixedItem_on_link ON mixedItem(linkTable, linkId) WHERE linkId IS NOT NULL;
                """)
        }
        self.queue = queue
    }

    private var openQueue: DatabaseQueue {
        guard let queue else { fatalError("grdb mixed: no open database") }
        return queue
    }

    func insertAll() throws {
        let plan = MixedData.plan
        try openQueue.write { db in
            for id in 1...MixedData.count {
                var record = MixedItemRecord(id: id, kind: .int)
                switch id % 3 {
                case 0: record.intValue = MixedData.intValue(id)
                case 1:
                    record.kind = .string
                    record.stringValue = plan.names[id - 1]
                default:
                    record.kind = .link
                    record.linkTable = MixedItemRecord.databaseTableName
                    record.linkId = plan.targets[id - 1]
                }
                try record.insert(db)
            }
        }
    }

    func scan() throws -> Tally {
        try openQueue.read { db in
            var tally = Tally()
            let records = try MixedItemRecord.fetchCursor(db)
            while let record = try records.next() {
                tally.objects += 1
                switch record.kind {
                case .int: tally.sum &+= record.intValue ?? 0
                case .string: tally.sum &+= record.stringValue?.utf8.count ?? 0
                case .link: tally.sum &+= record.linkId ?? 0
                }
            }
            return tally
        }
    }

    func close() throws {
        try queue?.close()
        queue = nil
    }
}

// MARK: The run

/// raw-lmdb, raw-lmdb+backlinks and c-api ns_per_op of each mixed workload in c-results.txt.
func loadMixedResults(_ path: String) throws -> [MixedWorkload: [String: Double]] {
    let table = try loadCResultTable(path, workloads: MixedWorkload.allCases.map(\.rawValue)) { _ in MixedData.count }
    guard table[MixedWorkload.insert.rawValue]?["raw-lmdb+backlinks"] != nil else {
        throw BenchError("\(path) has no raw-lmdb+backlinks line for workload=\(MixedWorkload.insert.rawValue)")
    }
    var results: [MixedWorkload: [String: Double]] = [:]
    for workload in MixedWorkload.allCases { results[workload] = table[workload.rawValue] }
    return results
}

func runMixed(directory: String) throws {
    let reference = try loadMixedResults("\(directory)/c-results.txt")
    let want = Tally(objects: MixedData.count, sum: MixedData.plan.sum) // computed before any clock starts
    FileHandle.standardError.write(Data(
        "LarderBench: mixed workloads, best of \(MixedData.writeRepeats) (scan \(MixedData.readRepeats))\n".utf8))
    let swift = SwiftMixedBench(directory: directory), grdb = GRDBMixedBench(directory: directory)
    var best: [String: [MixedWorkload: Double]] = [:]
    func keep(_ impl: String, _ workload: MixedWorkload, _ ns: Double) {
        best[impl, default: [:]][workload] = min(best[impl]?[workload] ?? .infinity, ns)
    }
    func verify(_ impl: String, _ workload: MixedWorkload, _ got: Tally) {
        if got == want { return }
        checksFailed = true
        FileHandle.standardError.write(Data(
            ("LarderBench: CHECK FAILED: impl=\(impl) workload=\(workload.rawValue): count \(got.objects), " +
             "sum \(got.sum); expected \(want.objects), \(want.sum)\n").utf8))
    }

    for _ in 0..<MixedData.writeRepeats {
        try swift.openFresh()
        keep(swift.name, .insert, try nanoseconds { try swift.insertAll() })
        try grdb.openFresh()
        keep(grdb.name, .insert, try nanoseconds { try grdb.insertAll() })
    }
    for _ in 0..<MixedData.readRepeats {
        var tally = Tally()
        keep(swift.name, .scan, try nanoseconds { tally = try swift.scan() })
        verify(swift.name, .scan, tally)
        keep(grdb.name, .scan, try nanoseconds { tally = try grdb.scan() })
        verify(grdb.name, .scan, tally)
    }
    swift.close()
    try grdb.close()

    let n = Double(MixedData.count)
    for workload in MixedWorkload.allCases {
        let ref = reference[workload]!
        let swiftNs = best[swift.name]![workload]! / n
        for impl in [swift.name, grdb.name] {
            let ns = best[impl]![workload]! / n
            var line = "BENCH workload=\(workload.rawValue) impl=\(impl) n=\(MixedData.count) ns_per_op=\(fixed(ns, 1))" +
                " vs_raw=\(fixed(ns / ref["raw-lmdb"]!, 2)) vs_c_api=\(fixed(ns / ref["c-api"]!, 2))"
            // mixed-insert: against raw-lmdb+backlinks, which keeps a backlink index as Larder does.
            if let rawBacklinks = ref["raw-lmdb+backlinks"] { line += " vs_raw_backlinks=\(fixed(ns / rawBacklinks, 2))" }
            if impl != swift.name { line += " swift_speedup=\(fixed(ns / swiftNs, 2))" }
            print(line)
        }
        fflush(stdout)
    }
}
