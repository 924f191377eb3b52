// The query workloads (issue #13), compared with the raw-LMDB and C-API lines bench_c
// wrote for them: Benchmarks/c/bench_query.c describes the data (200,000 items, each
// with an indexed name, ints age, a and b, an 8-letter word and a link to one of 1,000
// owners), the workloads, and what each checks. Every implementation computes the same
// counts, sums and sorted sequences, checked against the plan below.
//
// impl=swift: `realm.objects(QueryItem.self)` with `where { ... }` (the seed pages'
// style) for the indexed equality and `filter("...")` (the C text) for the others,
// iterating the matches and reading `a`; `sorted(byKeyPath:)` for the sorts;
// `sum(ofProperty:)` and `average(ofProperty:)`. The sum and the average of one Results at
// one version share a scan: the sum folds min, max, sum and average of `a` at once and the
// average reuses that fold.
//
// impl=grdb-record: GRDB's natural equivalent, its query interface over Codable records
// (`QueryItemRecord.filter(Column("age") >= 30 && Column("age") < 40).fetchCursor(db)`, a
// `joining(required:)` of the owner association for the link, `.order(Column("a"))` for the
// sorts, `select(sum(Column("a")), average(Column("a")))`), with the same index; the
// swift_speedup of the targets.
//
// impl=grdb-sql: GRDB running the same query in SQL with the same index (item.name),
// reading rows through a cursor of cached statements: `WHERE name = ?` (COUNT(*) and
// the first id), `WHERE age >= 30 AND age < 40`, `WHERE a > 500 AND (b = 3 OR word
// LIKE 'z%')` (SQLite's LIKE folds ASCII case, as BEGINSWITH[c] does here),
// `WHERE word LIKE '%ab%'`, a JOIN on the owner for the link, `ORDER BY a` / `ORDER BY
// word`, and `SELECT SUM(a), AVG(a)`. Same configuration as the other GRDB workloads
// (DatabaseQueue, rollback journal, synchronous=FULL).
//
// How it measures: each line is the best of `QueryData.rounds` x `QueryData.readRepeats`
// runs of the whole workload, timed with a monotonic clock. In each round every
// implementation runs its repeats back to back (swift, then grdb-record, then grdb-sql),
// each measured the same way: a run finds the CPU caches as its own implementation's
// previous run left them, not emptied by another implementation's (which made Larder's
// scans, whose rows fit in the cache, look slower than they are). The rounds take turns,
// so that a busy spell of a shared machine (the raw LMDB loop moved between 24 and 55 ns a
// row from run to run in session 26) falls on every implementation alike, not on
// whichever ran through it.
import Foundation
import GRDB
import Larder

enum QueryWorkload: String, CaseIterable {
    case indexedEq = "query-indexed-eq"
    case range = "query-range"
    case compound = "query-compound"
    case contains = "query-contains"
    case link = "query-link"
    case sortInt = "query-sort-int"
    case sortString = "query-sort-string"
    case sum = "query-sum"

    /// The filter's text in Larder's query language (the filters only).
    var filterText: String? {
        switch self {
        case .range: return "age >= 30 AND age < 40"
        case .compound: return "a > 500 AND (b == 3 OR word BEGINSWITH[c] \"z\")"
        case .contains: return "word CONTAINS[c] \"ab\""
        case .link: return "owner.age > 50"
        default: return nil
        }
    }

    var sqlWhere: String? {
        switch self {
        case .range: return "SELECT a FROM item WHERE age >= 30 AND age < 40"
        case .compound: return "SELECT a FROM item WHERE a > 500 AND (b = 3 OR word LIKE 'z%')"
        case .contains: return "SELECT a FROM item WHERE word LIKE '%ab%'"
        case .link: return "SELECT item.a FROM item JOIN owner ON owner.id = item.ownerId WHERE owner.age > 50"
        default: return nil
        }
    }

    /// What ns_per_op divides by: probes for the indexed equality, items otherwise.
    var operations: Int { self == .indexedEq ? QueryData.probes : QueryData.count }
}

final class QueryOwner: Object {
    @Persisted var age = 0
}

final class QueryItem: Object {
    @Persisted var n = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var a = 0
    @Persisted var b = 0
    @Persisted var word = ""
    @Persisted var owner: QueryOwner?
}

/// bench_query.c's data, bit for bit, and what each workload must find.
enum QueryData {
    static let count = 200_000
    static let names = 20_000
    static let owners = 1_000
    static let probes = 2_000
    static let readRepeats = 3
    static let rounds = 3

