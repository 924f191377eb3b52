// The collection workloads (issue #11), compared with the raw-LMDB and C-API lines
// bench_c wrote for them (Benchmarks/c/bench_collections.c describes each workload
// and the raw baselines). Run after the object workloads by main.swift.
//
// impl=grdb-record: GRDB's natural equivalent: a child table with a foreign key to
// the owner's table, Codable records, associations (hasMany, belongsTo) for reads,
// and SQL for set algebra. Same configuration as the object workloads (DatabaseQueue,
// rollback journal, synchronous=FULL, foreign keys enforced). Indexes a GRDB user
// declares are there: the owner and position (or key, or value) as a unique key, and
// an index on each link column (GRDB's belongsTo creates one; Larder's backlink index
// is the counterpart).
//
// impl=swift: Larder's Swift API (List, MutableSet, Map, `Object?` links), written
// the way a Realm Swift user writes it, doing the job of the C workload: the same
// sizes, seeds and lookup order, the same timing boundaries and the same repeats
// (`SwiftCollectionBench` below says which calls each workload makes).
import Foundation
import GRDB
import Larder

enum CollectionWorkload: String, CaseIterable {
    case listAppend = "list-append"
    case listIterate = "list-iterate"
    case listAppendAt1k = "list-append-at-1k"
    case listAppendAt1m = "list-append-at-1m"
    case linkInsert = "link-insert"
    case linkScan = "link-scan"
    case listFilter = "list-filter"
    case mapInsert = "map-insert"
    case mapLookup = "map-lookup"
    case setUnion = "set-union"
    case setIntersect = "set-intersect"

    /// Operations per measurement, as in bench_collections.c: ns_per_op divides by this.
    var n: Int {
        switch self {
        case .listAppend, .listIterate: return CollectionSizes.list
        case .listAppendAt1k, .listAppendAt1m: return CollectionSizes.appendOps
        case .linkInsert, .linkScan: return CollectionSizes.links
        case .listFilter: return CollectionSizes.filterOwners
        case .mapInsert, .mapLookup: return CollectionSizes.map
        case .setUnion, .setIntersect: return CollectionSizes.set
        }
    }
}

/// The sizes and seeds of bench_collections.c.
enum CollectionSizes {
    static let list = 1_000_000
    static let smallList = 1_000
    static let appendOps = 200
    static let links = 200_000
    static let linkList = 5
    /// list-filter: the lists of the first filterOwners objects, keeping values above filterAbove.
    static let filterOwners = 2_000
    static let filterAbove = links * 3 / 2
    static let map = 100_000
    static let set = 100_000
    static let writeRepeats = 3
    static let readRepeats = 5
    static let appendRepeats = 15
    static let linkSeed: UInt64 = 0x11A4C
    static let mapSeed: UInt64 = 0x3A95EED
}

// MARK: The Swift API

final class ListOwner: Object {
    @Persisted var values: List<Int>
}

final class LinkNode: Object {
    @Persisted var value = 0
    @Persisted var next: LinkNode?
    @Persisted var friends: List<LinkNode>
}

final class MapOwner: Object {
    @Persisted var entries: Map<String, Int>
}

final class SetOwner: Object {
    @Persisted var a: MutableSet<Int>
    @Persisted var b: MutableSet<Int>
}

/// The Swift-API lines (impl=swift). Each function runs one workload with the Swift
/// API in files under `directory` and returns the best total nanoseconds of the
/// repeats bench_collections.c makes (GRDB's too). As there, a write workload starts
/// each repeat from a fresh file (opened outside the clock) and times the whole
/// `realm.write`, commit included; the reads use the file of the last write repeat.
///
/// A Realm instance is cached per thread and file, so every run gets a file of its
/// own (swift-<kind>-<run>.larder); the previous run's file is removed when the
/// next one opens, so only the last of each kind stays, as with GRDB's files.
enum SwiftCollectionBench {
    // The file of the last write repeat, with the objects the reads start from (bench_c
    // keeps its lar_obj handles the same way).
    private static var listFile: (realm: Realm, big: ListOwner)?
    private static var linkFile: Realm?
    private static var mapFile: (realm: Realm, owner: MapOwner)?
    /// list-append-at-1m's best, measured in the same alternating repeats as list-append-at-1k.
    private static var appendAt1mBest: Double?
    private static var runs: [String: Int] = [:]

