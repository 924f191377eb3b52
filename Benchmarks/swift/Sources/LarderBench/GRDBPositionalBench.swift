// impl=grdb-positional: GRDB at its fastest: cached prepared statements, unchecked
// arguments and rows read by column index, no record type or decoding.
// Same file setup as grdb-record (GRDBFile in GRDBRecordBench.swift).
import GRDB

final class GRDBPositionalBench: Implementation {
    let name = "grdb-positional"
    private let database: GRDBFile

    init(directory: String) {
        database = GRDBFile(path: "\(directory)/grdb-positional.sqlite")
    }

    func openFreshDatabase() throws { try database.openFresh() }

    func insertAll() throws {
        try database.queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?,?)")
            for id in Workload.ids {
                let v = { Workload.value(id: id, property: $0) }
                insert.setUncheckedArguments([id, v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8), v(9)])
                try insert.execute()
            }
        }
    }

    func scan() throws -> Tally {
        try database.queue.read { db in
            var tally = Tally()
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM t")
            while let row = try rows.next() {
                // Column 0 is id; 1...10 are v0...v9.
                tally.objects += 1
                var sum = 0
                for column in 1...Workload.propertyCount { sum &+= row[column] as Int }
                tally.sum &+= sum
            }
            return tally
        }
    }

    func lookUp(_ order: [Int]) throws -> Tally {
        try database.queue.read { db in
            var tally = Tally()
            let select = try db.cachedStatement(sql: "SELECT * FROM t WHERE id = ?")
            for id in order {
                select.setUncheckedArguments([id])
                // The cursor's row reads the statement in place (Row.fetchOne would copy
                // it), so the cursor must outlive the read.
                let rows = try Row.fetchCursor(select)
                try withExtendedLifetime(rows) {
                    guard let row = try rows.next() else { return }
                    tally.objects += 1
                    tally.sum &+= row[1 + Workload.lookupProperty] as Int  // column 4: v3
                }
            }
            return tally
        }
    }

    func close() throws { try database.close() }
}
