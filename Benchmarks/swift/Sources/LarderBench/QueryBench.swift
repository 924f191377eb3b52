// The query workloads of issue #13 through the Swift API: `where {}` on 200,000
// objects (an indexed string `name`, ints `a` and `b`, a string `c`, a link to one of
// 100 owners), against GRDB running the same query in SQL with the same index.
//
//   query-indexed-eq  `name == "item 123456"`: count and first (the index answers)
//   query-range       `a >= 100 && a < 200` on an unindexed int: count
//   query-compound    `a > 500 && (b == 7 || c.starts(with: "z", options: .caseInsensitive))`: count
//   query-contains    `c.contains("et", options: .caseInsensitive)`: count
//   query-link        `owner.name == "owner 7"`: count (GRDB: a join)
//
// ns_per_op is per query: building it (the DSL's C AST; GRDB: a prepared statement
// found in its cache), running it and reading the count. Lines: swift, and
// grdb-record with swift_speedup (GRDB's ns / swift's). Counts are checked equal.
import Foundation
import GRDB
import Larder

final class QueryBenchOwner: Object {
    @Persisted var name = ""
}

final class QueryBenchItem: Object {
    @Persisted(indexed: true) var name = ""
    @Persisted var a = 0
    @Persisted var b = 0
    @Persisted var c = ""
    @Persisted var owner: QueryBenchOwner?
}

enum QueryWorkload: String, CaseIterable {
    case indexedEq = "query-indexed-eq"
    case range = "query-range"
    case compound = "query-compound"
    case contains = "query-contains"
    case link = "query-link"

    /// Queries per timed run: the index answers in microseconds, scans take milliseconds.
    var runs: Int { self == .indexedEq ? 2000 : 10 }
}

enum QueryBench {
    static let count = 200_000
    static let owners = 100

    static func c(_ i: Int) -> String { ["zeta", "alpha", "Zorro", "beta", "gamma"][i % 5] + String(i % 97) }

    /// The Swift query of a workload: its count (and for indexed-eq, the first object's a added).
    static func swiftQuery(_ realm: Realm, _ workload: QueryWorkload) -> Int {
        let items = realm.objects(QueryBenchItem.self)
        switch workload {
        case .indexedEq:
            let found = items.where { $0.name == "item 123456" }
            return found.count + (found.first?.a ?? 0)
        case .range: return items.where { $0.a >= 100 && $0.a < 200 }.count
        case .compound:
            return items.where { $0.a > 500 && ($0.b == 7 || $0.c.starts(with: "z", options: .caseInsensitive)) }.count
        case .contains: return items.where { $0.c.contains("et", options: .caseInsensitive) }.count
        case .link: return items.where { $0.owner.name == "owner 7" }.count
        }
    }

    static func grdbQuery(_ db: Database, _ workload: QueryWorkload) throws -> Int {
        func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
            try Int.fetchOne(db.cachedStatement(sql: sql), arguments: arguments)!
        }
        switch workload {
        case .indexedEq:
            let first = try Int.fetchOne(db.cachedStatement(sql: "SELECT a FROM item WHERE name = ? ORDER BY id LIMIT 1"),
                                         arguments: ["item 123456"]) ?? 0
            return try count("SELECT COUNT(*) FROM item WHERE name = ?", ["item 123456"]) + first
        case .range: return try count("SELECT COUNT(*) FROM item WHERE a >= ? AND a < ?", [100, 200])
        case .compound: return try count("SELECT COUNT(*) FROM item WHERE a > ? AND (b = ? OR c LIKE ?)", [500, 7, "z%"])
        case .contains: return try count("SELECT COUNT(*) FROM item WHERE c LIKE ?", ["%et%"])
        case .link:
            return try count("SELECT COUNT(*) FROM item JOIN owner ON owner.id = item.ownerId WHERE owner.name = ?",
                             ["owner 7"])
        }
    }

    static func swift(directory: String) throws -> [QueryWorkload: (ns: Double, result: Int)] {
        let path = "\(directory)/swift-query.larder"
        try removeFileIfPresent(path)
        try removeFileIfPresent(path + "-lock")
        let realm = try Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: path), objectTypes: [QueryBenchItem.self, QueryBenchOwner.self]))
        try realm.write {
            let owners = (0..<owners).map { realm.create(QueryBenchOwner.self, value: ["name": "owner \($0)"]) }
            for i in 0..<count {
                let item = QueryBenchItem()
                item.name = "item \(i)"
                item.a = i % 1000
                item.b = i % 13
                item.c = c(i)
                item.owner = owners[i % owners.count]
                realm.add(item)
            }
        }
        return try measure { workload in swiftQuery(realm, workload) }
    }

    static func grdb(directory: String) throws -> [QueryWorkload: (ns: Double, result: Int)] {
        let path = "\(directory)/grdb-query.sqlite"
        for suffix in ["", "-journal", "-wal", "-shm"] { try removeFileIfPresent(path + suffix) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, a INTEGER NOT NULL,
                    b INTEGER NOT NULL, c TEXT NOT NULL, ownerId INTEGER REFERENCES owner(id));
                CREATE INDEX item_name ON item(name);
                """)
            for k in 0..<owners { try db.execute(sql: "INSERT INTO owner (id, name) VALUES (?, ?)", arguments: [k + 1, "owner \(k)"]) }
            let insert = try db.makeStatement(sql: "INSERT INTO item (name, a, b, c, ownerId) VALUES (?, ?, ?, ?, ?)")
            for i in 0..<count { try insert.execute(arguments: ["item \(i)", i % 1000, i % 13, c(i), i % owners + 1]) }
        }
        defer { try? queue.close() }
        return try measure { workload in try queue.read { db in try grdbQuery(db, workload) } }
    }

    /// Best of `repeats` timed runs of each workload's query, per query.
    private static func measure(_ query: (QueryWorkload) throws -> Int) throws -> [QueryWorkload: (ns: Double, result: Int)] {
        var out: [QueryWorkload: (ns: Double, result: Int)] = [:]
        for workload in QueryWorkload.allCases {
            var best = Double.infinity, result = 0
            for _ in 0..<repeats {
                best = min(best, try nanoseconds { for _ in 0..<workload.runs { result = try query(workload) } })
            }
            out[workload] = (best / Double(workload.runs), result)
        }
        return out
    }
}

func runQueries(directory: String) throws {
    FileHandle.standardError.write(Data("LarderBench: query workloads, best of \(repeats)\n".utf8))
    let swift = try QueryBench.swift(directory: directory)
    let grdb = try QueryBench.grdb(directory: directory)
    for workload in QueryWorkload.allCases {
        let s = swift[workload]!, g = grdb[workload]!
        if s.result != g.result {
            checksFailed = true
            FileHandle.standardError.write(Data(
                "LarderBench: CHECK FAILED: workload=\(workload.rawValue): swift \(s.result), grdb \(g.result)\n".utf8))
        }
        print("BENCH workload=\(workload.rawValue) impl=swift n=\(QueryBench.count) ns_per_op=\(fixed(s.ns, 1))")
        print("BENCH workload=\(workload.rawValue) impl=grdb-record n=\(QueryBench.count) ns_per_op=\(fixed(g.ns, 1))" +
              " swift_speedup=\(fixed(g.ns / s.ns, 2))")
        fflush(stdout)
    }
}
