import Foundation
import XCTest
@testable import Larder

/// The models of the seed (seeds/000_019b421e1700c9ab.txt), less EmbeddedObject,
/// which Larder does not have yet.
enum SeedModels {
    final class DogToy: Object {
        @Persisted var name = ""
    }

    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var color = ""
        @Persisted var currentCity = ""
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var companion: AnyRealmValue
        // Map of city name -> favorite park in that city
        @Persisted var favoriteParksByCity: Map<String, String>
        @Persisted var favoriteToy: DogToy?
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        // To-many relationship - a person can have many dogs
        @Persisted var dogs: List<Dog>
    }
}

/// The seed's samples for links, lists, sets and maps, as written.
final class SeedCollectionsTests: RealmTestCase {
    typealias Dog = SeedModels.Dog
    typealias Person = SeedModels.Person
    typealias DogToy = SeedModels.DogToy

    private func open() throws -> Realm {
        try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self, Person.self, DogToy.self]))
    }

    func testMapSample() throws {
        let realm = try open()
        try realm.write {
            realm.add(Dog(value: ["name": "Wolfie", "favoriteParksByCity": ["New York": "Domino Park"]]))
        }
        // Find the dog we want to update
        let wolfie = realm.objects(Dog.self).where {
            $0.name == "Wolfie"
        }.first!
        print("Wolfie's favorite park in New York is: \(String(describing: wolfie.favoriteParksByCity["New York"]))")
        XCTAssertTrue(wolfie.favoriteParksByCity["New York"] == "Domino Park")
        // Update values for keys, or add values if the keys do not currently exist
        try! realm.write {
            wolfie.favoriteParksByCity["New York"] = "Washington Square Park"
            wolfie.favoriteParksByCity.updateValue("A Street Park", forKey: "Boston")
            wolfie.favoriteParksByCity.setValue("Little Long Pond", forKey: "Seal Harbor")
        }
        XCTAssertTrue(wolfie.favoriteParksByCity["New York"] == "Washington Square Park")
        XCTAssertEqual(wolfie.favoriteParksByCity.keys, ["Boston", "New York", "Seal Harbor"])
    }

    func testMutableSetSample() throws {
        let realm = try open()
        let dog2 = Dog(value: ["name": "Lita", "citiesVisited": ["Montreal"]])
        try realm.write { realm.add(dog2) }
        // Record a dog's name, current city, and store it to the cities visited.
        let dog = Dog()
        dog.name = "Maui"
        dog.currentCity = "New York"
        try! realm.write {
            realm.add(dog)
            dog.citiesVisited.insert(dog.currentCity)
        }
        // Update the dog's current city, and add it to the set of cities visited.
        try! realm.write {
            dog.currentCity = "Toronto"
            dog.citiesVisited.insert(dog.currentCity)
        }
        XCTAssertEqual(dog.citiesVisited.count, 2)
        // If you're operating with two sets, you can insert the elements from one set into another set.
        // The dog2 set contains one element that isn't present in the dog set.
        try! realm.write {
            dog.citiesVisited.formUnion(dog2.citiesVisited)
        }
        XCTAssertEqual(dog.citiesVisited.count, 3)
        // Or you can remove elements that are present in the second set. This removes the one element
        // that we added above from the dog2 set.
        try! realm.write {
            dog.citiesVisited.subtract(dog2.citiesVisited)
        }
        XCTAssertEqual(dog.citiesVisited.count, 2)
        // If the sets contain common elements, you can mutate the set to only contain those common elements.
        // In this case, the two sets contain no common elements, so this set should now contain 0 items.
        try! realm.write {
            dog.citiesVisited.formIntersection(dog2.citiesVisited)
        }
        XCTAssertEqual(dog.citiesVisited.count, 0)
    }

    func testPeopleDogsAndToys() throws {
        let realm = try open()
        try! realm.write {
            let person = Person(value: ["id": 1, "name": "Ali"])
            realm.add(person)
            let dog = Dog(value: ["name": "Rex", "age": 1])
            realm.add(dog)
            person.dogs.append(dog)
            dog.favoriteToy = DogToy(value: ["name": "Ball"])
        }
        let person = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        XCTAssertEqual(person.dogs.map(\.name), ["Rex"])
        XCTAssertEqual(person.dogs.first?.favoriteToy?.name, "Ball")
        XCTAssertEqual(person.dogs.first?.owners.first?.name, "Ali")
        // Upsert with nested values: the person's list is rewritten, the dogs created.
        try! realm.write {
            realm.create(Person.self, value: ["id": 1, "dogs": [["name": "Fido", "favoriteToy": ["name": "Rope"]]]],
                         update: .modified)
        }
        XCTAssertEqual(person.dogs.map(\.name), ["Fido"])
        XCTAssertEqual(person.dogs[0].favoriteToy?.name, "Rope")
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        XCTAssertTrue("\(person)".contains("Fido"))
    }
}