    private static func freshRealm(_ directory: String, _ kind: String, _ types: [Object.Type]) throws -> Realm {
        let run = runs[kind, default: 0]
        runs[kind] = run + 1
        func path(_ run: Int) -> String { "\(directory)/swift-\(kind)-\(run).larder" }
        for old in [run - 1, run] where old >= 0 {
            try removeFileIfPresent(path(old))
            try removeFileIfPresent(path(old) + "-lock")
        }
        return try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path(run)), objectTypes: types))
    }

    private static func verify(_ workload: CollectionWorkload, _ got: Tally, _ want: Tally) {
        if got == want { return }
        checksFailed = true
        FileHandle.standardError.write(Data(
            ("LarderBench: CHECK FAILED: impl=swift workload=\(workload.rawValue): count \(got.objects), " +
             "sum \(got.sum); expected \(want.objects), \(want.sum)\n").utf8))
    }

    // MARK: Lists

    /// Append CollectionSizes.list ints to one `List<Int>` in one write, commit included:
    /// `realm.add(owner)`, then `owner.values.append(objectsIn: 0..<n)` on the managed
    /// list, what a Realm user writes for a bulk append (Larder's `append(objectsIn:)` is
    /// one `lar_list_append` per element, as the C workload makes).
    static func listAppend(directory: String) throws -> Double {
        listFile = nil
        appendAt1mBest = nil
        var best = Double.infinity
        for _ in 0..<CollectionSizes.writeRepeats {
            listFile = nil
            let realm = try freshRealm(directory, "list", [ListOwner.self])
            var owner: ListOwner?
            best = min(best, try nanoseconds {
                try realm.write {
                    let created = ListOwner()
                    realm.add(created)
                    created.values.append(objectsIn: 0..<CollectionSizes.list)
                    owner = created
                }
            })
            listFile = (realm, owner!)
        }
        return best
    }

    private static func lists() throws -> (realm: Realm, big: ListOwner) {
        guard let listFile else { throw BenchError("swift list workloads: list-append has not run") }
        return listFile
    }

    /// Iterate that list with `for value in owner.values`, summing its elements.
    static func listIterate(directory: String) throws -> Double {
        let big = try lists().big
        var best = Double.infinity
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            best = min(best, nanoseconds {
                for value in big.values {
                    tally.objects += 1
                    tally.sum &+= value
                }
            })
            verify(.listIterate, tally, Tally(objects: CollectionSizes.list, sum: CollectionData.triangle(CollectionSizes.list)))
        }
        return best
    }

    /// appendOps single appends to a list of 1,000: `list.append(i)`, each its own call
    /// (`let list = owner.values` once per measurement), timed between `realm.beginWrite()`
    /// and `realm.cancelWrite()` (neither timed), so every pass starts at 1,000 elements.
    /// The repeats alternate with list-append-at-1m's, as in bench_collections.c.
    static func listAppendAt1k(directory: String) throws -> Double {
        let (realm, big) = try lists()
        // The list of 1,000 beside the big one, in a write of its own (not timed).
        let small = ListOwner()
        try realm.write {
            realm.add(small)
            small.values.append(objectsIn: 0..<CollectionSizes.smallList)
        }
        func appendAt(_ owner: ListOwner) -> Double {
            realm.beginWrite()
            defer { realm.cancelWrite() }
            return nanoseconds {
                let list = owner.values
                for i in 0..<CollectionSizes.appendOps { list.append(i) }
            }
        }
        var bestSmall = Double.infinity, bestBig = Double.infinity
        for _ in 0..<CollectionSizes.appendRepeats {
            bestSmall = min(bestSmall, appendAt(small))
            bestBig = min(bestBig, appendAt(big))
        }
        if small.values.count != CollectionSizes.smallList || big.values.count != CollectionSizes.list {
            checksFailed = true
            FileHandle.standardError.write(Data("LarderBench: CHECK FAILED: impl=swift list-append-at: cancelled appends stayed\n".utf8))
        }
        appendAt1mBest = bestBig
        return bestSmall
    }

    /// appendOps single appends to the list of 1,000,000, measured with list-append-at-1k's.
    static func listAppendAt1m(directory: String) throws -> Double {
        if appendAt1mBest == nil { _ = try listAppendAt1k(directory: directory) }
        defer { listFile = nil }
        guard let appendAt1mBest else { throw BenchError("swift list-append-at-1m: not measured") }
        return appendAt1mBest
    }

    // MARK: Links

    /// CollectionSizes.links objects, each with a link and a `List` of 5 links, in one write,
    /// commit included. As the C API user builds the graph: every object first
    /// (`realm.add(node)`, its link nil, its list empty), then `node.next = target` and
    /// `friends.append(target)` for each of its list (`let friends = node.friends`).
    static func linkInsert(directory: String) throws -> Double {
        let plan = CollectionData.linkPlan
        linkFile = nil
        var best = Double.infinity
        for _ in 0..<CollectionSizes.writeRepeats {
            linkFile = nil
            let realm = try freshRealm(directory, "links", [LinkNode.self])
            var nodes: [LinkNode] = []
            nodes.reserveCapacity(CollectionSizes.links)
            best = min(best, try nanoseconds {
                try realm.write {
                    for key in 1...CollectionSizes.links {
                        let node = LinkNode()
                        node.value = CollectionData.nodeValue(key)
                        realm.add(node)
                        nodes.append(node)
                    }
                    for (i, node) in nodes.enumerated() {
                        node.next = nodes[plan.next[i] - 1]
                        let friends = node.friends
                        for friend in plan.friends[i] { friends.append(nodes[friend - 1]) }
                    }
                }
            })
            linkFile = realm
        }
        return best
    }

    /// Follow every link of every object, summing the targets' value:
    /// `for node in realm.objects(LinkNode.self)`, `node.next?.value`, `for friend in node.friends`.
    static func linkScan(directory: String) throws -> Double {
        guard let realm = linkFile else { throw BenchError("swift link-scan: link-insert has not run") }
        var best = Double.infinity
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            best = min(best, nanoseconds {
                for node in realm.objects(LinkNode.self) {
                    tally.objects += 1
                    if let next = node.next { tally.sum &+= next.value }
                    for friend in node.friends { tally.sum &+= friend.value }
                }
            })
            verify(.linkScan, tally, Tally(objects: CollectionSizes.links, sum: CollectionData.linkPlan.sum))
        }
        return best
    }

    /// Filter the lists of the first objects: `node.friends.where { $0.value > x }.count`
    /// (the objects taken from `realm.objects(LinkNode.self)` before the clock starts).
    static func listFilter(directory: String) throws -> Double {
        guard let realm = linkFile else { throw BenchError("swift list-filter: link-insert has not run") }
        defer { linkFile = nil }
        let owners = Array(realm.objects(LinkNode.self).prefix(CollectionSizes.filterOwners))
        let above = CollectionSizes.filterAbove
        var best = Double.infinity
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            best = min(best, nanoseconds {
                for node in owners {
                    tally.objects += 1
                    tally.sum += node.friends.where { $0.value > above }.count
                }
            })
            verify(.listFilter, tally, CollectionData.filterExpected)
        }
        return best
    }

    // MARK: Maps

    /// A `Map<String, Int>` of CollectionSizes.map keys, in one write, commit included:
    /// `realm.add(owner)`, then `entries[key] = i` (`let entries = owner.entries`).
    static func mapInsert(directory: String) throws -> Double {
        let keys = CollectionData.mapKeys
        mapFile = nil
        var best = Double.infinity
        for _ in 0..<CollectionSizes.writeRepeats {
            mapFile = nil
            let realm = try freshRealm(directory, "map", [MapOwner.self])
            var owner: MapOwner?
            best = min(best, try nanoseconds {
                try realm.write {
                    let created = MapOwner()
                    realm.add(created)
                    let entries = created.entries
                    for (i, key) in keys.enumerated() { entries[key] = i }
                    owner = created
                }
            })
            mapFile = (realm, owner!)
        }
        return best
    }

    /// CollectionSizes.map lookups `entries[key]` in the shuffled order.
    static func mapLookup(directory: String) throws -> Double {
        guard let owner = mapFile?.owner else { throw BenchError("swift map-lookup: map-insert has not run") }
        defer { mapFile = nil }
        let keys = CollectionData.mapKeys, order = CollectionData.mapOrder
        var best = Double.infinity
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            best = min(best, nanoseconds {
                let entries = owner.entries
                for i in order {
                    guard let value = entries[keys[i]] else { continue }
                    tally.objects += 1
                    tally.sum &+= value
                }
            })
            verify(.mapLookup, tally, Tally(objects: CollectionSizes.map, sum: CollectionData.triangle(CollectionSizes.map)))
        }
        return best
    }

    // MARK: Sets

    /// a.formUnion(b) or a.formIntersection(b) on managed sets, in a write of its own,
    /// commit included, on freshly built sets (built with `insert`, outside the clock).
    private static func setOperation(_ workload: CollectionWorkload, directory: String) throws -> Double {
        let union = workload == .setUnion
        let want = CollectionData.setExpected(union: union)
        var best = Double.infinity
        for _ in 0..<CollectionSizes.writeRepeats {
            let realm = try freshRealm(directory, "set", [SetOwner.self])
            let owner = SetOwner()
            try realm.write {
                realm.add(owner)
                let a = owner.a, b = owner.b
                for i in 0..<CollectionSizes.set {
                    a.insert(CollectionData.setA(i))
                    b.insert(CollectionData.setB(i))
                }
            }
            best = min(best, try nanoseconds {
                try realm.write {
                    if union { owner.a.formUnion(owner.b) } else { owner.a.formIntersection(owner.b) }
                }
            })
            var got = Tally()
            for value in owner.a {
                got.objects += 1
                got.sum &+= value
            }
            verify(workload, got, want)
        }
        return best
    }

    /// `a.formUnion(b)` of two `MutableSet<Int>` of CollectionSizes.set elements.
    static func setUnion(directory: String) throws -> Double { try setOperation(.setUnion, directory: directory) }
    /// `a.formIntersection(b)` of the same two sets.
    static func setIntersect(directory: String) throws -> Double { try setOperation(.setIntersect, directory: directory) }

    static func run(_ workload: CollectionWorkload, directory: String) throws -> Double {
        switch workload {
        case .listAppend: return try listAppend(directory: directory)
        case .listIterate: return try listIterate(directory: directory)
        case .listAppendAt1k: return try listAppendAt1k(directory: directory)
        case .listAppendAt1m: return try listAppendAt1m(directory: directory)
        case .linkInsert: return try linkInsert(directory: directory)
        case .linkScan: return try linkScan(directory: directory)
        case .listFilter: return try listFilter(directory: directory)
        case .mapInsert: return try mapInsert(directory: directory)
        case .mapLookup: return try mapLookup(directory: directory)
        case .setUnion: return try setUnion(directory: directory)
        case .setIntersect: return try setIntersect(directory: directory)
        }
    }
}

