import Foundation

// `observe` with key paths of the model (`[\Dog.name]`) where Realm declares them
// beyond the queue overloads of CollectionObservation.swift and ObjectObservation.swift:
// a map of objects on a queue, and collections, objects and maps on an actor. Each
// names the key paths' properties and observes as the string overload does.

extension Map where Value: _QueryOptional, Value.Wrapped: Object {
    /// `observe(keyPaths:on:_:)` with key paths of the value objects' model.
    public func observe(keyPaths: [PartialKeyPath<Value.Wrapped>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        observe(keyPaths: propertyNames(keyPaths), on: queue, block)
    }

    /// The actor overload with key paths of the value objects' model.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Value.Wrapped>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmMapChange<Map>) -> Void)
    async -> NotificationToken {
        await observe(keyPaths: propertyNames(keyPaths), on: actor, block)
    }
}

extension RealmCollection where Element: Object {
    /// The actor overload with key paths of the model: `observe(keyPaths: [\Dog.name], on: actor)`.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void)
    async -> NotificationToken {
        await observe(keyPaths: propertyNames(keyPaths), on: actor, block)
    }
}

extension Object {
    /// The actor overload with key paths of the model: `dog.observe(keyPaths: [\Dog.name], on: actor)`.
    public func observe<A: Actor, T: Object>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void)
    async -> NotificationToken {
        await observe(keyPaths: propertyNames(keyPaths), on: actor, block)
    }
}

/// The names of the properties keyPaths read, as observe's string key paths.
private func propertyNames<Root: Object>(_ keyPaths: [PartialKeyPath<Root>]) -> [String] {
    keyPaths.map { Root.schema.propertyName(ofAny: $0, root: Root.self, for: "observe(keyPaths:)") }
}
