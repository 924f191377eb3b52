// A tour of Larder in the words of Realm's documentation: define models, add
// objects, update them in write transactions, then reopen the file and look.
import Foundation
import Larder

class DogToy: Object {
    @Persisted var name = ""
}

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
    @Persisted var favoriteToy: DogToy?
    @Persisted var citiesVisited: MutableSet<String>
    @Persisted var companion: AnyRealmValue
    // Map of city name -> favorite park in that city
    @Persisted var favoriteParksByCity: Map<String, String>
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var country: String?
    // To-many relationship - a person can have many dogs
    @Persisted var dogs: List<Dog>
    // Embed a single object.
    // Embedded object properties must be marked optional.
    @Persisted var address: Address?
}

class Address: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "demo.realm"
for leftover in [path, path + "-lock"] { try? FileManager.default.removeItem(atPath: leftover) }
let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, Person.self, DogToy.self, Address.self])

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

    // Links and collections: a toy, the cities a dog visited, its favorite parks, a person's dogs.
    try realm.write {
        let bella = realm.objects(Dog.self).first { $0.name == "Bella" }!
        bella.favoriteToy = DogToy(value: ["name": "Ball"]) // an unmanaged object is added with the link
        bella.citiesVisited.insert(objectsIn: ["Berlin", "Toronto", "Berlin"])
        bella.favoriteParksByCity["Berlin"] = "Tiergarten"
        bella.favoriteParksByCity["Toronto"] = "High Park"
        let bowie = realm.object(ofType: Person.self, forPrimaryKey: 1234)!
        bowie.dogs.append(objectsIn: realm.objects(Dog.self))
        bowie.dogs.move(from: 0, to: 1)
    }

    // AnyRealmValue: a value of any type, or an object of any class.
    try realm.write {
        let wolfie = realm.objects(Dog.self).first { $0.name == "Wolfie" }!
        let bella = realm.objects(Dog.self).first { $0.name == "Bella" }!
        wolfie.companion = .object(bella)
        // A nested dictionary holding a list (Realm 10.51's nested collections).
        bella.companion = .fromDictionary(["cat": .string("the neighbour's cat"),
                                           "walks": .fromArray([.string("morning"), .string("evening")])])
    }

    // Embedded objects: created in place, updated through their owner, replaced whole.
    let bowie = realm.object(ofType: Person.self, forPrimaryKey: 1234)!
    try realm.write {
        bowie.address = Address(value: ["street": "1 Main St", "city": "London", "country": "UK"])
    }
    let firstAddress = bowie.address!
    try realm.write {
        bowie.address?.street = "789 Any Street"
        bowie.address?.postalCode = "12345"
    }
    try realm.write {
        let newAddress = Address()
        newAddress.street = "23 Heddon Street"
        newAddress.city = "London"
        newAddress.country = "UK"
        newAddress.postalCode = "W1B 4BQ"
        bowie.address = newAddress // the old address is deleted
    }
    print("the replaced address is invalidated: \(firstAddress.isInvalidated)")

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
// Queries run in the C core: the where {} DSL (never quoted text) and Realm's query language.
let youngInToronto = realm.objects(Dog.self).where { $0.age < 4 && $0.currentCity == "Toronto" }
print("Young dogs in Toronto: \(youngInToronto.map(\.name).joined(separator: ", "))")
let bNames = realm.objects(Dog.self).filter("name BEGINSWITH[c] %@ OR ANY owners.name == %@", "b", "Bowie")
print("Dogs named B... or owned by Bowie: \(bNames.map(\.name).joined(separator: ", "))")
print("People:")
for person in realm.objects(Person.self) {
    print("  #\(person.id) \(person.name) from \(person.country ?? "somewhere")")
}
for dog in realm.objects(Dog.self) where dog.favoriteToy != nil {
    print("\(dog.name) plays with its \(dog.favoriteToy!.name), has been to \(dog.citiesVisited.sorted().joined(separator: ", "))" +
          " and belongs to \(dog.owners.map(\.name).joined(separator: ", "))")
    for (city, park) in dog.favoriteParksByCity { print("  favorite park in \(city): \(park)") }
}
for dog in realm.objects(Dog.self) {
    switch dog.companion {
    case .object(let other as Dog): print("\(dog.name)'s companion is the dog \(other.name)")
    case .string(let text): print("\(dog.name)'s companion is \(text)")
    case .dictionary(let nested):
        let cat = nested["cat"]?.stringValue ?? "nobody"
        let walks = nested["walks"]?.listValue.map { $0.compactMap(\.stringValue).joined(separator: " and ") } ?? "never"
        print("\(dog.name)'s companion is \(cat), walked \(walks) (a dictionary holding a list, in one AnyRealmValue)")
    default: print("\(dog.name) has no companion")
    }
}
if let bowie = realm.object(ofType: Person.self, forPrimaryKey: 1234) {
    print("\(bowie.name)'s dogs, in order: \(bowie.dogs.map(\.name).joined(separator: ", "))")
    if let address = bowie.address {
        print("\(bowie.name) lives at \(address.street ?? ""), \(address.city ?? "") \(address.postalCode ?? "")" +
              " (an embedded object: \(address.objectSchema.isEmbedded))")
    }
    print("Found by primary key:\n\(bowie)")
}

// Notifications. Linux programs seldom run a run loop: a thread's observers hear of
// changes when its Realm refreshes or writes (observe(on: queue) delivers on a queue).
let youngDogs = realm.objects(Dog.self).where { $0.age < 4 }.sorted(byKeyPath: "name")
let token = youngDogs.observe { change in
    switch change {
    case .initial(let dogs):
        print("Observing \(dogs.count) young dogs: \(dogs.map(\.name).joined(separator: ", "))")
    case .update(let dogs, let deletions, let insertions, let modifications):
        print("Young dogs changed: \(dogs.map(\.name).joined(separator: ", ")) " +
              "(deleted at \(deletions), inserted at \(insertions), modified at \(modifications))")
    case .error(let error):
        print("Observation failed: \(error)")
    }
}
realm.refresh()  // delivers .initial
try realm.write { realm.create(Dog.self, value: ["name": "Biscuit", "age": 1]) }  // the commit delivers .update
token.invalidate()

// A frozen object never changes and any thread may read it; Frozen carries it across.
if let bowie = realm.object(ofType: Person.self, forPrimaryKey: 1234) {
    let frozen = Frozen(bowie.freeze())
    let seen = await Task.detached {
        "\(frozen.value.name) has \(frozen.value.dogs.count) dogs (read on the main thread: \(Thread.isMainThread))"
    }.value
    print("Frozen, read on another thread: \(seen)")
}

// An actor with its own Realm: asyncWrite waits for other writers without blocking a thread.
actor Kennel {
    var realm: Realm!
    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func adopt(_ name: String) async throws -> Int {
        try await realm.asyncWrite { realm.create(Dog.self, value: ["name": name, "age": 1]) }
        return realm.objects(Dog.self).count
    }
}
let kennel = try await Kennel(configuration: configuration)
let count = try await kennel.adopt("Pixel")
print("An actor adopted Pixel with asyncWrite: \(count) dogs now")
realm.refresh()  // the main thread's Realm, still usable after the awaits
print("The main thread's Realm sees Pixel too: \(realm.objects(Dog.self).filter("name == 'Pixel'").count == 1)")
