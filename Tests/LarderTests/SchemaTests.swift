import CLarder
import Foundation
import XCTest
@testable import Larder

/// A file's stored schema against the Swift model classes that open it.
final class SchemaTests: RealmTestCase {
    /// Writes one TestSupport `Dog` and closes the file again.
    private func writeDog() throws {
        let realm = try openRealm([Dog.self])
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
    }

    private func assertMigrationRequired(_ types: [Object.Type], _ differences: [String],
                                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try openRealm(types), file: file, line: line) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch, file: file, line: line)
            XCTAssertEqual((error as? Realm.Error)?.message,
                           "Migration is required due to the following errors:" + differences.map { "\n- \($0)" }.joined(),
                           file: file, line: line)
        }
    }

    func testAChangedPropertyTypeIsRefusedWithRealmsMessage() throws {
        try writeDog()
        assertMigrationRequired([RetypedAge.Dog.self], ["Property 'Dog.age' has been changed from 'int' to 'string'."])
    }

    func testAPropertyThatBecameACollectionOrALinkIsRefused() throws {
        try writeDog()
        assertMigrationRequired([CollectionAge.Dog.self], ["Property 'Dog.age' has been changed from 'int' to 'array<int>'."])
        assertMigrationRequired([LinkAge.Dog.self], ["Property 'Dog.age' has been changed from 'int' to '<Dog>'."])
    }

    func testAChangeIsRefusedWhileTheFileIsOpenWithTheOldModel() throws {
        let realm = try openRealm([Dog.self])
        try realm.write { realm.add(Dog()) }
        assertMigrationRequired([RetypedAge.Dog.self], ["Property 'Dog.age' has been changed from 'int' to 'string'."])
    }

    func testANewPrimaryKeyIsRefused() throws {
        try writeDog()
        assertMigrationRequired([KeyedByName.Dog.self], ["Property 'Dog.name' has been made a primary key."])
    }

    func testAddedAndRemovedPropertiesAreEachListed() throws {
        try writeDog()
        assertMigrationRequired([Reshaped.Dog.self],
                                ["Property 'Dog.x' has been added.", "Property 'Dog.age' has been removed."])
    }

    func testOptionalityAndIndexChangesAreRefused() throws {
        try writeDog()
        assertMigrationRequired([OptionalName.Dog.self],
                                ["Property 'Dog.name' has been made optional.", "Property 'Dog.name' has been made indexed."])
    }

    func testARealmOpenedWithoutObjectTypesChecksAClassOnFirstUse() throws {
        try writeDog()
        let outcome = try ChildProcess.run("read-retyped-dog", argument: fileURL.path)
        XCTAssertTrue(outcome.trapped, outcome.output)
        XCTAssertTrue(outcome.output.contains("Migration is required due to the following errors:\n" +
                                              "- Property 'Dog.age' has been changed from 'int' to 'string'."),
                      outcome.output)
    }

    func testDeleteRealmIfMigrationNeededStartsAfresh() throws {
        try writeDog()
        var changed = configuration([RetypedAge.Dog.self])
        changed.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: changed)
        XCTAssertEqual(realm.objects(RetypedAge.Dog.self).count, 0)
        try realm.write { realm.add(RetypedAge.Dog(value: ["name": "Rex", "age": "three"])) }
        XCTAssertEqual(realm.objects(RetypedAge.Dog.self).first?.age, "three")
    }

    func testDeleteRealmIfMigrationNeededKeepsAMatchingFile() throws {
        try writeDog()
        var same = configuration([Dog.self])
        same.deleteRealmIfMigrationNeeded = true
        XCTAssertEqual(try Realm(configuration: same).objects(Dog.self).first?.name, "Rex")
    }

    func testDeleteRealmIfMigrationNeededWithReadOnlyIsRefused() {
        var configuration = configuration([Dog.self])
        configuration.readOnly = true
        configuration.deleteRealmIfMigrationNeeded = true
        XCTAssertThrowsError(try Realm(configuration: configuration)) { error in
            XCTAssertEqual((error as? Realm.Error)?.message,
                           "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        }
    }

    func testClassesMissingFromObjectTypesTrap() throws {
        for scenario in ["unlisted-objects", "unlisted-add", "unlisted-create", "unlisted-object-for-key"] {
            let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
            XCTAssertTrue(outcome.trapped, "\(scenario): \(outcome.output)")
            XCTAssertTrue(outcome.output.contains("Object type 'Person' is not managed by the Realm."),
                          "\(scenario): \(outcome.output)")
        }
    }

    func testAClassWithoutPropertiesIsRefused() throws {
        XCTAssertThrowsError(try openRealm([Empty.self])) { error in
            XCTAssertTrue((error as? Realm.Error)?.message.contains("No properties are defined for 'Empty'.") == true)
        }
        let outcome = try ChildProcess.run("add-empty", argument: fileURL.path)
        XCTAssertTrue(outcome.trapped, outcome.output)
        XCTAssertTrue(outcome.output.contains("No properties are defined for 'Empty'."), outcome.output)
    }

    func testASubclassStoresItsSuperclassPropertiesFirst() throws {
        let realm = try openRealm([Cat.self])
        try realm.write { realm.add(Cat(value: ["name": "Tom", "lives": 7])) }
        let cat = try XCTUnwrap(realm.objects(Cat.self).first)
        XCTAssertEqual(cat.name, "Tom")
        XCTAssertEqual(cat.lives, 7)
        let environment = realm.instance.environment
        var cls = lar_class()
        XCTAssertEqual(lar_class_find(environment.handle, "Cat", &cls), LAR_OK)
        let names = (0..<2).map { index -> String in
            var def = lar_property_def()
            lar_property_info_get(environment.handle, cls, UInt32(index), &def)
            return String(cString: def.name)
        }
        XCTAssertEqual(names, ["name", "lives"])
    }

    func testReopeningWithOtherSettingsOnTheSameThread() throws {
        let realm = try openRealm()
        var newer = configuration()
        newer.schemaVersion = 1
        XCTAssertThrowsError(try Realm(configuration: newer)) { error in
            XCTAssertEqual((error as? Realm.Error)?.message,
                           "Realm at path '\(fileURL.path)' already opened with different schema version.")
        }
        var readOnly = configuration()
        readOnly.readOnly = true
        XCTAssertThrowsError(try Realm(configuration: readOnly)) { error in
            XCTAssertEqual((error as? Realm.Error)?.message,
                           "Realm at path '\(fileURL.path)' already opened with different read permissions")
        }
        try realm.write { realm.add(Dog()) }
        let dogsOnly = try openRealm([Dog.self])
        XCTAssertNotEqual(dogsOnly, realm)
        XCTAssertEqual(dogsOnly.configuration.objectTypes?.count, 1)
        XCTAssertEqual(dogsOnly.objects(Dog.self).count, 1)
    }
}