    struct Item {
        var age, a, b, owner: Int
        var name, word: String
    }

    static func ownerAge(_ j: Int) -> Int { (j &* 37) % 100 }

    static func item(_ i: Int) -> Item {
        let u = UInt64(i)
        var h = u &* 0x9E37_79B9_7F4A_7C15
        var letters = [UInt8]()
        for _ in 0..<8 {
            h ^= h >> 29
            h = h &* 0xBF58_476D_1CE4_E5B9
            letters.append(UInt8(ascii: "a") + UInt8((h >> 40) % 26))
        }
        return Item(age: Int((u &* 7919) % 100), a: Int((u &* 104_729) % 1000), b: Int((u &* 31) % 10),
                    owner: i % owners + 1, name: name(i % names),
                    word: String(decoding: letters, as: UTF8.self))
    }

    static func name(_ k: Int) -> String {
        let digits = String(k)
        return "item-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    static func probeName(_ p: Int) -> String { name((p &* 7) % names) }

    static let all: [Item] = (1...count).map(item)
    static let probeNames: [String] = (0..<probes).map(probeName)

    static func matches(_ workload: QueryWorkload, _ it: Item) -> Bool {
        switch workload {
        case .range: return it.age >= 30 && it.age < 40
        case .compound: return it.a > 500 && (it.b == 3 || it.word.hasPrefix("z"))
        case .contains: return it.word.contains("ab")
        case .link: return ownerAge(it.owner) > 50
        default: return false
        }
    }

    /// The tally each workload must produce.
    static let expected: [QueryWorkload: Tally] = {
        var result: [QueryWorkload: Tally] = [:]
        for workload in QueryWorkload.allCases where workload.filterText != nil {
            var tally = Tally()
            for it in all where matches(workload, it) {
                tally.objects += 1
                tally.sum += it.a
            }
            result[workload] = tally
        }
        var eq = Tally()
        for p in 0..<probes {
            let k = (p &* 7) % names
            eq.objects += count / names
            eq.sum += k == 0 ? names : k
        }
        result[.indexedEq] = eq
        result[.sortInt] = Tally(objects: count, sum: checksum(all.map { UInt64($0.a) }.sorted()))
        result[.sortString] = Tally(objects: count, sum: checksum(all.map { wordBits($0.word) }.sorted()))
        result[.sum] = Tally(objects: count, sum: all.reduce(0) { $0 + $1.a })
        return result
    }()

    /// bench_query.c's order-dependent checksum, as an Int (bit pattern).
    static func checksum<S: Sequence>(_ values: S) -> Int where S.Element == UInt64 {
        var sum: UInt64 = 0
        for value in values { sum = (sum ^ value) &* 0x1_0000_01B3 &+ 1 }
        return Int(bitPattern: UInt(sum))
    }

    static func wordBits(_ word: String) -> UInt64 {
        var v: UInt64 = 0
        var bytes = word.utf8.makeIterator()
        for _ in 0..<8 { v = v << 8 | UInt64(bytes.next() ?? 0) }
        return v
    }
}

enum QueryBench {
    private static func verify(_ impl: String, _ workload: QueryWorkload, _ got: Tally) {
        let want = QueryData.expected[workload]!
        if got == want { return }
        checksFailed = true
        FileHandle.standardError.write(Data(
            ("LarderBench: CHECK FAILED: impl=\(impl) workload=\(workload.rawValue): got \(got.objects), " +
             "\(got.sum); expected \(want.objects), \(want.sum)\n").utf8))
    }

    // MARK: Larder