// MARK: The data every implementation stores

enum CollectionData {
    /// Sum of 0..<n.
    static func triangle(_ n: Int) -> Int { n * (n - 1) / 2 }

    static func nodeValue(_ key: Int) -> Int { key * 3 }

    /// For object k (1...links): its link target and its list's targets, drawn as bench_collections.c draws them.
    static let linkPlan: (next: [Int], friends: [[Int]], sum: Int) = {
        var rng = XorShift64Star(seed: CollectionSizes.linkSeed)
        var next: [Int] = [], friends: [[Int]] = [], sum = 0
        next.reserveCapacity(CollectionSizes.links)
        friends.reserveCapacity(CollectionSizes.links)
        for _ in 0..<CollectionSizes.links {
            let target = 1 + Int(rng.below(UInt64(CollectionSizes.links)))
            next.append(target)
            sum += nodeValue(target)
            var list: [Int] = []
            for _ in 0..<CollectionSizes.linkList {
                let friend = 1 + Int(rng.below(UInt64(CollectionSizes.links)))
                list.append(friend)
                sum += nodeValue(friend)
            }
            friends.append(list)
        }
        return (next, friends, sum)
    }()

    /// list-filter's tally: lists filtered, and the values above filterAbove in them.
    static let filterExpected: Tally = {
        let kept = linkPlan.friends.prefix(CollectionSizes.filterOwners).reduce(0) { sum, friends in
            sum + friends.filter { nodeValue($0) > CollectionSizes.filterAbove }.count
        }
        return Tally(objects: CollectionSizes.filterOwners, sum: kept)
    }()

