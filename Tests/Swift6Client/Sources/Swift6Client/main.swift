import Foundation
import Larder

final class Todo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var owner = ""
    @Persisted var status = ""
}

final class Board: Object {
    @Persisted var todos: Map<String, Todo?>
}

/// The actor of Realm's "Use Realm with Actors" page.
actor RealmActor {
    // An implicitly-unwrapped optional is used here to let us pass `self` to
    // `Realm(actor:)` within `init`
    var realm: Realm!
    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    var count: Int {
        realm.objects(Todo.self).count
    }

    func createTodo(name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite {
            realm.create(Todo.self, value: [
                "_id": ObjectId.generate(),
                "name": name,
                "owner": owner,
                "status": status
            ])
        }
    }

    func updateTodo(_id: ObjectId, name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite {
            realm.create(Todo.self, value: [
                "_id": _id,
                "name": name,
                "owner": owner,
                "status": status
            ], update: .modified)
        }
    }

    func deleteTodo(id: ObjectId) async throws {
        try await realm.asyncWrite {
            let todoToDelete = realm.object(ofType: Todo.self, forPrimaryKey: id)
            realm.delete(todoToDelete!)
        }
    }

    /// writeAsync with its completion, awaited.
    func queueTodo(name: String) async -> Swift.Error? {
        await withCheckedContinuation { continuation in
            realm.writeAsync({
                self.realm.create(Todo.self, value: ["_id": ObjectId.generate(), "name": name])
            }, onComplete: { error in
                continuation.resume(returning: error)
            })
        }
    }

    /// Realm.open: confined to this actor through `#isolation`.
    func countThroughAnotherRealm() async throws -> Int {
        let realm = try await Realm.open(configuration: self.realm.configuration)
        return realm.objects(Todo.self).count
    }

    /// A frozen todo leaves the actor in a Sendable wrapper; a live one could not.
    func frozenTodo(named name: String) -> Frozen<Todo> {
        Frozen(realm.objects(Todo.self).where { $0.name == name }.first!.freeze())
    }

    /// The todos' names, sorted, as each callback of an observation on this actor read them.
    var observedNames: [[String]] = []
    private var todosToken: NotificationToken?

    /// Observes the todos on this actor: the callback runs isolated to it.
    func observeTodos() async {
        todosToken = await realm.objects(Todo.self).sorted(byKeyPath: "name").observe(on: self) { actor, change in
            switch change {
            case .initial(let todos), .update(let todos, _, _, _): actor.observedNames.append(todos.map(\.name))
            case .error(let error): print("observe failed: \(error)")
            }
        }
    }

    /// Waits (up to 10 s) for count callbacks of observeTodos.
    func waitForObservedNames(count: Int) async -> [[String]] {
        let deadline = Date().addingTimeInterval(10)
        while observedNames.count < count && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
        return observedNames
    }

    /// Callbacks of observations with key paths of the model, by what they observe.
    var keyPathCallbacks: [String: Int] = [:]
    private var keyPathTokens: [NotificationToken] = []

    /// Observes a todo's status by key path: in the results, the object and a board's map.
    func observeStatus(ofTodo id: ObjectId) async throws {
        let todo = realm.object(ofType: Todo.self, forPrimaryKey: id)!
        try await realm.asyncWrite { realm.create(Board.self, value: ["todos": ["first": todo]]) }
        let board = realm.objects(Board.self).first!
        keyPathTokens.append(await realm.objects(Todo.self).observe(keyPaths: [\Todo.status], on: self) { actor, _ in
            actor.keyPathCallbacks["results", default: 0] += 1
        })
        keyPathTokens.append(await todo.observe(keyPaths: [\Todo.status], on: self) { actor, _ in
            actor.keyPathCallbacks["object", default: 0] += 1
        })
        keyPathTokens.append(await board.todos.observe(keyPaths: [\Todo.status], on: self) { actor, _ in
            actor.keyPathCallbacks["map", default: 0] += 1
        })
    }

    /// Waits (up to 10 s) for the status change's callbacks: each collection's initial and update, the object's change.
    func waitForStatusCallbacks() async -> [String: Int] {
        let expected = ["results": 2, "object": 1, "map": 2]
        let deadline = Date().addingTimeInterval(10)
        while keyPathCallbacks != expected && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
        return keyPathCallbacks
    }

    func close() {
        keyPathTokens.forEach { $0.invalidate() }
        todosToken?.invalidate()
        realm = nil
    }
}

// Read objects in functions isolated to the actor and pass primitive values to the caller
func getObjectId(in actor: isolated RealmActor, forTodoNamed name: String) async -> ObjectId {
    let todo = actor.realm.objects(Todo.self).where {
        $0.name == name
    }.first!
    return todo._id
}

func check(_ condition: Bool, _ what: String) {
    if !condition {
        print("FAILED: \(what)")
        exit(1)
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("larder-swift6-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("todos.realm"),
                                        objectTypes: [Todo.self, Board.self])

// The main thread's Realm, opened before the first await: top-level code runs on the
// main actor, which Linux moves to other threads once the program awaits.
let realm = try Realm(configuration: configuration)

let actor = try await RealmActor(configuration: configuration)
await actor.observeTodos()
try await actor.createTodo(name: "Keep it safe", owner: "Frodo", status: "In Progress")
let observed = await actor.waitForObservedNames(count: 2)
check(observed.prefix(2) == [[], ["Keep it safe"]], "the actor observed the insert (saw \(observed))")
let objectId = await getObjectId(in: actor, forTodoNamed: "Keep it safe")
try await actor.observeStatus(ofTodo: objectId)
try await actor.updateTodo(_id: objectId, name: "Keep it safe", owner: "Frodo", status: "Completed")
let statusCallbacks = await actor.waitForStatusCallbacks()
check(statusCallbacks == ["results": 2, "object": 1, "map": 2],
      "observations by key path on an actor saw the status change (saw \(statusCallbacks))")
check(await actor.queueTodo(name: "Second breakfast") == nil, "writeAsync completed without error")
check(try await actor.countThroughAnotherRealm() == 2, "Realm.open in the actor sees both todos")
let frozen = await actor.frozenTodo(named: "Second breakfast")
let nameReadElsewhere = await Task.detached { frozen.value.name }.value
check(nameReadElsewhere == "Second breakfast" && frozen.value.isFrozen, "a frozen todo read in another task")
try await actor.deleteTodo(id: objectId)
check(await actor.count == 1, "one todo left")
await actor.close()

// The main actor: top-level code runs on it; Realm.open gives the main thread's Realm.
let mainRealm = try await Realm.open(configuration: configuration)
try await mainRealm.asyncWrite {
    mainRealm.create(Todo.self, value: ["_id": ObjectId.generate(), "name": "From the main actor"])
}
check(mainRealm.objects(Todo.self).count == 2, "the main actor's write")
let dynamicTodo = mainRealm.dynamicObjects("Todo").filter("name == %@", "From the main actor").first
check(dynamicTodo?.name as? String == "From the main actor", "a dynamic object read by name")
realm.refresh()
check(realm.objects(Todo.self).count == 2, "the main thread's Realm after awaits")
try realm.write { realm.delete(realm.objects(Todo.self)) }
mainRealm.refresh()
check(mainRealm.objects(Todo.self).isEmpty, "a write through the main thread's Realm")
print("Swift 6 client: actor, observe on an actor (by key path too), asyncWrite, writeAsync, Realm.open and a frozen object sent across work")