    private static func larderRealm(_ directory: String) throws -> Realm {
        let path = "\(directory)/swift-query.larder"
        try removeFileIfPresent(path)
        try removeFileIfPresent(path + "-lock")
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                 objectTypes: [QueryItem.self, QueryOwner.self]))
        try realm.write {
            let owners = (1...QueryData.owners).map { j -> QueryOwner in
                let owner = QueryOwner()
                owner.age = QueryData.ownerAge(j)
                realm.add(owner)
                return owner
            }
            for (index, it) in QueryData.all.enumerated() {
                let item = QueryItem()
                item.n = index + 1
                item.name = it.name
                item.age = it.age
                item.a = it.a
                item.b = it.b
                item.word = it.word
                item.owner = owners[it.owner - 1]
                realm.add(item)
            }
        }
        return realm
    }

    private static func larderRun(_ realm: Realm, _ workload: QueryWorkload) -> Tally {
        let items = realm.objects(QueryItem.self)
        var tally = Tally()
        switch workload {
        case .indexedEq:
            for name in QueryData.probeNames {
                let matches = items.where { $0.name == name }
                tally.objects += matches.count
                tally.sum += matches.first?.n ?? 0
            }
        case .range, .compound, .contains, .link:
            for item in items.filter(workload.filterText!) {
                tally.objects += 1
                tally.sum += item.a
            }
        case .sortInt:
            var sum: UInt64 = 0
            for item in items.sorted(byKeyPath: "a") {
                tally.objects += 1
                sum = (sum ^ UInt64(item.a)) &* 0x1_0000_01B3 &+ 1
            }
            tally.sum = Int(bitPattern: UInt(sum))
        case .sortString:
            var sum: UInt64 = 0
            for item in items.sorted(byKeyPath: "word") {
                tally.objects += 1
                sum = (sum ^ QueryData.wordBits(item.word)) &* 0x1_0000_01B3 &+ 1
            }
            tally.sum = Int(bitPattern: UInt(sum))
        case .sum:
            let sum: Int = items.sum(ofProperty: "a")
            let average: Double? = items.average(ofProperty: "a")
            tally = Tally(objects: Int((Double(sum) / (average ?? 1)).rounded()), sum: sum)
        }
        return tally
    }

    // MARK: GRDB

    private static func grdbQueue(_ directory: String) throws -> DatabaseQueue {
        let path = "\(directory)/grdb-query.sqlite"
        for suffix in ["", "-journal", "-wal", "-shm"] { try removeFileIfPresent(path + suffix) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE owner (id INTEGER PRIMARY KEY, age INTEGER NOT NULL);
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL,
                    a INTEGER NOT NULL, b INTEGER NOT NULL, word TEXT NOT NULL,
                    ownerId INTEGER NOT NULL REFERENCES owner(id));
                CREATE INDEX item_name ON item(name);
                """)
            for j in 1...QueryData.owners {
                try db.execute(sql: "INSERT INTO owner (id, age) VALUES (?, ?)", arguments: [j, QueryData.ownerAge(j)])
            }
            let insert = try db.cachedStatement(sql: """
                INSERT INTO item (id, name, age, a, b, word, ownerId) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for (index, it) in QueryData.all.enumerated() {
                try insert.execute(arguments: [index + 1, it.name, it.age, it.a, it.b, it.word, it.owner])
            }
        }
        return queue
    }

    private static func grdbRun(_ db: Database, _ workload: QueryWorkload) throws -> Tally {
        var tally = Tally()
        switch workload {
        case .indexedEq:
            let count = try db.cachedStatement(sql: "SELECT COUNT(*) FROM item WHERE name = ?")
            let first = try db.cachedStatement(sql: "SELECT id FROM item WHERE name = ? ORDER BY id LIMIT 1")
            for name in QueryData.probeNames {
                tally.objects += try Int.fetchOne(count, arguments: [name]) ?? 0
                tally.sum += try Int.fetchOne(first, arguments: [name]) ?? 0
            }
        case .range, .compound, .contains, .link:
            let rows = try Row.fetchCursor(db.cachedStatement(sql: workload.sqlWhere!))
            while let row = try rows.next() {
                tally.objects += 1
                tally.sum += row[0] as Int
            }
        case .sortInt, .sortString:
            let byWord = workload == .sortString
            let rows = try Row.fetchCursor(db.cachedStatement(
                sql: byWord ? "SELECT word FROM item ORDER BY word" : "SELECT a FROM item ORDER BY a"))
            var sum: UInt64 = 0
            while let row = try rows.next() {
                tally.objects += 1
                let value = byWord ? QueryData.wordBits(row[0] as String) : UInt64(row[0] as Int)
                sum = (sum ^ value) &* 0x1_0000_01B3 &+ 1
            }
            tally.sum = Int(bitPattern: UInt(sum))
        case .sum:
            let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT SUM(a), AVG(a) FROM item"))!
            let sum: Int = row[0], average: Double = row[1]
            tally = Tally(objects: Int((Double(sum) / average).rounded()), sum: sum)
        }
        return tally
    }

    private static func grdbRecordRun(_ db: Database, _ workload: QueryWorkload) throws -> Tally {
        var tally = Tally()
        let items = QueryItemRecord.all()
        switch workload {
        case .indexedEq:
            for name in QueryData.probeNames {
                let matches = items.filter(Column("name") == name)
                tally.objects += try matches.fetchCount(db)
                tally.sum += try matches.order(Column("id")).fetchOne(db)?.id ?? 0
            }
        case .range, .compound, .contains, .link:
            let request: QueryInterfaceRequest<QueryItemRecord>
            switch workload {
            case .range: request = items.filter(Column("age") >= 30 && Column("age") < 40)
            case .compound: request = items.filter(Column("a") > 500 && (Column("b") == 3 || Column("word").like("z%")))
            case .contains: request = items.filter(Column("word").like("%ab%"))
            default: request = items.joining(required: QueryItemRecord.owner.filter(Column("age") > 50))
            }
            let records = try request.fetchCursor(db)
            while let item = try records.next() {
                tally.objects += 1
                tally.sum += item.a
            }
        case .sortInt, .sortString:
            let byWord = workload == .sortString
            let records = try items.order(Column(byWord ? "word" : "a")).fetchCursor(db)
            var sum: UInt64 = 0
            while let item = try records.next() {
                tally.objects += 1
                sum = (sum ^ (byWord ? QueryData.wordBits(item.word) : UInt64(item.a))) &* 0x1_0000_01B3 &+ 1
            }
            tally.sum = Int(bitPattern: UInt(sum))
        case .sum:
            let row = try items.select(sum(Column("a")), average(Column("a"))).asRequest(of: Row.self).fetchOne(db)!
            let total: Int = row[0], mean: Double = row[1]
            tally = Tally(objects: Int((Double(total) / mean).rounded()), sum: total)
        }
        return tally
    }

    // MARK: The run

    /// Best ns per operation of each workload, by implementation (swift, grdb-record, grdb-sql).
    static func measure(directory: String) throws -> [String: [QueryWorkload: Double]] {
        let realm = try larderRealm(directory)
        let queue = try grdbQueue(directory)
        var best: [String: [QueryWorkload: Double]] = [:]
        func time(_ impl: String, _ workload: QueryWorkload, _ body: () throws -> Tally) rethrows {
            var tally = Tally()
            let ns = try nanoseconds { tally = try body() }
            verify(impl, workload, tally)
            best[impl, default: [:]][workload] = min(best[impl]?[workload] ?? .infinity, ns / Double(workload.operations))
        }
        // Within a round each implementation's repeats run back to back (taking turns run by
        // run, every run began with the caches the other implementations had just filled);
        // the rounds take turns (see the top of this file).
        for workload in QueryWorkload.allCases {
            for _ in 0..<QueryData.rounds {
                for _ in 0..<QueryData.readRepeats { time("swift", workload) { larderRun(realm, workload) } }
                for _ in 0..<QueryData.readRepeats {
                    try time("grdb-record", workload) { try queue.read { try grdbRecordRun($0, workload) } }
                }
                for _ in 0..<QueryData.readRepeats {
                    try time("grdb-sql", workload) { try queue.read { try grdbRun($0, workload) } }
                }
            }
        }
        try queue.close()
        return best
    }
}

