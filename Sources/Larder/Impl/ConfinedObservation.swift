import CLarder
import Foundation

/// Where an observation delivers when not on the observing thread: a
/// DispatchQueue, or an actor (registered is called once the observer is in place
/// there and owes nothing more: the async `observe(on: actor)` returns then).
enum ObservationPlace {
    case queue(DispatchQueue)
    case actor(any Actor, registered: @Sendable () -> Void)
}

/// An observer whose callbacks run on a DispatchQueue or an actor, in a Realm
/// instance confined there (the callbacks run inside its token, and the queue's
/// other blocks or the actor's code may use what they are given). On a queue it is
/// the queue's instance for the file, as in Realm: the one `Realm(configuration:queue:)`
/// gives there, shared by every observation on the queue and kept alive by them;
/// on an actor, one of the observation's own. The file's `CommitWatcher` wakes it
/// after each commit of any thread or process; it then refreshes the instance there
/// (or, when its autorefresh is off, tells its Realm observers `.refreshRequired`),
/// which delivers as on any thread.
final class ConfinedObservation: CommitSubscriber, @unchecked Sendable {
    private let place: ObservationPlace
    private let confinement: Confinement
    private let token: NotificationToken
    /// The instance; read and written only where it is confined, inside the confinement.
    private var instance: RealmInstance?
    private let lock = NSLock()
    /// Whether a refresh is queued: commits that come before it runs share it.
    private var refreshQueued = false

    private init(place: ObservationPlace, token: NotificationToken) {
        self.place = place
        self.token = token
        switch place {
        case .queue(let queue): confinement = .queue(QueueContext.of(queue))
        case .actor(let actor, _): confinement = .actor(actor, ActorContext())
        }
    }

    /// Starts an observation at place: register, there, adds the observer to the
    /// observation's instance (rebuilding what it observes there), which then
    /// delivers what it owes (a collection's `.initial`).
    static func start(at place: ObservationPlace, token: NotificationToken, configuration: Realm.Configuration,
                      environment: Environment, register: @escaping (RealmInstance) -> Void) {
        let observation = ConfinedObservation(place: place, token: token)
        observation.run {
            defer { if case .actor(_, let registered) = place { registered() } }
            if observation.token.isInvalidated { return }
            let instance: RealmInstance
            if case .queue(let context) = observation.confinement {
                instance = RealmInstance.forQueueObservation(configuration, environment: environment, context: context)
            } else {
                instance = RealmInstance(configuration: configuration, environment: environment,
                                         confinement: observation.confinement)
            }
            observation.instance = instance
            RealmInstance.whileDelivering(instance) {
                register(instance)
                instance.notifier.deliver()
            }
        }
        let watcher = CommitWatcher.watcher(for: environment)
        watcher.add(observation)
        token.whenInvalidated {
            watcher.remove(observation)
            // The instance goes where it lives.
            observation.run {
                observation.instance?.observers?.removeInvalidated()
                observation.instance = nil
            }
        }
    }

    /// Runs body later at the observation's place, inside its confinement. Made on
    /// the observer's thread or the watcher's, body is then used only there.
    private func run(_ body: @escaping () -> Void) {
        let token = confinement.token
        let job = UncheckedSendable(value: { withConfinement(token, body) })
        switch place {
        case .queue(let queue): queue.async { job.value() }
        case .actor(let actor, _): Task { await runIsolated(actor, job) }
        }
    }

    /// Called by the watcher's thread after a commit.
    func commitSeen() {
        let queued: Bool = lock.withLock {
            defer { refreshQueued = true }
            return refreshQueued
        }
        if queued { return }
        run {
            self.lock.withLock { self.refreshQueued = false }
            if self.token.isInvalidated { return }
            guard let instance = self.instance else { return }
            RealmInstance.whileDelivering(instance) { instance.autorefreshOrAnnounce() }
        }
    }
}
