// The embedded-object workloads (issue #12 point 8), as Benchmarks/c/bench_embedded.c
// makes them: 200,000 people, each with a name and an address of 4 strings.
//
//   embedded-insert  `realm.add(person)` with `person.address = Address(...)`, in one
//                    write, commit included;
//   embedded-scan    `for person in realm.objects(EmbeddedPerson.self)`, reading the name
//                    and the address's 4 strings (summing their UTF-8 lengths).
//
// Lines: swift (the embedded model; vs_plain against swift-plain, the same strings as
// plain properties of the person), swift-plain, and grdb-record: GRDB's natural
// equivalent, a child table `address` (personId REFERENCES person ON DELETE CASCADE),
// inserted as records and scanned with a join. vs_raw and vs_c_api are against the C
// benchmark's raw-lmdb and c-api lines; swift_speedup (GRDB) is GRDB's ns / swift's.
import Foundation
import GRDB
import Larder

final class BenchAddress: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

final class EmbeddedPerson: Object {
    @Persisted var name = ""
    @Persisted var address: BenchAddress?
}

final class PlainPerson: Object {
    @Persisted var name = ""
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

enum EmbeddedData {
    static let count = 200_000

    /// Person i's name, street, city, country and postal code, as person_text_of in bench_embedded.c.
    static func text(_ i: Int) -> [String] {
        ["Person \(i)", "\(i % 9973) Main Street", "City \(i % 503)", "Country \(i % 50)",
         String(repeating: "0", count: max(0, 5 - String(i % 100_000).count)) + String(i % 100_000)]
    }

    static let all: [[String]] = (1...count).map(text)
    static let expected = Tally(objects: count, sum: all.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count } })
}

enum EmbeddedWorkload: String, CaseIterable {
    case insert = "embedded-insert"
    case scan = "embedded-scan"
}

enum EmbeddedBench {
    static let rounds = 2
    private static var runs = 0

    private static func freshRealm(_ directory: String, _ kind: String, _ types: [Object.Type]) throws -> Realm {
        runs += 1
        let path = "\(directory)/swift-embedded-\(kind)-\(runs).larder"
        try removeFileIfPresent(path)
        try removeFileIfPresent(path + "-lock")
        return try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types))
    }

    private static func verify(_ impl: String, _ workload: EmbeddedWorkload, _ got: Tally) {
        if got == EmbeddedData.expected { return }
        checksFailed = true
        FileHandle.standardError.write(Data(
            ("LarderBench: CHECK FAILED: impl=\(impl) workload=\(workload.rawValue): visited \(got.objects), sum " +
             "\(got.sum); expected \(EmbeddedData.expected.objects), \(EmbeddedData.expected.sum)\n").utf8))
    }

    /// Best insert and scan ns of the embedded model (plain false) or the plain one.
    static func swift(directory: String, plain: Bool) throws -> (insert: Double, scan: Double) {
        var bestInsert = Double.infinity, bestScan = Double.infinity
        var realm: Realm?
        for _ in 0..<CollectionSizes.writeRepeats {
            realm = nil
            let fresh = try freshRealm(directory, plain ? "plain" : "embedded",
                                       plain ? [PlainPerson.self] : [EmbeddedPerson.self, BenchAddress.self])
            bestInsert = min(bestInsert, try nanoseconds {
                try fresh.write {
                    for t in EmbeddedData.all {
                        if plain {
                            let person = PlainPerson()
                            person.name = t[0]
                            person.street = t[1]
                            person.city = t[2]
                            person.country = t[3]
                            person.postalCode = t[4]
                            fresh.add(person)
                        } else {
                            let person = EmbeddedPerson()
                            person.name = t[0]
                            let address = BenchAddress()
                            address.street = t[1]
                            address.city = t[2]
                            address.country = t[3]
                            address.postalCode = t[4]
                            person.address = address
                            fresh.add(person)
                        }
                    }
                }
            })
            realm = fresh
        }
        guard let realm else { throw BenchError("swift embedded: no file") }
        let impl = plain ? "swift-plain" : "swift"
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            bestScan = min(bestScan, nanoseconds {
                if plain {
                    for person in realm.objects(PlainPerson.self) {
                        tally.objects += 1
                        tally.sum += person.name.utf8.count + (person.street?.utf8.count ?? 0) +
                            (person.city?.utf8.count ?? 0) + (person.country?.utf8.count ?? 0) +
                            (person.postalCode?.utf8.count ?? 0)
                    }
                } else {
                    for person in realm.objects(EmbeddedPerson.self) {
                        tally.objects += 1
                        tally.sum += person.name.utf8.count
                        if let address = person.address {
                            tally.sum += (address.street?.utf8.count ?? 0) + (address.city?.utf8.count ?? 0) +
                                (address.country?.utf8.count ?? 0) + (address.postalCode?.utf8.count ?? 0)
                        }
                    }
                }
            })
            verify(impl, .scan, tally)
        }
        return (bestInsert, bestScan)
    }

    /// GRDB: person(id, name) and a child table address(personId, street, city, country, postalCode).
    static func grdb(directory: String) throws -> (insert: Double, scan: Double) {
        let path = "\(directory)/grdb-embedded.sqlite"
        var bestInsert = Double.infinity, bestScan = Double.infinity
        var queue: DatabaseQueue?
        for _ in 0..<CollectionSizes.writeRepeats {
            try queue?.close()
            for suffix in ["", "-journal", "-wal", "-shm"] { try removeFileIfPresent(path + suffix) }
            let fresh = try DatabaseQueue(path: path)
            try fresh.write { db in
                try db.execute(sql: """
                    CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE address (id INTEGER PRIMARY KEY,
                        personId INTEGER NOT NULL UNIQUE REFERENCES person(id) ON DELETE CASCADE,
                        street TEXT, city TEXT, country TEXT, postalCode TEXT);
                    """)
            }
            bestInsert = min(bestInsert, try nanoseconds {
                try fresh.write { db in
                    for (index, t) in EmbeddedData.all.enumerated() {
                        try PersonRecord(id: index + 1, name: t[0]).insert(db)
                        try AddressRecord(personId: index + 1, street: t[1], city: t[2], country: t[3],
                                          postalCode: t[4]).insert(db)
                    }
                }
            })
            queue = fresh
        }
        guard let queue else { throw BenchError("grdb embedded: no file") }
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            bestScan = min(bestScan, try nanoseconds {
                tally = try queue.read { db in
                    var tally = Tally()
                    let rows = try Row.fetchCursor(db, sql: """
                        SELECT person.name, address.street, address.city, address.country, address.postalCode
                        FROM person JOIN address ON address.personId = person.id ORDER BY person.id
                        """)
                    while let row = try rows.next() {
                        tally.objects += 1
                        for column in 0..<5 { tally.sum += (row[column] as String?)?.utf8.count ?? 0 }
                    }
                    return tally
                }
            })
            verify("grdb-record", .scan, tally)
        }
        try queue.close()
        return (bestInsert, bestScan)
    }
}

