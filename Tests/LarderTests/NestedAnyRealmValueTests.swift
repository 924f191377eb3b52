import CLarder
import Foundation
import XCTest
@testable import Larder

/// A nested AnyRealmValue as plain Swift values, to compare contents (the
/// enum's `==` compares nested collections by identity, as Realm).
indirect enum NestedTree: Equatable {
    case scalar(AnyRealmValue)
    case list([NestedTree])
    case dictionary([String: NestedTree])

    init(_ value: AnyRealmValue) {
        switch value {
        case .list(let list): self = .list(list.map { NestedTree($0) })
        case .dictionary(let map):
            var entries: [String: NestedTree] = [:]
            for (key, value) in map { entries[key] = NestedTree(value) }
            self = .dictionary(entries)
        default: self = .scalar(value)
        }
    }
}

/// Realm 10.51's nested `.list` and `.dictionary` cases of AnyRealmValue, over
/// the C core's nested collections.
final class NestedAnyRealmValueTests: RealmTestCase {
    private func open() throws -> Realm { try Realm(configuration: mixedConfiguration(fileURL)) }

    private let sample: AnyRealmValue = .fromArray([
        .int(1), .string("two"), .none,
        .fromDictionary(["a": .bool(true), "b": .fromArray([.double(2.5), .data(Data([1, 2]))]), "c": .fromDictionary([:])]),
        .fromArray([]),
        .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!),
    ])

    private var sampleTree: NestedTree {
        .list([
            .scalar(.int(1)), .scalar(.string("two")), .scalar(.none),
            .dictionary(["a": .scalar(.bool(true)),
                         "b": .list([.scalar(.double(2.5)), .scalar(.data(Data([1, 2])))]),
                         "c": .dictionary([:])]),
            .list([]),
            .scalar(.uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!)),
        ])
    }

    /// value nested levels deep: each a list holding the next, the last holding 7.
    private func deep(_ levels: Int) -> AnyRealmValue {
        var value = AnyRealmValue.fromArray([.int(7)])
        for _ in 1..<levels { value = .fromArray([value]) }
        return value
    }

    /// How many lists down value goes, and what the last one holds.
    private func depth(of value: AnyRealmValue) -> (Int, AnyRealmValue?) {
        var levels = 0
        var current = value
        while let list = current.listValue {
            levels += 1
            guard list.count == 1 else { return (levels, nil) }
            current = list[0]
        }
        return (levels, current)
    }

    // MARK: Unmanaged

    func testTheCasesAndTheirAccessors() {
        let list = AnyRealmValue.fromArray([.int(1), .string("x")])
        XCTAssertEqual(list.listValue?.count, 2)
        XCTAssertNil(list.dictionaryValue)
        XCTAssertNil(list.intValue)
        XCTAssertNil(list.listValue?.realm)
        XCTAssertEqual(list.listValue?[1], .string("x"))

        let dictionary = AnyRealmValue.fromDictionary(["k": .int(3), "l": .fromArray([.bool(false)])])
        XCTAssertNil(dictionary.listValue)
        XCTAssertEqual(dictionary.dictionaryValue?.count, 2)
        XCTAssertEqual(dictionary.dictionaryValue?["k"], .int(3))
        XCTAssertEqual(dictionary.dictionaryValue?["l"]?.listValue?[0], .bool(false))
        XCTAssertNil(AnyRealmValue.int(1).listValue)
        XCTAssertNil(AnyRealmValue.none.dictionaryValue)
        XCTAssertEqual(NestedTree(sample), sampleTree)
    }

    func testUnmanagedObjectsKeepTheirNestedValues() {
        let holder = MixedHolder()
        holder.value = sample
        holder.values.append(.fromDictionary(["x": .int(9)]))
        holder.valueMap["m"] = .fromArray([.string("s")])
        XCTAssertEqual(NestedTree(holder.value), sampleTree)
        XCTAssertEqual(holder.values[0].dictionaryValue?["x"], .int(9))
        XCTAssertEqual(holder.valueMap["m"]?.listValue?[0], .string("s"))
        // The unmanaged collection itself: a change shows in the holder.
        holder.value.listValue!.append(.int(10))
        XCTAssertEqual(holder.value.listValue!.count, 7)
    }

    // MARK: Managed round trips

    func testAddingAnObjectCopiesNestedValuesInAndTheyReopen() throws {
        do {
            let realm = try open()
            let holder = MixedHolder()
            holder.name = "one"
            holder.value = sample
            holder.values.append(objectsIn: [.int(0), .fromDictionary(["x": .fromArray([.int(9)])])])
            holder.valueMap["m"] = .fromArray([.string("s"), .fromDictionary(["deep": .string("er")])])
            try realm.write { realm.add(holder) }
            XCTAssertNotNil(holder.value.listValue?.realm)
            XCTAssertEqual(NestedTree(holder.value), sampleTree)
            XCTAssertEqual(holder.values[1].dictionaryValue?["x"]?.listValue?[0], .int(9))
            XCTAssertEqual(holder.valueMap["m"]?.listValue?[1].dictionaryValue?["deep"], .string("er"))
        }
        let reopened = try open()
        let holder = try XCTUnwrap(reopened.objects(MixedHolder.self).first)
        XCTAssertEqual(NestedTree(holder.value), sampleTree)
        XCTAssertEqual(NestedTree(holder.values[1]), .dictionary(["x": .list([.scalar(.int(9))])]))
        XCTAssertEqual(NestedTree(holder.valueMap["m"]!),
                       .list([.scalar(.string("s")), .dictionary(["deep": .scalar(.string("er"))])]))
        // Another instance, on another thread, reads the same file.
        let url = fileURL
        let expected = sampleTree
        onAnotherThread {
            let realm = try Realm(configuration: mixedConfiguration(url))
            let holder = realm.objects(MixedHolder.self).first!
            XCTAssertEqual(NestedTree(holder.value), expected)
        }
    }

    func testAssigningNestedValuesToManagedPropertiesAndElements() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        try realm.write {
            holder.value = sample
            holder.values.append(.fromArray([.int(1)]))
            holder.values.insert(.fromDictionary(["i": .int(0)]), at: 0)
            holder.values.append(.int(5))
            holder.values[2] = .fromArray([.int(2), .int(3)]) // replaces the .int(5)
            holder.valueMap["a"] = .fromDictionary(["b": .fromArray([.none])])
        }
        XCTAssertEqual(NestedTree(holder.value), sampleTree)
        XCTAssertEqual(holder.values.count, 3)
        XCTAssertEqual(NestedTree(holder.values[0]), .dictionary(["i": .scalar(.int(0))]))
        XCTAssertEqual(NestedTree(holder.values[1]), .list([.scalar(.int(1))]))
        XCTAssertEqual(NestedTree(holder.values[2]), .list([.scalar(.int(2)), .scalar(.int(3))]))
        XCTAssertEqual(NestedTree(holder.valueMap["a"]!), .dictionary(["b": .list([.scalar(.none)])]))
        // Iterating the property's list reads nested elements too.
        XCTAssertEqual(Array(holder.values).map { $0.listValue != nil }, [false, true, true])
        // Assigning a whole unmanaged List<AnyRealmValue> holding nested values.
        let replacement = List<AnyRealmValue>()
        replacement.append(objectsIn: [.fromArray([.string("r")]), .int(1)])
        try realm.write { holder.values = replacement }
        XCTAssertEqual(NestedTree(holder.values[0]), .list([.scalar(.string("r"))]))
        XCTAssertEqual(holder.values[1], .int(1))
    }

    func testAManagedNestedValueCopiesIntoAnotherPropertyAndIntoItself() throws {
        let realm = try open()
        let first = MixedHolder(), second = MixedHolder()
        try realm.write {
            realm.add([first, second])
            first.value = sample
        }
        try realm.write {
            second.value = first.value
            first.value = first.value // its own contents, copied before the old collection goes
            first.values.append(first.value)
        }
        XCTAssertEqual(NestedTree(first.value), sampleTree)
        XCTAssertEqual(NestedTree(second.value), sampleTree)
        XCTAssertEqual(NestedTree(first.values[0]), sampleTree)
        XCTAssertNotEqual(first.value, second.value) // distinct collections
        XCTAssertTrue(first.description.contains("List<AnyRealmValue>"), first.description)
        XCTAssertTrue(first.value(forKey: "value") is List<AnyRealmValue>)
        try realm.write { first.value.listValue!.append(.int(99)) }
        XCTAssertEqual(second.value.listValue!.count, 6)
        XCTAssertEqual(first.value.listValue!.count, 7)
    }

    // MARK: Live nested collections

    func testMutatingThroughTheLiveNestedCollections() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.value = .fromArray([.int(1), .int(2)])
        }
        let list = try XCTUnwrap(holder.value.listValue)
        try realm.write {
            list.append(.int(3))
            list.insert(.string("zero"), at: 0)
            list.remove(at: 1)
            list[0] = .string("first")
            list.append(.fromDictionary(["a": .int(1)]))
        }
        XCTAssertEqual(list.count, 4)
        XCTAssertEqual(NestedTree(holder.value),
                       .list([.scalar(.string("first")), .scalar(.int(2)), .scalar(.int(3)), .dictionary(["a": .scalar(.int(1))])]))
        try realm.write {
            list.move(from: 0, to: 2)
            list.swapAt(0, 1)
        }
        XCTAssertEqual(Array(list.prefix(3)), [.int(3), .int(2), .string("first")])
        try realm.write {
            list.swapAt(2, 0)
        }
        XCTAssertEqual(Array(list.prefix(3)), [.string("first"), .int(2), .int(3)])

        // Nesting further through an element, as Realm's docs do.
        try realm.write { holder.value.listValue![0] = .fromDictionary(["a": .int(1)]) }
        let map = try XCTUnwrap(holder.value.listValue![0].dictionaryValue)
        XCTAssertEqual(map["a"], .int(1))
        try realm.write {
            map["b"] = .fromArray([.bool(true)])
            map["a"] = .int(2)
            map["c"] = .string("c")
            map["c"] = nil
            map["b"]!.listValue!.append(.fromArray([.int(4)]))
        }
        XCTAssertEqual(map.count, 2)
        XCTAssertEqual(map.keys, ["a", "b"])
        XCTAssertEqual(map.values.first, .int(2))
        XCTAssertNil(map["c"])
        XCTAssertEqual(NestedTree(map["b"]!), .list([.scalar(.bool(true)), .list([.scalar(.int(4))])]))
        try realm.write { map.removeAll() }
        XCTAssertEqual(map.count, 0)
        try realm.write { list.removeAll() }
        XCTAssertTrue(list.isEmpty)
        XCTAssertTrue(map.isInvalidated) // it sat in the cleared list
        XCTAssertFalse(list.isInvalidated)
    }

    func testNestedCollectionsInsidePropertyListsAndMapsAreLive() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.values.append(.fromArray([]))
            holder.valueMap["k"] = .fromDictionary([:])
        }
        try realm.write {
            holder.values[0].listValue!.append(.string("in list"))
            holder.valueMap["k"]!.dictionaryValue!["x"] = .int(1)
        }
        XCTAssertEqual(holder.values[0].listValue![0], .string("in list"))
        XCTAssertEqual(holder.valueMap["k"]!.dictionaryValue!["x"], .int(1))
        var seen: [String] = []
        for (key, value) in holder.valueMap { seen.append("\(key)=\(value.dictionaryValue?.count ?? -1)") }
        XCTAssertEqual(seen, ["k=1"])
    }

    func testObjectValueInputAndCreateCopyNestedValues() throws {
        let source = MixedHolder()
        source.value = sample
        let copy = MixedHolder(value: source)
        XCTAssertEqual(NestedTree(copy.value), sampleTree)
        XCTAssertNotEqual(copy.value, source.value) // a copy, not the same unmanaged list
        let fromDictionary = MixedHolder(value: ["name": "d", "value": AnyRealmValue.fromDictionary(["k": .int(1)])])
        XCTAssertEqual(NestedTree(fromDictionary.value), .dictionary(["k": .scalar(.int(1))]))

        let realm = try open()
        let created = try realm.write {
            realm.create(MixedHolder.self, value: ["name": "c", "value": sample])
        }
        XCTAssertNotNil(created.value.listValue?.realm)
        XCTAssertEqual(NestedTree(created.value), sampleTree)
        let keyed = try realm.write {
            realm.create(MixedKeyedHolder.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.int(1)])])
        }
        XCTAssertEqual(NestedTree(keyed.value), .list([.scalar(.int(1))]))
        try realm.write {
            realm.create(MixedKeyedHolder.self, value: ["id": 1, "value": AnyRealmValue.fromDictionary(["u": .int(2)])],
                         update: .modified)
        }
        XCTAssertEqual(NestedTree(keyed.value), .dictionary(["u": .scalar(.int(2))]))
    }

    func testASetOfMixedValuesRefusesNestedCollections() throws {
        let outcome = try ChildProcess.run("nested-in-set", argument: fileURL.path)
        XCTAssertTrue(outcome.trapped, "did not trap")
        XCTAssertTrue(outcome.output.contains("A MutableSet<AnyRealmValue> cannot hold a nested list or dictionary"),
                      outcome.output)
    }

    // MARK: Depth

    func testAHundredLevelsRoundTripAndReopen() throws {
        do {
            let realm = try open()
            let holder = MixedHolder()
            holder.value = deep(99)
            try realm.write {
                realm.add(holder)
                // The 100th level, through the live collection at level 99.
                var innermost = holder.value.listValue!
                while case .list(let next) = innermost[0] { innermost = next }
                innermost[0] = .fromArray([.int(7)])
            }
            let (levels, last) = depth(of: holder.value)
            XCTAssertEqual(levels, 100)
            XCTAssertEqual(last, .int(7))
            let other = MixedHolder()
            try realm.write {
                realm.add(other)
                other.value = deep(100)
            }
            XCTAssertEqual(depth(of: other.value).0, 100)
        }
        let reopened = try open()
        for holder in reopened.objects(MixedHolder.self) {
            let (levels, last) = depth(of: holder.value)
            XCTAssertEqual(levels, 100)
            XCTAssertEqual(last, .int(7))
        }
    }

    func testTheHundredAndFirstLevelTraps() throws {
        for scenario in ["nested-101-property", "nested-101-element"] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, "scenario \(scenario) did not trap")
            XCTAssertTrue(outcome.output.contains("Max nesting level reached"), outcome.output)
        }
    }

    // MARK: Replacing and deleting

    func testReplacingANestedValueFreesItAndInvalidatesItsCollections() throws {
        let realm = try open()
        let holder = MixedHolder()
        try realm.write {
            realm.add(holder)
            holder.value = .fromArray([.fromDictionary(["a": .int(1)])])
        }
        let old = try XCTUnwrap(holder.value.listValue)
        let oldInner = try XCTUnwrap(old[0].dictionaryValue)
        let handles = [old.ref!.handle, oldInner.ref!.handle]
        XCTAssertFalse(old.isInvalidated)
        try realm.write { holder.value = .string("replaced") }
        XCTAssertTrue(old.isInvalidated)
        XCTAssertTrue(oldInner.isInvalidated)
        // The C core freed the whole tree: both handles are stale.
        let txn = realm.instance.currentTxn()
        var count = 0
        var list = handles[0], map = handles[1]
        XCTAssertEqual(lar_list_count_at(txn, &list, &count), LAR_EDELETED)
        XCTAssertEqual(lar_map_count_at(txn, &map, &count), LAR_EDELETED)
        XCTAssertEqual(holder.value, .string("replaced"))

        // Removing an element that holds one, and deleting the owner, do the same.
        try realm.write {
            holder.values.append(.fromArray([.int(1)]))
            holder.value = .fromDictionary(["k": .int(1)])
        }
        let element = holder.values[0].listValue!
        let dictionary = holder.value.dictionaryValue!
        try realm.write { holder.values.remove(at: 0) }
        XCTAssertTrue(element.isInvalidated)
        XCTAssertFalse(dictionary.isInvalidated)
        try realm.write { realm.delete(holder) }
        XCTAssertTrue(dictionary.isInvalidated)
    }

    func testUsingAReplacedNestedCollectionTraps() throws {
        for (scenario, message) in [("nested-stale-list", "Access to invalidated List object"),
                                    ("nested-stale-dictionary", "Access to invalidated Dictionary object")] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, "scenario \(scenario) did not trap")
            XCTAssertTrue(outcome.output.contains(message), outcome.output)
        }
    }

    func testDeletingALinkedObjectRemovesItFromNestedLists() throws {
        let realm = try open()
        let holder = MixedHolder()
        let tom = MixedCat(value: ["name": "Tom"]), felix = MixedCat(value: ["name": "Felix"])
        holder.value = .fromArray([.object(tom), .int(1), .fromDictionary(["cat": .object(felix), "n": .int(2)])])
        try realm.write { realm.add(holder) }
        XCTAssertEqual(realm.objects(MixedCat.self).count, 2) // added with their holder
        XCTAssertEqual(holder.value.listValue![0].object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(holder.value.listValue![2].dictionaryValue!["cat"]?.object(MixedCat.self)?.name, "Felix")
        try realm.write {
            realm.delete(tom)
            realm.delete(felix)
        }
        let list = holder.value.listValue!
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list[0], .int(1))
        XCTAssertEqual(NestedTree(list[1]), .dictionary(["cat": .scalar(.none), "n": .scalar(.int(2))]))
    }

    // MARK: Equality and hashing

    func testEqualityAndHashingOfNestedValues() throws {
        let unmanaged = AnyRealmValue.fromArray([.int(1)])
        XCTAssertEqual(unmanaged, unmanaged)
        XCTAssertNotEqual(unmanaged, .fromArray([.int(1)])) // another collection, equal contents
        XCTAssertNotEqual(AnyRealmValue.fromArray([]), .fromDictionary([:]))
        XCTAssertNotEqual(unmanaged, .int(1))

        let realm = try open()
        let holder = MixedHolder(), other = MixedHolder()
        try realm.write {
            realm.add([holder, other])
            holder.value = .fromDictionary(["a": .int(1)])
            other.value = .fromDictionary(["a": .int(1)])
        }
        // Two reads of one nested collection are equal and hash alike.
        XCTAssertEqual(holder.value, holder.value)
        XCTAssertEqual(holder.value.hashValue, holder.value.hashValue)
        XCTAssertEqual(Set([holder.value, holder.value, other.value]).count, 2)
        XCTAssertNotEqual(holder.value, other.value)
        XCTAssertNotEqual(holder.value, unmanaged)
    }
}