    static let mapKeys: [String] = (0..<CollectionSizes.map).map { "k\($0)" }

    static let mapOrder: [Int] = {
        var order = Array(0..<CollectionSizes.map)
        var rng = XorShift64Star(seed: CollectionSizes.mapSeed)
        rng.shuffle(&order)
        return order
    }()

    static func setA(_ i: Int) -> Int { 2 * i }
    static func setB(_ i: Int) -> Int { 3 * i }

    /// Count and sum of a | b (union) or a & b.
    static func setExpected(union: Bool) -> Tally {
        let a = Set((0..<CollectionSizes.set).map(setA)), b = Set((0..<CollectionSizes.set).map(setB))
        let result = union ? a.union(b) : a.intersection(b)
        return Tally(objects: result.count, sum: result.reduce(0, +))
    }
}

// MARK: GRDB records

struct ListOwnerRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "listOwner"
    static let items = hasMany(ListItemRecord.self)
    var id: Int
}

struct ListItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "listItem"
    var ownerId: Int
    var position: Int
    var value: Int
}

struct NodeRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "node"
    static let next = belongsTo(NodeRecord.self, key: "next", using: ForeignKey(["nextId"]))
    var id: Int
    var value: Int
    var nextId: Int?
}

struct NodeFriendRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "nodeFriend"
    static let friend = belongsTo(NodeRecord.self, key: "friend", using: ForeignKey(["friendId"]))
    var ownerId: Int
    var position: Int
    var friendId: Int
}

