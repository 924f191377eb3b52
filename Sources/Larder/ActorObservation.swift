import Foundation

// Notifications delivered on an actor, as in Realm: the block runs isolated to the
// actor, with the collection or object read in a Realm confined to that actor
// (one the observation owns), soon after any commit of any thread or process. The
// call returns once the observer is in place there: a collection's `.initial` has
// been delivered, and later commits are seen.

extension RealmCollection {
    /// `observe(keyPaths:on:_:)` with the block run isolated to actor: `.initial`, then `.update`s.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void)
    async -> NotificationToken {
        guard let observable = self as? any _ObservableCollection else {
            fatalError("This collection does not support change notifications")
        }
        return await observeOnActor(actor) { place in
            observable._observeAny(keyPaths: keyPaths, at: place) { change in
                deliver(UncheckedSendable(value: change.map { $0 as! Self }), to: block, on: actor)
            }
        }
    }
}

extension Map {
    /// `observe(keyPaths:on:_:)` with the block run isolated to actor: `.initial`, then `.update`s by key.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmMapChange<Map>) -> Void)
    async -> NotificationToken {
        await observeOnActor(actor) { place in
            observe(keyPaths: keyPaths, at: place) { change in
                deliver(UncheckedSendable(value: change), to: block, on: actor)
            }
        }
    }
}

extension Object {
    /// `observe(keyPaths:on:_:)` with the block run isolated to actor: `.change`s, then `.deleted`.
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void)
    async -> NotificationToken {
        await observeOnActor(actor) { place in
            observe(keyPaths: keyPaths, at: place) { (change: ObjectChange<T>) in
                deliver(UncheckedSendable(value: change), to: block, on: actor)
            }
        }
    }
}

/// Starts an observation at actor (start registers it with the place it is given)
/// and returns its token once the actor has registered it.
private func observeOnActor(_ actor: any Actor, _isolation: isolated (any Actor)? = #isolation,
                            _ start: (ObservationPlace) -> NotificationToken) async -> NotificationToken {
    var token: NotificationToken?
    await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
        token = start(.actor(actor, registered: { registered.resume() }))
    }
    return token!
}

/// Calls block with change on actor, which is running this (the observation's
/// instance is confined to it, and its deliveries run there). The compiler cannot
/// see that change, made by that instance, already belongs to the actor.
private func deliver<A: Actor, Change>(_ change: UncheckedSendable<Change>,
                                       to block: @Sendable (isolated A, Change) -> Void, on actor: A) {
    actor.assumeIsolated { block($0, change.value) }
}
