// impl=grdb-record: GRDB as its documentation teaches it, a Codable record type
// with the query interface.
//
// Both GRDB implementations use a DatabaseQueue with GRDB's default
// configuration: SQLite's default rollback journal (journal_mode=DELETE, not
// WAL) and synchronous=FULL, so a commit is durable like Larder's.
import GRDB

struct BenchRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "t"

    var id: Int
    var v0: Int, v1: Int, v2: Int, v3: Int, v4: Int
    var v5: Int, v6: Int, v7: Int, v8: Int, v9: Int

    init(id: Int) {
        self.id = id
        v0 = Workload.value(id: id, property: 0)
        v1 = Workload.value(id: id, property: 1)
        v2 = Workload.value(id: id, property: 2)
        v3 = Workload.value(id: id, property: 3)
        v4 = Workload.value(id: id, property: 4)
        v5 = Workload.value(id: id, property: 5)
        v6 = Workload.value(id: id, property: 6)
        v7 = Workload.value(id: id, property: 7)
        v8 = Workload.value(id: id, property: 8)
        v9 = Workload.value(id: id, property: 9)
    }
}

final class GRDBRecordBench: Implementation {
    let name = "grdb-record"
    private let database: GRDBFile

    init(directory: String) {
        database = GRDBFile(path: "\(directory)/grdb-record.sqlite")
    }

    func openFreshDatabase() throws { try database.openFresh() }

    func insertAll() throws {
        try database.queue.write { db in
            for id in Workload.ids {
                try BenchRecord(id: id).insert(db)
            }
        }
    }

    func scan() throws -> Tally {
        try database.queue.read { db in
            var tally = Tally()
            let records = try BenchRecord.fetchCursor(db)
            while let r = try records.next() {
                tally.objects += 1
                tally.sum &+= r.v0 &+ r.v1 &+ r.v2 &+ r.v3 &+ r.v4 &+ r.v5 &+ r.v6 &+ r.v7 &+ r.v8 &+ r.v9
            }
            return tally
        }
    }

    /// `fetchOne(db, key:)` generates its SQL and prepares a new statement on every
    /// call (GRDB caches no query-interface statements): that is most of its cost.
    func lookUp(_ order: [Int]) throws -> Tally {
        try database.queue.read { db in
            var tally = Tally()
            for id in order {
                guard let record = try BenchRecord.fetchOne(db, key: id) else { continue }
                tally.objects += 1
                tally.sum &+= record.v3
            }
            return tally
        }
    }

    func close() throws { try database.close() }
}

/// The SQLite file of one GRDB implementation, with the table both use:
/// `t(id INTEGER PRIMARY KEY, v0..v9 INTEGER NOT NULL)`.
final class GRDBFile {
    let path: String
    private var openQueue: DatabaseQueue?

    init(path: String) { self.path = path }

    var queue: DatabaseQueue {
        guard let openQueue else { fatalError("\(path) is not open") }
        return openQueue
    }

    /// Closes the queue, removes the file and its journals, and creates the table anew.
    func openFresh() throws {
        try close()
        for suffix in ["", "-journal", "-wal", "-shm"] { try removeFileIfPresent(path + suffix) }
        let queue = try DatabaseQueue(path: path)  // default Configuration: see the top of this file
        let columns = (0..<Workload.propertyCount).map { "v\($0) INTEGER NOT NULL" }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")))")
        }
        openQueue = queue
    }

    func close() throws {
        try openQueue?.close()
        openQueue = nil
    }
}