/// A node with the node its link leads to.
struct NodeWithNext: Decodable, FetchableRecord {
    var node: NodeRecord
    var next: NodeRecord
}

/// An element of a node's list with the node it leads to.
struct FriendWithTarget: Decodable, FetchableRecord {
    var nodeFriend: NodeFriendRecord
    var friend: NodeRecord
}

struct MapEntryRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mapEntry"
    var ownerId: Int
    var key: String
    var value: Int
}

struct SetElementRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "setElement"
    var ownerId: Int
    var value: Int
}

// MARK: GRDB

final class GRDBCollectionBench {
    let name = "grdb-record"
    private let directory: String
    private var queue: DatabaseQueue?

    init(directory: String) { self.directory = directory }

    private var openQueue: DatabaseQueue {
        guard let queue else { fatalError("grdb collections: no open database") }
        return queue
    }

    /// Closes any open file, then creates `<directory>/grdb-<file>.sqlite` anew with schema.
    private func openFresh(_ file: String, schema: String) throws {
        try close()
        let path = "\(directory)/grdb-\(file).sqlite"
        for suffix in ["", "-journal", "-wal", "-shm"] { try removeFileIfPresent(path + suffix) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: schema) }
        self.queue = queue
    }

    func close() throws {
        try queue?.close()
        queue = nil
    }

    private func verify(_ workload: CollectionWorkload, _ got: Tally, _ want: Tally) {
        if got == want { return }
        checksFailed = true
        FileHandle.standardError.write(Data(
            ("LarderBench: CHECK FAILED: impl=\(name) workload=\(workload.rawValue): count \(got.objects), " +
             "sum \(got.sum); expected \(want.objects), \(want.sum)\n").utf8))
    }

    /// Best total ns per workload, each run in the order of CollectionWorkload.
    func runAll() throws -> [CollectionWorkload: Double] {
        var best: [CollectionWorkload: Double] = [:]
        func keep(_ w: CollectionWorkload, _ ns: Double) { best[w] = min(best[w] ?? .infinity, ns) }

        // Lists
        let listSchema = """
            CREATE TABLE listOwner (id INTEGER PRIMARY KEY);
            CREATE TABLE listItem (id INTEGER PRIMARY KEY,
                ownerId INTEGER NOT NULL REFERENCES listOwner(id) ON DELETE CASCADE,
                position INTEGER NOT NULL, value INTEGER NOT NULL, UNIQUE (ownerId, position));
            """
        for _ in 0..<CollectionSizes.writeRepeats {
            try openFresh("list", schema: listSchema)
            keep(.listAppend, try nanoseconds {
                try openQueue.write { db in
                    try ListOwnerRecord(id: 1).insert(db)
                    for i in 0..<CollectionSizes.list { try ListItemRecord(ownerId: 1, position: i, value: i).insert(db) }
                }
            })
        }
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            keep(.listIterate, try nanoseconds {
                tally = try openQueue.read { db in
                    var tally = Tally()
                    let items = try ListOwnerRecord(id: 1).request(for: ListOwnerRecord.items)
                        .order(Column("position")).fetchCursor(db)
                    while let item = try items.next() {
                        tally.objects += 1
                        tally.sum &+= item.value
                    }
                    return tally
                }
            })
            verify(.listIterate, tally, Tally(objects: CollectionSizes.list, sum: CollectionData.triangle(CollectionSizes.list)))
        }
        try openQueue.write { db in
            try ListOwnerRecord(id: 2).insert(db)
            for i in 0..<CollectionSizes.smallList { try ListItemRecord(ownerId: 2, position: i, value: i).insert(db) }
        }
        for _ in 0..<CollectionSizes.appendRepeats {
            keep(.listAppendAt1k, try appendAt(owner: 2))
            keep(.listAppendAt1m, try appendAt(owner: 1))
        }

        // Links
        let plan = CollectionData.linkPlan
        let linkSchema = """
            CREATE TABLE node (id INTEGER PRIMARY KEY, value INTEGER NOT NULL,
                nextId INTEGER REFERENCES node(id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED);
            CREATE INDEX node_on_nextId ON node(nextId);
            CREATE TABLE nodeFriend (
                ownerId INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                position INTEGER NOT NULL,
                friendId INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                PRIMARY KEY (ownerId, position));
            CREATE INDEX nodeFriend_on_friendId ON nodeFriend(friendId);
            """
        for _ in 0..<CollectionSizes.writeRepeats {
            try openFresh("links", schema: linkSchema)
            keep(.linkInsert, try nanoseconds {
                try openQueue.write { db in
                    for key in 1...CollectionSizes.links {
                        try NodeRecord(id: key, value: CollectionData.nodeValue(key), nextId: plan.next[key - 1]).insert(db)
                        for (position, friend) in plan.friends[key - 1].enumerated() {
                            try NodeFriendRecord(ownerId: key, position: position, friendId: friend).insert(db)
                        }
                    }
                }
            })
        }
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            keep(.linkScan, try nanoseconds {
                tally = try openQueue.read { db in
                    var tally = Tally()
                    let nodes = try NodeWithNext.fetchCursor(db, NodeRecord.including(required: NodeRecord.next))
                    while let node = try nodes.next() {
                        tally.objects += 1
                        tally.sum &+= node.next.value
                    }
                    let friends = try FriendWithTarget.fetchCursor(
                        db, NodeFriendRecord.including(required: NodeFriendRecord.friend))
                    while let friend = try friends.next() { tally.sum &+= friend.friend.value }
                    return tally
                }
            })
            verify(.linkScan, tally, Tally(objects: CollectionSizes.links, sum: plan.sum))
        }
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            keep(.listFilter, try nanoseconds {
                tally = try openQueue.read { db in
                    var tally = Tally()
                    let above = NodeFriendRecord.friend.filter(Column("value") > CollectionSizes.filterAbove)
                    for owner in 1...CollectionSizes.filterOwners {
                        tally.objects += 1
                        tally.sum += try NodeFriendRecord.filter(Column("ownerId") == owner)
                            .joining(required: above).fetchCount(db)
                    }
                    return tally
                }
            })
            verify(.listFilter, tally, CollectionData.filterExpected)
        }

        // Maps
        let keys = CollectionData.mapKeys, order = CollectionData.mapOrder
        let mapSchema = """
            CREATE TABLE mapOwner (id INTEGER PRIMARY KEY);
            CREATE TABLE mapEntry (ownerId INTEGER NOT NULL REFERENCES mapOwner(id) ON DELETE CASCADE,
                key TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (ownerId, key));
            """
        for _ in 0..<CollectionSizes.writeRepeats {
            try openFresh("map", schema: mapSchema)
            keep(.mapInsert, try nanoseconds {
                try openQueue.write { db in
                    try db.execute(sql: "INSERT INTO mapOwner (id) VALUES (1)")
                    for (i, key) in keys.enumerated() { try MapEntryRecord(ownerId: 1, key: key, value: i).insert(db) }
                }
            })
        }
        for _ in 0..<CollectionSizes.readRepeats {
            var tally = Tally()
            keep(.mapLookup, try nanoseconds {
                tally = try openQueue.read { db in
                    var tally = Tally()
                    for i in order {
                        guard let entry = try MapEntryRecord.fetchOne(db, key: ["ownerId": 1, "key": keys[i]]) else { continue }
                        tally.objects += 1
                        tally.sum &+= entry.value
                    }
                    return tally
                }
            })
            verify(.mapLookup, tally, Tally(objects: CollectionSizes.map, sum: CollectionData.triangle(CollectionSizes.map)))
        }

        // Sets: a is owner 1's, b owner 2's; each run on freshly built sets.
        let setSchema = """
            CREATE TABLE setOwner (id INTEGER PRIMARY KEY);
            CREATE TABLE setElement (ownerId INTEGER NOT NULL REFERENCES setOwner(id) ON DELETE CASCADE,
                value INTEGER NOT NULL, PRIMARY KEY (ownerId, value));
            """
        let operations: [(CollectionWorkload, String)] = [
            (.setUnion, "INSERT OR IGNORE INTO setElement (ownerId, value) SELECT 1, value FROM setElement WHERE ownerId = 2"),
            (.setIntersect, "DELETE FROM setElement WHERE ownerId = 1 AND value NOT IN " +
                            "(SELECT value FROM setElement WHERE ownerId = 2)"),
        ]
        for (workload, sql) in operations {
            let want = CollectionData.setExpected(union: workload == .setUnion)
            for _ in 0..<CollectionSizes.writeRepeats {
                try openFresh("set", schema: setSchema)
                try openQueue.write { db in
                    try db.execute(sql: "INSERT INTO setOwner (id) VALUES (1), (2)")
                    for i in 0..<CollectionSizes.set {
                        try SetElementRecord(ownerId: 1, value: CollectionData.setA(i)).insert(db)
                        try SetElementRecord(ownerId: 2, value: CollectionData.setB(i)).insert(db)
                    }
                }
                keep(workload, try nanoseconds { try openQueue.write { db in try db.execute(sql: sql) } })
                let got = try openQueue.read { db -> Tally in
                    let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), SUM(value) FROM setElement WHERE ownerId = 1")!
                    return Tally(objects: row[0], sum: row[1])
                }
                verify(workload, got, want)
            }
        }
        try close()
        return best
    }

    /// appendOps single appends to owner's list, each finding the list's end, in a
    /// transaction rolled back afterwards (the rollback is not timed).
    private func appendAt(owner: Int) throws -> Double {
        var elapsed = 0.0
        try openQueue.writeWithoutTransaction { db in
            try db.inTransaction {
                elapsed = try nanoseconds {
                    let request = ListOwnerRecord(id: owner).request(for: ListOwnerRecord.items)
                    for i in 0..<CollectionSizes.appendOps {
                        let last = try request.select(max(Column("position")), as: Int.self).fetchOne(db) ?? -1
                        try ListItemRecord(ownerId: owner, position: last + 1, value: i).insert(db)
                    }
                }
                return .rollback
            }
        }
        return elapsed
    }
}