func runQueries(directory: String) throws {
    let reference = try loadCResultTable("\(directory)/c-results.txt", workloads: QueryWorkload.allCases.map(\.rawValue)) {
        QueryWorkload(rawValue: $0)!.operations
    }
    _ = QueryData.expected // computed before any clock starts
    FileHandle.standardError.write(Data("LarderBench: query workloads, best of \(QueryData.rounds) rounds of \(QueryData.readRepeats)\n".utf8))
    let best = try QueryBench.measure(directory: directory)
    for workload in QueryWorkload.allCases {
        let ref = reference[workload.rawValue]!, n = workload.operations
        let raw = ref["raw-lmdb"]!, cAPI = ref["c-api"]!, swiftNs = best["swift"]![workload]!
        for impl in ["swift", "grdb-record", "grdb-sql"] {
            let ns = best[impl]![workload]!
            var line = "BENCH workload=\(workload.rawValue) impl=\(impl) n=\(n) ns_per_op=\(fixed(ns, 1))" +
                " vs_raw=\(fixed(ns / raw, 2)) vs_c_api=\(fixed(ns / cAPI, 2))"
            if impl != "swift" { line += " swift_speedup=\(fixed(ns / swiftNs, 2))" }
            print(line)
        }
        fflush(stdout)
    }
}

struct QueryOwnerRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "owner"
    var id: Int
    var age: Int
}

struct QueryItemRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "item"
    static let owner = belongsTo(QueryOwnerRecord.self, using: ForeignKey(["ownerId"]))
    var id: Int
    var name: String
    var age: Int
    var a: Int
    var b: Int
    var word: String
    var ownerId: Int
}
