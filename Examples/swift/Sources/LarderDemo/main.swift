// A tour of Larder in the words of Realm's documentation: define models, add
// objects, update them in write transactions, then reopen the file and look.
import Foundation
import Larder

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
}

class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var country: String?
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "demo.realm"
for leftover in [path, path + "-lock"] { try? FileManager.default.removeItem(atPath: leftover) }
let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, Person.self])

/// Writes, in a scope of its own so that every handle on the file is closed when it ends.
func populate() throws {
    let realm = try Realm(configuration: configuration)

    // Add objects.
    try realm.write {
        realm.add(Dog(value: ["name": "Max", "age": 2, "color": "brown", "currentCity": "Berlin"]))
        realm.add(Dog(value: ["name": "Bella", "age": 5, "color": "black", "currentCity": "Berlin"]))
        realm.add(Person(value: ["id": 1234, "name": "Jones"]))
    }

    // Update an object: change its properties inside a write transaction.
    let dog = realm.objects(Dog.self).first!
    try realm.write {
        dog.name = "Wolfie"
        dog.age += 1
    }

    // Update with key-value coding: every dog moves to Toronto.
    let allDogs = realm.objects(Dog.self)
    try realm.write {
        allDogs.setValue("Toronto", forKey: "currentCity")
    }

    // Upsert: the same primary key overwrites the stored person (Jones -> Bowie).
    try realm.write {
        realm.add(Person(value: ["id": 1234, "name": "Bowie", "country": "UK"]), update: .modified)
        realm.create(Person.self, value: ["id": 5678, "name": "Gray"], update: .modified)
    }

    // A failed write changes nothing: a duplicate primary key is an error.
    do {
        try realm.write { realm.add(Person(value: ["id": 5678, "name": "Duplicate"])) }
    } catch {
        print("refused: \(error.localizedDescription)")
    }
}

try populate()

// Reopen the file and print what it holds.
let realm = try Realm(configuration: configuration)
print("Dogs, oldest first:")
for dog in realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false) {
    print("  \(dog.name), \(dog.age), \(dog.color), lives in \(dog.currentCity)")
}
print("People:")
for person in realm.objects(Person.self) {
    print("  #\(person.id) \(person.name) from \(person.country ?? "somewhere")")
}
if let bowie = realm.object(ofType: Person.self, forPrimaryKey: 1234) {
    print("Found by primary key:\n\(bowie)")
}