// MARK: The C numbers and the report

/// raw-lmdb and c-api ns_per_op of each collection workload in c-results.txt, and
/// raw-lmdb+backlinks's where there is one (link-insert: the baseline doing the same job).
func loadCollectionResults(_ path: String) throws -> (reference: [CollectionWorkload: CReference],
                                                       rawBacklinks: [CollectionWorkload: Double]) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw BenchError("cannot read \(path): run bench_c first")
    }
    var raw: [CollectionWorkload: Double] = [:], cAPI: [CollectionWorkload: Double] = [:]
    var rawBacklinks: [CollectionWorkload: Double] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("BENCH ") {
        var fields: [Substring: Substring] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            fields[pair[..<equals]] = pair[pair.index(after: equals)...]
        }
        guard let workload = fields["workload"].flatMap({ CollectionWorkload(rawValue: String($0)) }),
              let nsPerOp = fields["ns_per_op"].flatMap({ Double($0) }) else { continue }
        if let n = fields["n"], Int(n) != workload.n {
            throw BenchError("\(path): workload=\(workload.rawValue) n=\(n), but this benchmark uses n=\(workload.n)")
        }
        switch fields["impl"] {
        case "raw-lmdb": raw[workload] = nsPerOp
        case "raw-lmdb+backlinks" where nsPerOp > 0: rawBacklinks[workload] = nsPerOp
        case "c-api": cAPI[workload] = nsPerOp
        default: break
        }
    }
    var reference: [CollectionWorkload: CReference] = [:]
    for workload in CollectionWorkload.allCases {
        guard let r = raw[workload], let c = cAPI[workload], r > 0, c > 0 else {
            throw BenchError("\(path) has no raw-lmdb and c-api lines for workload=\(workload.rawValue)")
        }
        reference[workload] = CReference(raw: r, cAPI: c)
    }
    guard rawBacklinks[.linkInsert] != nil else {
        throw BenchError("\(path) has no raw-lmdb+backlinks line for workload=\(CollectionWorkload.linkInsert.rawValue)")
    }
    return (reference, rawBacklinks)
}

