import CLarder
import Foundation

/// Where an observation delivers when not on the observing thread: a
/// DispatchQueue, or an actor (registered is called once the observer is in place
/// there and owes nothing more: the async `observe(on: actor)` returns then).
enum ObservationPlace {
    case queue(DispatchQueue)
    case actor(any Actor, registered: @Sendable () -> Void)
}

/// An observer whose callbacks run on a DispatchQueue or an actor. It has its own
/// Realm instance, confined there (the callbacks run inside its token, and the
/// queue's other blocks or the actor's code may use what they are given). The
/// file's `CommitWatcher` wakes it after each commit of any thread or process; it
/// then refreshes its instance there, which delivers as on any thread.
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
            let instance = RealmInstance(configuration: configuration, environment: environment,
                                         confinement: observation.confinement)
            observation.instance = instance
            register(instance)
            instance.notifier.deliver()
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
            self.instance?.refresh()
        }
    }
}

/// What a commit watcher wakes after each commit; called on the watcher's thread.
protocol CommitSubscriber: AnyObject {
    func commitSeen()
}

/// Per open file, a thread that waits for commits of any thread or process
/// (`lar_watch`, a file descriptor it polls: no busy loop) and wakes the file's
/// subscribers (queue observations, change sequences). It runs while the file has some.
final class CommitWatcher: @unchecked Sendable {
    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var watchers: [ObjectIdentifier: CommitWatcher] = [:]

    private let environment: Environment
    private let lock = NSLock()
    private var subscribers: [any CommitSubscriber] = []
    private var watch: OpaquePointer?
    /// Written to stop the thread's poll.
    private var stopPipe: [Int32] = [-1, -1]

    private init(environment: Environment) {
        self.environment = environment
    }

    /// The watcher of environment's file, made on first use.
    static func watcher(for environment: Environment) -> CommitWatcher {
        registryLock.withLock {
            let id = ObjectIdentifier(environment)
            if let watcher = watchers[id] { return watcher }
            let watcher = CommitWatcher(environment: environment)
            watchers[id] = watcher
            return watcher
        }
    }

    func add(_ subscriber: any CommitSubscriber) {
        lock.withLock {
            subscribers.append(subscriber)
            if subscribers.count == 1 { startThread() }
        }
    }

    func remove(_ subscriber: any CommitSubscriber) {
        let isIdle: Bool = lock.withLock {
            subscribers.removeAll { $0 === subscriber }
            if subscribers.isEmpty { stopThread() }
            return subscribers.isEmpty
        }
        // Lets the file close; a watcher that gains a subscriber meanwhile runs on, unlisted.
        if isIdle {
            Self.registryLock.withLock {
                if Self.watchers[ObjectIdentifier(environment)] === self { Self.watchers[ObjectIdentifier(environment)] = nil }
            }
        }
    }

    /// With the lock held.
    private func startThread() {
        var opened: OpaquePointer?
        var rc = lar_watch_open(environment.handle, &opened)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot watch the Realm at '\(environment.path)' for commits") }
        var fd: Int32 = -1
        rc = lar_watch_fd(opened, &fd)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot watch the Realm at '\(environment.path)' for commits") }
        var pipeEnds: [Int32] = [-1, -1]
        if pipe(&pipeEnds) != 0 { fatalError("Cannot watch the Realm at '\(environment.path)': pipe failed") }
        watch = opened
        stopPipe = pipeEnds
        let handles = WatchHandles(watch: opened!, fd: fd, stopPipe: pipeEnds)
        let thread = Thread { [self] in run(handles) }
        thread.name = "Larder commit watcher"
        thread.start()
    }

    /// With the lock held: the thread closes the watch and the pipe as it ends.
    private func stopThread() {
        guard watch != nil else { return }
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
        watch = nil
    }

    /// Returns once a new read transaction sees version. The watch reports the
    /// version of the file's newest meta page, which LMDB writes a moment before
    /// it lets new readers use it: a subscriber refreshing in between would miss the commit.
    private func waitUntilReadable(_ version: UInt64) {
        for attempt in 0..<10_000 {
            var txn: OpaquePointer?
            guard lar_txn_begin(environment.handle, LAR_TXN_READ, &txn) == LAR_OK else { return }
            var seen: UInt64 = 0
            let rc = lar_txn_version(txn, &seen)
            lar_txn_free(txn)
            if rc != LAR_OK || seen >= version { return }
            if attempt < 100 { sched_yield() } else { usleep(100) }
        }
    }

    /// What the watcher's thread owns: the watch and the pipe that stops it.
    private struct WatchHandles: @unchecked Sendable {
        let watch: OpaquePointer
        let fd: Int32
        let stopPipe: [Int32]
    }

    private func run(_ handles: WatchHandles) {
        let (watch, fd, stopPipe) = (handles.watch, handles.fd, handles.stopPipe)
        defer {
            lar_watch_close(watch)
            close(stopPipe[0])
            close(stopPipe[1])
        }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0)]
        while true {
            if poll(&fds, 2, -1) < 0 && errno != EINTR { return }
            if fds[1].revents != 0 { return }
            var version: UInt64 = 0
            guard lar_watch_wait(watch, 0, &version) == LAR_OK else { continue }
            waitUntilReadable(version)
            for subscriber in lock.withLock({ subscribers }) { subscriber.commitSeen() }
        }
    }
}
