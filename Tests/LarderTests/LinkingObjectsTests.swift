import Foundation
import XCTest
@testable import Larder

enum Backlinked {
    final class Walker: Object {
        @Persisted var name = ""
        @Persisted var dogs: List<Hound>
        @Persisted var favorite: Hound?
    }

    final class Hound: Object {
        @Persisted var name = ""
        @Persisted(originProperty: "dogs") var walkers: LinkingObjects<Walker>
        @Persisted(originProperty: "favorite") var fans: LinkingObjects<Walker>
    }

    static func configuration(_ url: URL) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, objectTypes: [Walker.self, Hound.self])
    }
}

/// Origins that Realm refuses: a missing property, one that is not a link, one that links elsewhere.
enum BadOrigins {
    final class Walker: Object {
        @Persisted var name = ""
        @Persisted var cats: List<Cat>
    }

    final class Cat: Object {
        @Persisted var name = ""
    }

    final class Hound: Object {
        @Persisted var name = ""
        @Persisted(originProperty: "dogz") var missing: LinkingObjects<Walker>
        @Persisted(originProperty: "name") var notALink: LinkingObjects<Walker>
        @Persisted(originProperty: "cats") var elsewhere: LinkingObjects<Walker>
    }
}

/// Scenarios run in a child process because they trap.
enum LinkingObjectsScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        guard scenario == "bad-origins-first-use" else { return false }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
        _ = realm.objects(BadOrigins.Hound.self).count
        return true
    }
}

/// `LinkingObjects`: the live inverse of links and lists.
final class LinkingObjectsTests: RealmTestCase {
    typealias Walker = Backlinked.Walker
    typealias Hound = Backlinked.Hound

    func testLinkingObjectsFollowListsAndLinks() throws {
        let realm = try Realm(configuration: Backlinked.configuration(fileURL))
        let rex = Hound(value: ["name": "Rex"])
        XCTAssertEqual(rex.walkers.count, 0, "an unmanaged object has none")
        XCTAssertNil(rex.walkers.realm)
        let ann = Walker(value: ["name": "Ann"]), bob = Walker(value: ["name": "Bob"])
        ann.dogs.append(rex)
        ann.dogs.append(rex)
        bob.dogs.append(rex)
        bob.favorite = rex
        try realm.write { realm.add([ann, bob]) }
        XCTAssertEqual(realm.objects(Hound.self).count, 1)
        let walkers = rex.walkers
        XCTAssertEqual(walkers.count, 2, "each linking object once")
        XCTAssertEqual(walkers.map(\.name), ["Ann", "Bob"])
        XCTAssertEqual(walkers.sorted(byKeyPath: "name", ascending: false).first?.name, "Bob")
        XCTAssertEqual(rex.fans.map(\.name), ["Bob"])
        XCTAssertEqual(walkers.value(forKey: "name") as? [String?], ["Ann", "Bob"])
        XCTAssertEqual(walkers.index(of: bob), 1)
        XCTAssertEqual(AnyRealmCollection(walkers).count, 2)
        // Live.
        try realm.write { ann.dogs.removeAll() }
        XCTAssertEqual(walkers.map(\.name), ["Bob"])
        try realm.write { bob.favorite = nil }
        XCTAssertTrue(rex.fans.isEmpty)
        try realm.write { realm.delete(bob) }
        XCTAssertEqual(walkers.count, 0)
    }

    func testKeyValueCodingReadsLinkingObjects() throws {
        let realm = try Realm(configuration: Backlinked.configuration(fileURL))
        let rex = Hound(value: ["name": "Rex"])
        try realm.write { realm.add(Walker(value: ["name": "Ann", "dogs": [rex]])) }
        XCTAssertEqual((rex.value(forKey: "walkers") as? LinkingObjects<Walker>)?.first?.name, "Ann")
    }

    func testOriginsAreCheckedWhenARealmOpens() throws {
        XCTAssertThrowsError(try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [Hound.self]))) {
            XCTAssertEqual(($0 as? Realm.Error)?.message, "Schema validation failed due to the following errors:" +
                           "\n- Property 'Hound.walkers' of type 'linking objects' has unknown object type 'Walker'" +
                           "\n- Property 'Hound.fans' of type 'linking objects' has unknown object type 'Walker'")
        }
        let types: [Object.Type] = [BadOrigins.Walker.self, BadOrigins.Cat.self, BadOrigins.Hound.self]
        XCTAssertThrowsError(try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: types))) {
            XCTAssertEqual(($0 as? Realm.Error)?.message, "Schema validation failed due to the following errors:" +
                "\n- Property 'Walker.dogz' declared as origin of linking objects property 'Hound.missing' does not exist" +
                "\n- Property 'Walker.name' declared as origin of linking objects property 'Hound.notALink' is not a link" +
                "\n- Property 'Walker.cats' declared as origin of linking objects property 'Hound.elsewhere' links to type 'Cat'")
        }
    }

    func testOriginsAreCheckedOnFirstUseWithoutObjectTypes() throws {
        let outcome = try ChildProcess.run("bad-origins-first-use", argument: fileURL.path)
        XCTAssertTrue(outcome.trapped)
        XCTAssertTrue(outcome.output.contains("Schema validation failed due to the following errors:" +
            "\n- Property 'Walker.dogz' declared as origin of linking objects property 'Hound.missing' does not exist" +
            "\n- Property 'Walker.name' declared as origin of linking objects property 'Hound.notALink' is not a link" +
            "\n- Property 'Walker.cats' declared as origin of linking objects property 'Hound.elsewhere' links to type 'Cat'"),
            outcome.output)
    }

    func testLinkingObjectsStayWithTheObjectTheyWereTakenFrom() throws {
        let realm = try Realm(configuration: Backlinked.configuration(fileURL))
        try realm.write {
            let a = Hound(value: ["name": "a"]), b = Hound(value: ["name": "b"])
            realm.add(Walker(value: ["name": "w1", "dogs": [a]]))
            realm.add(Walker(value: ["name": "w2", "dogs": [a, b]]))
        }
        var counts: [Int] = []
        var taken: [LinkingObjects<Walker>] = []
        for hound in realm.objects(Hound.self) { taken.append(hound.walkers) }
        for walkers in taken { counts.append(walkers.count) }
        XCTAssertEqual(counts, [2, 1])
    }
}
