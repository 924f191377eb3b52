// LarderBench <dir>: Larder's Swift API against GRDB, three workloads (see
// Workload.swift), then the collection workloads (CollectionBench.swift), the mixed-value
// ones (MixedBench.swift), the embedded-object ones (EmbeddedBench.swift), the query
// ones (QueryBench.swift) and the notification ones (NotifyBench.swift, Swift only), compared with the raw-LMDB and C-API numbers that bench_c
// wrote to <dir>/c-results.txt. Section names after <dir> run only those sections.
//
// Each measurement is the best of `repeats` runs, timed with a monotonic clock;
// implementations take turns within each repetition, and every insert run starts
// from a fresh file. The last insert's file is the one the reads use. Prints one
// BENCH line per workload and implementation and a SUMMARY line. Exits 1 when a
// check fails or anything throws (a missing c-results.txt included), 2 on bad usage.
import Foundation

let repeats = 3

enum Kind: String, CaseIterable {
    case insert, scan, lookup
}

// MARK: The C benchmark's numbers

/// ns_per_op of raw-lmdb and c-api for one workload, and of raw-lmdb-direct (lookup's
/// one-probe floor: the row keyed by the id itself) where there is one.
struct CReference {
    var raw: Double
    var cAPI: Double
    var direct: Double?
}

/// Reads lines such as `BENCH workload=insert impl=raw-lmdb n=200000 ns_per_op=474.2 vs_raw=1.00`.
func loadCResults(_ path: String) throws -> [Kind: CReference] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw BenchError("cannot read \(path): run bench_c first")
    }
    var raw: [Kind: Double] = [:], cAPI: [Kind: Double] = [:], direct: [Kind: Double] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("BENCH ") {
        var fields: [Substring: Substring] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            fields[pair[..<equals]] = pair[pair.index(after: equals)...]
        }
        guard let kind = fields["workload"].flatMap({ Kind(rawValue: String($0)) }),
              let nsPerOp = fields["ns_per_op"].flatMap({ Double($0) }) else { continue }
        if let n = fields["n"], Int(n) != Workload.count {
            throw BenchError("\(path): n=\(n), but this benchmark uses n=\(Workload.count)")
        }
        switch fields["impl"] {
        case "raw-lmdb": raw[kind] = nsPerOp
        case "c-api": cAPI[kind] = nsPerOp
        case "raw-lmdb-direct" where nsPerOp > 0: direct[kind] = nsPerOp
        default: break
        }
    }
    var reference: [Kind: CReference] = [:]
    for kind in Kind.allCases {
        guard let r = raw[kind], let c = cAPI[kind], r > 0, c > 0 else {
            throw BenchError("\(path) has no raw-lmdb and c-api lines for workload=\(kind.rawValue)")
        }
        reference[kind] = CReference(raw: r, cAPI: c, direct: direct[kind])
    }
    return reference
}

/// Every BENCH line of c-results.txt for the given workloads: ns_per_op by workload and
/// impl. Throws when a workload lacks its raw-lmdb or c-api line, or a line's n is not
/// expectedN(workload). The workload families (collections, mixed, embedded, queries) read it.
func loadCResultTable(_ path: String, workloads: [String], expectedN: (String) -> Int) throws -> [String: [String: Double]] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw BenchError("cannot read \(path): run bench_c first")
    }
    var table: [String: [String: Double]] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("BENCH ") {
        var fields: [Substring: Substring] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            fields[pair[..<equals]] = pair[pair.index(after: equals)...]
        }
        guard let workload = fields["workload"].map(String.init), workloads.contains(workload),
              let impl = fields["impl"], let ns = fields["ns_per_op"].flatMap({ Double($0) }), ns > 0 else { continue }
        if let n = fields["n"], Int(n) != expectedN(workload) {
            throw BenchError("\(path): workload=\(workload) n=\(n), but this benchmark uses n=\(expectedN(workload))")
        }
        table[workload, default: [:]][String(impl)] = ns
    }
    for workload in workloads where table[workload]?["raw-lmdb"] == nil || table[workload]?["c-api"] == nil {
        throw BenchError("\(path) has no raw-lmdb and c-api lines for workload=\(workload)")
    }
    return table
}

// MARK: Timing and checks

func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = start.duration(to: clock.now).components
    return Double(elapsed.seconds) * 1e9 + Double(elapsed.attoseconds) / 1e9
}

var checksFailed = false

func check(_ impl: Implementation, _ kind: Kind, _ got: Tally, expectedSum: Int) {
    let want = Tally(objects: Workload.count, sum: expectedSum)
    if got == want { return }
    checksFailed = true
    FileHandle.standardError.write(Data(
        ("LarderBench: CHECK FAILED: impl=\(impl.name) workload=\(kind.rawValue): visited \(got.objects) objects, " +
         "sum \(got.sum); expected \(want.objects), \(want.sum)\n").utf8))
}

// MARK: Reporting

