import Foundation
import XCTest
@testable import Larder

/// Work done in a child process. The test does nothing unless a parent test
/// started this binary with a scenario name in the environment.
final class ChildScenarios: XCTestCase {
    func testRunScenario() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let scenario = environment[ChildProcess.scenarioVariable] else { return }
        let argument = environment[ChildProcess.argumentVariable] ?? ""
        try Self.run(scenario, argument: argument)
    }

    static func configuration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, Person.self])
    }

    static func dogsOnly(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self])
    }

    static func run(_ scenario: String, argument path: String) throws {
        switch scenario {
        case "set-outside-write":
            let realm = try Realm(configuration: configuration(path))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            dog.name = "Rex"
        case "read-deleted":
            let realm = try Realm(configuration: configuration(path))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            try realm.write { realm.delete(dog) }
            _ = dog.name
        case "read-deleted-cached":
            let realm = try Realm(configuration: configuration(path))
            let dog = Dog()
            try realm.write {
                realm.add(dog)
                _ = dog.name
                realm.delete(dog)
                _ = dog.name
            }
        case "read-replaced":  // deleted, and its primary key taken by a new object
            let realm = try Realm(configuration: configuration(path))
            try realm.write { realm.create(Person.self, value: ["id": 3]) }
            let person = realm.object(ofType: Person.self, forPrimaryKey: 3)!
            try realm.write {
                realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 3)!)
                realm.create(Person.self, value: ["id": 3, "name": "new"])
            }
            _ = person.name
        case "primary-key-of-wrong-type":
            let realm = try Realm(configuration: configuration(path))
            _ = realm.object(ofType: Person.self, forPrimaryKey: "three")
        case "primary-key-of-class-without-one":
            let realm = try Realm(configuration: configuration(path))
            _ = realm.object(ofType: Dog.self, forPrimaryKey: 3)
        case "add-outside-write":
            let realm = try Realm(configuration: configuration(path))
            realm.add(Dog())
        case "change-primary-key":
            let realm = try Realm(configuration: configuration(path))
            let person = Person()
            try realm.write { realm.add(person) }
            try realm.write { person.id = 42 }
        case "equal-primary-key-property", "equal-primary-key-subscript", "equal-primary-key-kvc":
            let realm = try Realm(configuration: configuration(path))
            let person = Person(value: ["id": 7])
            try realm.write {
                realm.deleteAll() // the parent runs each scenario on one file
                realm.add(person)
            }
            realm.beginWrite()
            switch scenario {
            case "equal-primary-key-property": person.id = 7
            case "equal-primary-key-subscript": person["id"] = 7
            default: person.setValue(7, forKey: "id")
            }
            print("ASSIGNED")
        case "int8-out-of-range-init":
            _ = AllTypes(value: ["int8": 300])
            print("ACCEPTED")
        case "int8-out-of-range-setvalue":
            AllTypes().setValue(300, forKey: "int8")
            print("ACCEPTED")
        case "int8-out-of-range-create":
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                     objectTypes: [AllTypes.self]))
            try realm.write { _ = realm.create(AllTypes.self, value: ["int8": NSNumber(value: 300)]) }
            print("ACCEPTED")
        case "unknown-enum-raw-value":
            _ = AllTypes(value: ["mood": "furious"])
            print("ACCEPTED")
        case "unknown-stored-enum-raw-value":
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                     objectTypes: [FeelingText.self]))
            try realm.write { realm.add(FeelingText(value: ["mood": "furious"])) }
            print("READ \(realm.objects(Feeling.self).first!.mood)")
        case "wrong-thread":
            let realm = try Realm(configuration: configuration(path))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            let thread = Thread { _ = dog.name }
            thread.start()
            Thread.sleep(forTimeInterval: 5)
        case "nested-write":
            let realm = try Realm(configuration: configuration(path))
            realm.beginWrite()
            realm.beginWrite()
        case "write-dogs":
            // Adds 100 dogs, one write each, racing the parent's own writes.
            let realm = try Realm(configuration: configuration(path))
            for index in 0..<100 {
                try realm.write { realm.add(Dog(value: ["name": "child", "age": index])) }
            }
        case "count-dogs":
            let realm = try Realm(configuration: configuration(path))
            print("DOGS=\(realm.objects(Dog.self).count)")
        case "read-retyped-dog":
            // Opened as the README does, without objectTypes: the class is checked when first used.
            let realm = try Realm(fileURL: URL(fileURLWithPath: path))
            print("AGE=\(realm.objects(RetypedAge.Dog.self).first?.age ?? "none")")
        case "unlisted-objects":
            _ = try Realm(configuration: dogsOnly(path)).objects(Person.self)
        case "unlisted-add":
            let realm = try Realm(configuration: dogsOnly(path))
            try realm.write { realm.add(Person()) }
        case "unlisted-create":
            let realm = try Realm(configuration: dogsOnly(path))
            try realm.write { realm.create(Person.self, value: ["id": 1]) }
        case "unlisted-object-for-key":
            _ = try Realm(configuration: dogsOnly(path)).object(ofType: Person.self, forPrimaryKey: 1)
        case "add-empty":
            let realm = try Realm(fileURL: URL(fileURLWithPath: path))
            try realm.write { realm.add(Empty()) }
        case "in-memory-wait":
            // An in-memory Realm with data, in a process the parent kills.
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: path, objectTypes: [Dog.self]))
            try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
            print("READY")
            fflush(stdout)
            Thread.sleep(forTimeInterval: 60)
        case let name where name.hasPrefix("freeze-"):
            try FreezeScenarios.run(name, path: path)
        case let name where name.hasPrefix("other-thread-"):
            try useFromAnotherThread(String(name.dropFirst("other-thread-".count)), path: path)
        default:
            if try CollectionScenarios.run(scenario, path: path) { return }
            if try MixedScenarios.run(scenario, path: path) { return }
            if try NestedScenarios.run(scenario, path: path) { return }
            if try LinkingObjectsScenarios.run(scenario, path: path) { return }
            if try CustomPersistableTests.runScenario(scenario, path: path) { return }
            if try ValueResultsScenarios.run(scenario, path: path) { return }
            if try EmbeddedObjectTests.runScenario(scenario, path: path) { return }
            if try DynamicObjectTests.runScenario(scenario, path: path) { return }
            if try CustomEmbeddedTests.runScenario(scenario, path: path) { return }
            if try QueryResultsTests.runScenario(scenario, path: path) { return }
            if try ValueQueryTests.runScenario(scenario, path: path) { return }
            if try ConfinementTests.runScenario(scenario, path: path) { return }
            if try AsyncWriteTests.runScenario(scenario, path: path) { return }
            if try CoreOrderingTests.runScenario(scenario, path: path) { return }
            if try NotificationTests.runScenario(scenario, path: path) { return }
            if try ThreadSafeTests.runScenario(scenario, path: path) { return }
            if try GroupedCommitTests.runScenario(scenario, path: path) { return }
            XCTFail("unknown scenario \(scenario)")
        }
    }

    /// Opens a Realm, keeps a read open on this thread with a dog's row cached, and
    /// uses the Realm from another thread in the way named by entryPoint.
    static func useFromAnotherThread(_ entryPoint: String, path: String) throws {
        let realm = try Realm(configuration: configuration(path))
        let dog = Dog(value: ["name": "Rex"])
        try realm.write {
            realm.add(dog)
            realm.add(Person(value: ["id": 1]), update: .modified)
        }
        let results = realm.objects(Dog.self)
        print("OWNER READ \(dog.name) \(results.count)")
        nonisolated(unsafe) let shared = (realm, dog, results)
        let thread = Thread {
            let (realm, dog, results) = shared
            switch entryPoint {
            case "objects": print(realm.objects(Dog.self).count)
            case "count": print(results.count)
            case "first": print(results.first as Any)
            case "iterate": for dog in results { print(dog.core.key) }
            case "subscript": print(results[0].core.key)
            case "object-for-key": print(realm.object(ofType: Person.self, forPrimaryKey: 1) as Any)
            case "is-invalidated": print(dog.isInvalidated)
            case "cached-read": print(dog.name)
            case "is-empty": print(realm.isEmpty)
            default: print("unknown entry point")
            }
            print("NO TRAP")
        }
        thread.start()
        Thread.sleep(forTimeInterval: 5)
    }
}
