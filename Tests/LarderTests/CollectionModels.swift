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

final class Owner: Object {
    @Persisted var name = ""
    @Persisted var pets: List<Pet>
    @Persisted var numbers: List<Int>
    @Persisted var names: List<String?>
}

/// A to-one link to a class keyed by its int primary key.
final class KeyedToyHolder: Object {
    @Persisted var n = 0
    @Persisted var toy: KeyedToy?
}

final class KeyedOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var toys: List<KeyedToy>
    @Persisted var numbers: List<Int>
}

/// A list of every element type Realm allows, required and optional.
final class EveryList: Object {
    @Persisted var int: List<Int>
    @Persisted var int8: List<Int8>
    @Persisted var int16: List<Int16>
    @Persisted var int32: List<Int32>
    @Persisted var int64: List<Int64>
    @Persisted var bool: List<Bool>
    @Persisted var float: List<Float>
    @Persisted var double: List<Double>
    @Persisted var string: List<String>
    @Persisted var data: List<Data>
    @Persisted var date: List<Date>
    @Persisted var objectId: List<ObjectId>
    @Persisted var uuid: List<UUID>
    @Persisted var decimal: List<Decimal128>
    @Persisted var optInt: List<Int?>
    @Persisted var optBool: List<Bool?>
    @Persisted var optFloat: List<Float?>
    @Persisted var optDouble: List<Double?>
    @Persisted var optString: List<String?>
    @Persisted var optData: List<Data?>
    @Persisted var optDate: List<Date?>
    @Persisted var optObjectId: List<ObjectId?>
    @Persisted var optUUID: List<UUID?>
    @Persisted var optDecimal: List<Decimal128?>
}

final class Traveler: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var cities: MutableSet<String>
    @Persisted var scores: MutableSet<Int>
    @Persisted var maybe: MutableSet<Double?>
    @Persisted var toys: MutableSet<Toy>
}

final class Atlas: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var parks: Map<String, String>
    @Persisted var counts: Map<String, Int?>
    @Persisted var toys: Map<String, Toy?>
}

final class Node: Object {
    @Persisted var name = ""
    @Persisted var children: List<Node>
}

func linkConfiguration(_ url: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: url, objectTypes: [Toy.self, KeyedToy.self, Pet.self, KeyedPet.self, Owner.self,
                                                    KeyedOwner.self, EveryList.self, Traveler.self, Atlas.self, Node.self])
}

