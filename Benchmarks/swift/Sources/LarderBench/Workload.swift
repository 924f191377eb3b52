// The data every implementation stores and the answers every check expects.
// It matches Benchmarks/c/bench.c and bench.h, so the numbers compare.

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

enum Workload {
    /// Objects per run: ids 1...count, as in the C benchmark.
    static let count = 200_000
    /// Properties v0..v9 beside the primary key `id`.
    static let propertyCount = 10
    /// The property each lookup reads: v3.
    static let lookupProperty = 3
    /// The C benchmark's LOOKUP_SEED, so every implementation looks keys up in one order.
    static let lookupSeed: UInt64 = 0x1A2DE2

    static let ids = 1...count

    /// v_j of the object with this id.
    @inline(__always)
    static func value(id: Int, property j: Int) -> Int { id &* 10 &+ j }

    /// The sum of v0..v9 over every object.
    static let expectedScanSum: Int = ids.reduce(0) { sum, id in
        (0..<propertyCount).reduce(sum) { $0 &+ value(id: id, property: $1) }
    }

    /// The sum of v3 over every object.
    static let expectedLookupSum: Int = ids.reduce(0) { $0 &+ value(id: $1, property: lookupProperty) }

    /// Every id once, in the order the lookup workload asks for them (bench_shuffle in bench.h).
    static let shuffledIDs: [Int] = {
        var order = Array(ids)
        var rng = XorShift64Star(seed: lookupSeed)
        rng.shuffle(&order)
        return order
    }()
}

/// What one pass of a read workload saw: how many objects and the sum of what it read.
struct Tally: Equatable {
    var objects = 0
    var sum = 0
}

/// xorshift64*, bit for bit as in Benchmarks/c/bench.h.
struct XorShift64Star {
    private var state: UInt64

    init(seed: UInt64) { state = seed != 0 ? seed : 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        var x = state
        x ^= x >> 12
        x ^= x << 25
        x ^= x >> 27
        state = x
        return x &* 0x2545_F491_4F6C_DD1D
    }

    /// A uniform integer in 0..<bound, bound > 0 (rejection sampling: no modulo bias).
    mutating func below(_ bound: UInt64) -> UInt64 {
        let limit = UInt64.max - UInt64.max % bound
        var x = next()
        while x >= limit { x = next() }
        return x % bound
    }

    /// Fisher–Yates, walking down from the end like bench_shuffle.
    mutating func shuffle(_ items: inout [Int]) {
        var i = items.count
        while i > 1 {
            let j = Int(below(UInt64(i)))
            items.swapAt(i - 1, j)
            i -= 1
        }
    }
}

/// Removes a file if it is there; any other failure is fatal to the run.
func removeFileIfPresent(_ path: String) throws {
    if unlink(path) != 0 && errno != ENOENT {
        throw BenchError("cannot remove \(path): \(String(cString: strerror(errno)))")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One way of storing the workload's objects. The runner times only insertAll,
/// scan and lookUp; opening a fresh database (removing old files, creating the
/// schema) happens outside the clock.
protocol Implementation: AnyObject {
    /// The impl= name in the output.
    var name: String { get }
    /// Closes any open database and opens an empty one in a new file.
    func openFreshDatabase() throws
    /// Inserts every object in one write transaction, its commit included.
    func insertAll() throws
    /// Visits every object, reading and summing v0..v9.
    func scan() throws -> Tally
    /// Looks each id of order up by primary key, reading and summing v3.
    func lookUp(_ order: [Int]) throws -> Tally
    /// Closes the database.
    func close() throws
}
