import Dispatch
import Foundation

/// Opening a Realm confined to a dispatch queue or to an actor, rather than to
/// the calling thread (see Impl/Confinement.swift for how each is checked).
extension Realm {
    /// The default Realm, confined to queue when one is given: it may then be used
    /// from any block running on queue, whatever thread runs it. Must be called on queue.
    public init(queue: DispatchQueue?) throws {
        try self.init(configuration: .defaultConfiguration, queue: queue)
    }

    /// A Realm confined to queue (see `init(queue:)`), or to the calling thread when queue is nil.
    public init(configuration: Configuration, queue: DispatchQueue?) throws {
        guard let queue else {
            try self.init(configuration: configuration)
            return
        }
        self.init(instance: try RealmInstance.forQueue(configuration, queue))
    }
}

extension Realm {
    /// A Realm confined to actor: usable only from code isolated to it, on whichever
    /// thread the actor runs. `asyncWrite` writes from there without blocking.
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: A) async throws {
        self.init(instance: try RealmInstance.forActor(configuration, actor))
    }

    /// A Realm confined to the caller's actor. On the main actor too it is confined
    /// to the actor, not to a thread: on Linux a program in `dispatchMain()` runs the
    /// main queue, and so the main actor, on threads other than the main one.
    public static func open(configuration: Configuration = .defaultConfiguration,
                            _isolation actor: isolated any Actor = #isolation) async throws -> Realm {
        Realm(instance: try RealmInstance.forActor(configuration, actor))
    }
}