/// Collection misuse run in a child process (see ChildScenarios).
enum CollectionScenarios {
    static func run(_ scenario: String, path: String) throws -> Bool {
        let url = URL(fileURLWithPath: path)
        switch scenario {
        case "link-other-realm":
            let realm = try Realm(configuration: linkConfiguration(url))
            let otherRealm = try Realm(configuration: linkConfiguration(url.deletingLastPathComponent()
                .appendingPathComponent("other.realm")))
            let toy = Toy()
            try otherRealm.write { otherRealm.add(toy) }
            let pet = Pet()
            pet.toy = toy
            try realm.write { realm.add(pet) }
        case "list-append-other-realm":
            let realm = try Realm(configuration: linkConfiguration(url))
            let otherRealm = try Realm(configuration: linkConfiguration(url.deletingLastPathComponent()
                .appendingPathComponent("other.realm")))
            let pet = Pet()
            try otherRealm.write { otherRealm.add(pet) }
            let owner = Owner()
            try realm.write {
                realm.add(owner)
                owner.pets.append(pet)
            }
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
        case _ where scenario.hasPrefix("link-deleted-") || scenario.hasPrefix("link-invalidated-"):
            // A target deleted through another accessor (which the file alone knows), or
            // through this one (invalidated), linked from a property, a list, a set, a map.
            let throughAnother = scenario.hasPrefix("link-deleted-")
            let action = scenario.split(separator: "-").dropFirst(2).joined(separator: "-")
            let realm = try Realm(configuration: linkConfiguration(url))
            realm.beginWrite()
            let toy = Toy(), victim = Pet(value: ["name": "victim"]), pet = Pet(), owner = Owner()
            let traveler = Traveler(value: ["id": 1]), atlas = Atlas(value: ["id": 1])
            realm.add([toy, victim, pet, owner, traveler, atlas] as [Object])
            owner.pets.append(pet)
            if throughAnother {
                realm.delete(realm.objects(Toy.self).first!)
                realm.delete(realm.objects(Pet.self).first { $0.name == "victim" }!)
            } else {
                realm.delete(toy)
                realm.delete(victim)
            }
            switch action {
            case "property": pet.toy = toy
            case "list-append": owner.pets.append(victim)
            case "list-insert": owner.pets.insert(victim, at: 0)
            case "list-set": owner.pets[0] = victim
            case "set-insert": traveler.toys.insert(toy)
            case "map-put": atlas.toys.updateValue(toy, forKey: "a")
            default: return false
            }
            try realm.commitWrite()
        case "list-append-outside-write", "list-index-out-of-bounds", "list-negative-index", "list-insert-past-end":
            let realm = try Realm(configuration: linkConfiguration(url))
            let owner = Owner(value: ["numbers": [1, 2, 3]])
            try realm.write { realm.add(owner) }
            switch scenario {
            case "list-append-outside-write": owner.numbers.append(4)
            case "list-index-out-of-bounds": _ = owner.numbers[5]
            case "list-negative-index": _ = owner.numbers[-1]
            default: try realm.write { owner.numbers.insert(9, at: 4) }
            }
        case "set-insert-outside-write":
            let realm = try Realm(configuration: linkConfiguration(url))
            let traveler = Traveler()
            try realm.write { realm.add(traveler) }
            traveler.cities.insert("Oslo")
        case "map-dollar-key", "map-dot-key", "map-put-outside-write", "map-add-dot-key":
            let realm = try Realm(configuration: linkConfiguration(url))
            let atlas = Atlas()
            // An unmanaged map takes any key, and fails when added.
            if scenario == "map-add-dot-key" { atlas.parks["a.b"] = "x" }
            try realm.write { realm.add(atlas, update: .modified) }
            switch scenario {
            case "map-dollar-key": try realm.write { atlas.parks["$x"] = "y" }
            case "map-dot-key": try realm.write { atlas.parks["a.b"] = "y" }
            default: atlas.parks["x"] = "y"
            }
        case "map-dollar-combining-key":
            // '$' and a combining accent are one Character; Realm checks the first byte.
            let realm = try Realm(configuration: linkConfiguration(url))
            let atlas = Atlas()
            try realm.write { realm.add(atlas, update: .modified) }
            try realm.write { atlas.counts["$\u{301}x"] = 1 }
        case "list-iterate-owner-deleted", "list-iterate-owner-deleted-in-write", "list-iterate-invalidated",
             "list-iterate-other-thread":
            // A list longer than a batch (ListIterator.batchSize, 64): its next batch is read after the change.
            let realm = try Realm(configuration: linkConfiguration(url))
            let owner = Owner()
            try realm.write {
                realm.add(owner)
                owner.numbers.append(objectsIn: 0..<1000)
            }
            let numbers = owner.numbers
            if scenario == "list-iterate-other-thread" {
                print("OWNER READ \(numbers.count)")
                nonisolated(unsafe) let shared = numbers
                let thread = Thread {
                    var sum = 0
                    for number in shared { sum += number }
                    print("NO TRAP \(sum)")
                }
                thread.start()
                Thread.sleep(forTimeInterval: 5)
                return true
            }
            if scenario == "list-iterate-owner-deleted-in-write" { realm.beginWrite() }
            var seen = 0
            for number in numbers {
                seen += 1
                if number != 1 { continue }
                switch scenario {
                case "list-iterate-owner-deleted": try realm.write { realm.delete(owner) }
                case "list-iterate-owner-deleted-in-write": realm.delete(owner)
                default: realm.invalidate()
                }
            }
            print("NO TRAP \(seen)")
        case "deleted-target-list-append", "deleted-target-list-set", "deleted-target-list-insert",
             "deleted-target-set-insert", "deleted-target-map-put", "deleted-target-link", "deleted-owner-and-target",
             "deleted-here-list-append", "invalidated-target-list-append", "deleted-target-add-link",
             "deleted-here-add-link":
            // Links to an object deleted in this write (through another accessor, or
            // through this one: deleted-here), or of an invalidated Realm.
            let realm = try Realm(configuration: linkConfiguration(url))
            let owner = Owner(), toy = Toy(), pet = Pet(), traveler = Traveler(), atlas = Atlas()
            try realm.write {
                realm.add([owner, toy, pet])
                realm.add(traveler, update: .modified)
                realm.add(atlas, update: .modified)
                owner.pets.append(Pet())
            }
            func deleteThroughAnother<T: Object>(_ object: T) {
                realm.delete(realm.objects(T.self).first { $0.isSameObject(as: object) }!)
            }
            switch scenario {
            case "invalidated-target-list-append":
                let stale = owner.pets[0]
                realm.invalidate()
                try realm.write { owner.pets.append(stale) }
                return true
            case "deleted-here-list-append":
                try realm.write {
                    realm.delete(pet)
                    owner.pets.append(pet)
                }
                return true
            case "deleted-here-add-link":
                try realm.write {
                    realm.delete(toy)
                    realm.add(Pet(value: ["toy": toy]))
                }
                return true
            default: break
            }
            try realm.write {
                deleteThroughAnother(pet)
                deleteThroughAnother(toy)
                switch scenario {
                case "deleted-target-list-append": owner.pets.append(pet)
                case "deleted-target-list-set": owner.pets[0] = pet
                case "deleted-target-list-insert": owner.pets.insert(pet, at: 0)
                case "deleted-target-set-insert": traveler.toys.insert(toy)
                case "deleted-target-map-put": atlas.toys["t"] = toy
                case "deleted-target-link": owner.pets[0].toy = toy
                case "deleted-target-add-link": realm.add(Pet(value: ["toy": toy])) // a new row linking it
                default:
                    deleteThroughAnother(owner)
                    owner.pets.append(pet)
                }
            }
        case "unmanaged-list-out-of-bounds":
            _ = List<Int>()[0]
        default:
            return try CollectionSurfaceScenarios.run(scenario, path: path)
        }
        return true
    }
}