/// Best total nanoseconds, by implementation name and workload.
var best: [String: [Kind: Double]] = [:]

func record(_ impl: Implementation, _ kind: Kind, _ ns: Double) {
    best[impl.name, default: [:]][kind] = min(best[impl.name]?[kind] ?? .infinity, ns)
}

func perOp(_ name: String, _ kind: Kind) -> Double { best[name]![kind]! / Double(Workload.count) }

func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

/// One BENCH line per implementation. vs_raw and vs_c_api are this ns / theirs;
/// swift_speedup (GRDB lines) is this ns / swift's: how many times faster swift is.
func report(_ kind: Kind, _ impls: [Implementation], _ reference: CReference) {
    let swift = perOp("swift", kind)
    for impl in impls {
        let ns = perOp(impl.name, kind)
        var line = "BENCH workload=\(kind.rawValue) impl=\(impl.name) n=\(Workload.count) ns_per_op=\(fixed(ns, 1))" +
            " vs_raw=\(fixed(ns / reference.raw, 2)) vs_c_api=\(fixed(ns / reference.cAPI, 2))"
        if let direct = reference.direct { line += " vs_direct=\(fixed(ns / direct, 2))" }
        if impl.name != "swift" { line += " swift_speedup=\(fixed(ns / swift, 2))" }
        print(line)
    }
    fflush(stdout)
}

// MARK: The run

func run(directory: String) throws {
    let reference = try loadCResults("\(directory)/c-results.txt")
    let impls: [Implementation] = [
        SwiftBench(directory: directory),
        GRDBRecordBench(directory: directory),
        GRDBPositionalBench(directory: directory),
    ]
    // Computed before any clock starts.
    let order = Workload.shuffledIDs
    let scanSum = Workload.expectedScanSum, lookupSum = Workload.expectedLookupSum
    FileHandle.standardError.write(Data(
        "LarderBench: n=\(Workload.count), best of \(repeats), files in \(directory)\n".utf8))

    for _ in 0..<repeats {
        for impl in impls {
            try impl.openFreshDatabase()
            record(impl, .insert, try nanoseconds { try impl.insertAll() })
        }
    }
    report(.insert, impls, reference[.insert]!)

    for _ in 0..<repeats {
        for impl in impls {
            var tally = Tally()
            record(impl, .scan, try nanoseconds { tally = try impl.scan() })
            check(impl, .scan, tally, expectedSum: scanSum)
        }
    }
    report(.scan, impls, reference[.scan]!)

    for _ in 0..<repeats {
        for impl in impls {
            var tally = Tally()
            record(impl, .lookup, try nanoseconds { tally = try impl.lookUp(order) })
            check(impl, .lookup, tally, expectedSum: lookupSum)
        }
    }
    report(.lookup, impls, reference[.lookup]!)

    for impl in impls { try impl.close() }

    // The worst of swift against the C API, and the least swift wins by over grdb-record.
    let worstVsCAPI = Kind.allCases.map { perOp("swift", $0) / reference[$0]!.cAPI }.max()!
    let minSpeedup = Kind.allCases.map { perOp("grdb-record", $0) / perOp("swift", $0) }.min()!
    print("SUMMARY swift_vs_c_api_worst=\(fixed(worstVsCAPI, 2)) " +
          "swift_vs_grdb_record_min_speedup=\(fixed(minSpeedup, 2))")
}

let arguments = CommandLine.arguments
let sections: [(name: String, run: (String) throws -> Void)] = [
    ("objects", run), ("collections", runCollections), ("mixed", runMixed), ("embedded", runEmbedded),
    ("queries", runQueries), ("changes", { _ in }), ("changes-sorted", NotifyBench.runChangesetSorted),
    ("notify", NotifyBench.run),
]
// Section changes is bench_c's alone (the C change sets); the Swift ones are in notify.
// Section changes-sorted: the sorted result's change sets, C and Swift (make bench BENCH_ONLY=changes-sorted).
// The writer process of the notify section's swift-process latency (NotifyBench.swift).
if arguments.count == 3 && arguments[1] == "--notify-writer" {
    do { try NotifyBench.runWriter(path: arguments[2]) } catch {
        FileHandle.standardError.write(Data("LarderBench: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard arguments.count >= 2, arguments.dropFirst(2).allSatisfy({ name in sections.contains { $0.name == name } }) else {
    FileHandle.standardError.write(Data(("usage: LarderBench <dir> [section...]   (<dir>/c-results.txt from bench_c; " +
        "sections: \(sections.map(\.name).joined(separator: " ")), all by default)\n").utf8))
    exit(2)
}
do {
    let chosen = Set(arguments.dropFirst(2))
    for section in sections where chosen.isEmpty || chosen.contains(section.name) { try section.run(arguments[1]) }
} catch {
    FileHandle.standardError.write(Data("LarderBench: \(error)\n".utf8))
    exit(1)
}
if checksFailed { exit(1) }
