import Foundation
import Larder

// Models with links and collections, named apart from TestSupport's Dog and Person.

final class Toy: Object {
    @Persisted var name = ""
}

final class KeyedToy: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var color = ""
}

final class Pet: Object {
    @Persisted var name = ""
    @Persisted var toy: Toy?
    @Persisted var keyedToy: KeyedToy?
    @Persisted var friend: Pet?
}

final class KeyedPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var keyedToy: KeyedToy?
}

func linkConfiguration(_ url: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, objectTypes: [Toy.self, KeyedToy.self, Pet.self, KeyedPet.self])
}

/// Collection misuse run in a child process (see ChildScenarios).
enum CollectionScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        let url = URL(fileURLWithPath: path)
        switch scenario {
        case "link-other-realm":
            let realm = try Realm(configuration: linkConfiguration(url))
            var other = linkConfiguration(url.deletingLastPathComponent().appendingPathComponent("other.realm"))
            other.objectTypes = [Toy.self, KeyedToy.self, Pet.self, KeyedPet.self]
            let otherRealm = try Realm(configuration: other)
            let toy = Toy()
            try otherRealm.write { otherRealm.add(toy) }
            let pet = Pet()
            pet.toy = toy
            try realm.write { realm.add(pet) }
        case "link-set-other-realm":
            let realm = try Realm(configuration: linkConfiguration(url))
            let otherRealm = try Realm(configuration: linkConfiguration(url.deletingLastPathComponent()
                .appendingPathComponent("other.realm")))
            let toy = Toy()
            try otherRealm.write { otherRealm.add(toy) }
            let pet = Pet()
            try realm.write {
                realm.add(pet)
                pet.toy = toy
            }
        default:
            return false
        }
        return true
    }
}