func runCollections(directory: String) throws {
    let (reference, rawBacklinks) = try loadCollectionResults("\(directory)/c-results.txt")
    // Computed before any clock starts.
    _ = CollectionData.linkPlan
    _ = CollectionData.filterExpected
    _ = CollectionData.mapOrder
    FileHandle.standardError.write(Data(
        "LarderBench: collection workloads, best of \(CollectionSizes.writeRepeats) (reads \(CollectionSizes.readRepeats))\n".utf8))
    let grdb = GRDBCollectionBench(directory: directory)
    let grdbBest = try grdb.runAll()
    for workload in CollectionWorkload.allCases {
        let ref = reference[workload]!
        let n = Double(workload.n)
        let swiftNs = try SwiftCollectionBench.run(workload, directory: directory) / n
        // vs_raw_backlinks (link-insert): against raw-lmdb+backlinks, which keeps a backlink index as Larder does.
        let vsRawBacklinks = rawBacklinks[workload].map { " vs_raw_backlinks=\(fixed(swiftNs / $0, 2))" } ?? ""
        print("BENCH workload=\(workload.rawValue) impl=swift n=\(workload.n) ns_per_op=\(fixed(swiftNs, 1))" +
              " vs_raw=\(fixed(swiftNs / ref.raw, 2)) vs_c_api=\(fixed(swiftNs / ref.cAPI, 2))" + vsRawBacklinks)
        let ns = grdbBest[workload]! / n
        print("BENCH workload=\(workload.rawValue) impl=\(grdb.name) n=\(workload.n) ns_per_op=\(fixed(ns, 1))" +
              " vs_raw=\(fixed(ns / ref.raw, 2)) vs_c_api=\(fixed(ns / ref.cAPI, 2)) swift_speedup=\(fixed(ns / swiftNs, 2))")
        fflush(stdout)
    }
}