/// Child-process scenarios for the traps above.
enum NestedScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        let url = URL(fileURLWithPath: path)
        switch scenario {
        case "nested-101-property", "nested-101-element":
            let realm = try Realm(configuration: mixedConfiguration(url))
            var value = AnyRealmValue.fromArray([.int(7)])
            for _ in 1..<101 { value = .fromArray([value]) }
            let holder = MixedHolder()
            try realm.write {
                realm.add(holder)
                if scenario == "nested-101-property" {
                    holder.value = value
                } else {
                    holder.values.append(value)
                }
            }
            print("WROTE")
        case "nested-stale-list", "nested-stale-dictionary":
            let realm = try Realm(configuration: mixedConfiguration(url))
            let holder = MixedHolder()
            try realm.write {
                realm.add(holder)
                holder.value = scenario == "nested-stale-list" ? .fromArray([.int(1)]) : .fromDictionary(["a": .int(1)])
            }
            let list = holder.value.listValue, map = holder.value.dictionaryValue
            try realm.write { holder.value = .none }
            if let list { print(list.count) } else { print(map!.count) }
        case "nested-in-set":
            let realm = try Realm(configuration: mixedConfiguration(url))
            let holder = MixedHolder()
            try realm.write {
                realm.add(holder)
                holder.valueSet.insert(.fromArray([.int(1)]))
            }
            print("INSERTED")
        default:
            return false
        }
        return true
    }
}