struct PersonRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"
    var id: Int
    var name: String
}

struct AddressRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "address"
    var personId: Int
    var street: String?
    var city: String?
    var country: String?
    var postalCode: String?
}

/// raw-lmdb and c-api ns_per_op of the embedded workloads in c-results.txt.
func loadEmbeddedResults(_ path: String) throws -> [EmbeddedWorkload: CReference] {
    let table = try loadCResultTable(path, workloads: EmbeddedWorkload.allCases.map(\.rawValue)) { _ in EmbeddedData.count }
    var reference: [EmbeddedWorkload: CReference] = [:]
    for workload in EmbeddedWorkload.allCases {
        let lines = table[workload.rawValue]!
        reference[workload] = CReference(raw: lines["raw-lmdb"]!, cAPI: lines["c-api"]!)
    }
    return reference
}

func runEmbedded(directory: String) throws {
    let reference = try loadEmbeddedResults("\(directory)/c-results.txt")
    _ = EmbeddedData.all
    _ = EmbeddedData.expected
    FileHandle.standardError.write(Data(("LarderBench: embedded workloads, best of \(EmbeddedBench.rounds) rounds of " +
        "\(CollectionSizes.writeRepeats) (reads \(CollectionSizes.readRepeats))\n").utf8))
    // The rounds take turns, so that a busy spell of a shared machine falls on every
    // implementation alike (as QueryBench.swift's rounds).
    var grdb = (insert: Double.infinity, scan: Double.infinity), plain = grdb, embedded = grdb
    func keepBest(_ best: inout (insert: Double, scan: Double), _ run: (insert: Double, scan: Double)) {
        best = (min(best.insert, run.insert), min(best.scan, run.scan))
    }
    for _ in 0..<EmbeddedBench.rounds {
        keepBest(&grdb, try EmbeddedBench.grdb(directory: directory))
        keepBest(&plain, try EmbeddedBench.swift(directory: directory, plain: true))
        keepBest(&embedded, try EmbeddedBench.swift(directory: directory, plain: false))
    }
    let n = Double(EmbeddedData.count)
    for workload in EmbeddedWorkload.allCases {
        let ref = reference[workload]!
        let pick = { (pair: (insert: Double, scan: Double)) in (workload == .insert ? pair.insert : pair.scan) / n }
        let swiftNs = pick(embedded), plainNs = pick(plain), grdbNs = pick(grdb)
        print("BENCH workload=\(workload.rawValue) impl=swift n=\(EmbeddedData.count) ns_per_op=\(fixed(swiftNs, 1))" +
              " vs_raw=\(fixed(swiftNs / ref.raw, 2)) vs_c_api=\(fixed(swiftNs / ref.cAPI, 2)) vs_plain=\(fixed(swiftNs / plainNs, 2))")
        print("BENCH workload=\(workload.rawValue) impl=swift-plain n=\(EmbeddedData.count) ns_per_op=\(fixed(plainNs, 1))" +
              " vs_raw=\(fixed(plainNs / ref.raw, 2)) vs_c_api=\(fixed(plainNs / ref.cAPI, 2))")
        print("BENCH workload=\(workload.rawValue) impl=grdb-record n=\(EmbeddedData.count) ns_per_op=\(fixed(grdbNs, 1))" +
              " vs_raw=\(fixed(grdbNs / ref.raw, 2)) vs_c_api=\(fixed(grdbNs / ref.cAPI, 2)) swift_speedup=\(fixed(grdbNs / swiftNs, 2))")
        fflush(stdout)
    }
}
