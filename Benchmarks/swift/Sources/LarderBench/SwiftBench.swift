// impl=swift: Larder's Swift API, written the way a Realm Swift user writes it.
import Foundation
import Larder

final class BenchObject: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var v0 = 0
    @Persisted var v1 = 0
    @Persisted var v2 = 0
    @Persisted var v3 = 0
    @Persisted var v4 = 0
    @Persisted var v5 = 0
    @Persisted var v6 = 0
    @Persisted var v7 = 0
    @Persisted var v8 = 0
    @Persisted var v9 = 0
}

final class SwiftBench: Implementation {
    let name = "swift"
    private let directory: String
    private var realm: Realm?
    private var opened = 0

    init(directory: String) { self.directory = directory }

    private func path(ofRun run: Int) -> String { "\(directory)/swift-\(run).larder" }

    /// Each run gets a file of its own (swift-0.larder, swift-1.larder, ...): a Realm
    /// instance is cached per thread and file, so reopening a removed path could
    /// hand back the old instance. The previous run's files are removed, so only
    /// the last one stays.
    func openFreshDatabase() throws {
        try close()
        for run in [opened - 1, opened] where run >= 0 {
            try removeFileIfPresent(path(ofRun: run))
            try removeFileIfPresent(path(ofRun: run) + "-lock")
        }
        let path = path(ofRun: opened)
        opened += 1
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [BenchObject.self])
        realm = try Realm(configuration: config)
    }

    private var openRealm: Realm {
        guard let realm else { fatalError("swift: no open Realm") }
        return realm
    }

    func insertAll() throws { try Self.insertAll(into: openRealm) }

    /// The insert workload into realm (NotifyBench times it observed).
    static func insertAll(into realm: Realm) throws {
        try realm.write {
            for id in Workload.ids {
                let o = BenchObject()
                o.id = id
                o.v0 = Workload.value(id: id, property: 0)
                o.v1 = Workload.value(id: id, property: 1)
                o.v2 = Workload.value(id: id, property: 2)
                o.v3 = Workload.value(id: id, property: 3)
                o.v4 = Workload.value(id: id, property: 4)
                o.v5 = Workload.value(id: id, property: 5)
                o.v6 = Workload.value(id: id, property: 6)
                o.v7 = Workload.value(id: id, property: 7)
                o.v8 = Workload.value(id: id, property: 8)
                o.v9 = Workload.value(id: id, property: 9)
                realm.add(o)
            }
        }
    }

    func scan() throws -> Tally {
        var tally = Tally()
        for o in openRealm.objects(BenchObject.self) {
            tally.objects += 1
            tally.sum &+= o.v0 &+ o.v1 &+ o.v2 &+ o.v3 &+ o.v4 &+ o.v5 &+ o.v6 &+ o.v7 &+ o.v8 &+ o.v9
        }
        return tally
    }

    func lookUp(_ order: [Int]) throws -> Tally {
        let realm = openRealm
        var tally = Tally()
        for id in order {
            guard let o = realm.object(ofType: BenchObject.self, forPrimaryKey: id) else { continue }
            tally.objects += 1
            tally.sum &+= o.v3
        }
        return tally
    }

    func close() throws { realm = nil }
}
