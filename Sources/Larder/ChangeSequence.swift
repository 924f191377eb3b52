import Foundation

/// The changes of a collection or an object as an AsyncSequence (beyond Realm,
/// whose Combine publishers Linux lacks):
///
///     for await change in dogs.changes {
///         if case .update(let dogs, let deletions, let insertions, let modifications) = change { ... }
///     }
///
/// Each element is what `observe` would pass its callback (a collection's
/// `.initial` first), holding the live collection or object you iterate the
/// changes of, read on your thread: the iterator refreshes that Realm itself, in
/// the isolation of the loop (`next(isolation:)`), when a commit of any thread
/// or process wakes it. So iterate where the collection lives: on the main actor
/// or thread that made it. A loop that resumes on another thread traps with
/// "Realm accessed from incorrect thread.", as any use of a confined object there.
/// The sequence ends when the task is cancelled, and for an object after
/// `.deleted`; leaving the loop stops the observation.
public struct RealmChangeSequence<Change>: AsyncSequence {
    public typealias Element = Change
    public typealias Failure = Never

    /// Registers an observer on this thread that hands its changes to the sink; gives its token.
    fileprivate let register: (@escaping (Change) -> Void) -> NotificationToken
    fileprivate let instance: RealmInstance
    /// Whether a change ends the sequence (an object's `.deleted`).
    fileprivate let isLast: (Change) -> Bool

    init(instance: RealmInstance, isLast: @escaping (Change) -> Bool = { _ in false },
         register: @escaping (@escaping (Change) -> Void) -> NotificationToken) {
        self.instance = instance
        self.isLast = isLast
        self.register = register
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: ChangeIteration(sequence: self))
    }

    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let iteration: ChangeIteration<Change>

        public mutating func next() async -> Change? {
            await iteration.next(isolation: nil)
        }

        /// Runs in the loop's isolation (its actor's thread), where the collection lives.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Change? {
            await iteration.next(isolation: actor)
        }
    }
}

/// One loop over a change sequence: its observer, the changes it delivered and
/// not yet returned, and the wake-ups of the file's commit watcher.
final class ChangeIteration<Change> {
    private let instance: RealmInstance
    private let isLast: (Change) -> Bool
    private var pending: [Change] = []
    private var token: NotificationToken?
    private var finished = false
    private let wakeUps: CommitSignal
    private var signals: AsyncStream<Void>.Iterator

    fileprivate init(sequence: RealmChangeSequence<Change>) {
        instance = sequence.instance
        isLast = sequence.isLast
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        signals = stream.makeAsyncIterator()
        wakeUps = CommitSignal(continuation)
        CommitWatcher.watcher(for: instance.environment).add(wakeUps)
        token = sequence.register { [weak self] change in self?.pending.append(change) }
    }

    deinit {
        token?.invalidate()
        CommitWatcher.watcher(for: instance.environment).remove(wakeUps)
    }

    /// In actor's isolation: a nonisolated async function would leave the thread the Realm lives on.
    func next(isolation actor: isolated (any Actor)?) async -> Change? {
        while !finished {
            if pending.isEmpty { instance.refresh() }
            if !pending.isEmpty {
                let change = pending.removeFirst()
                if isLast(change) { finish() }
                return change
            }
            if await signals.next(isolation: actor) == nil || Task.isCancelled { finish() }
        }
        return nil
    }

    private func finish() {
        finished = true
        token?.invalidate()
        token = nil
    }
}

/// Wakes a change sequence's iterator after each commit.
final class CommitSignal: CommitSubscriber, @unchecked Sendable {
    private let continuation: AsyncStream<Void>.Continuation

    init(_ continuation: AsyncStream<Void>.Continuation) { self.continuation = continuation }

    func commitSeen() { continuation.yield() }
}

// MARK: The sequences

extension Results {
    /// This result's changes as an AsyncSequence (see RealmChangeSequence).
    public var changes: RealmChangeSequence<RealmCollectionChange<Results>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<RealmCollectionChange<Results>> {
        RealmChangeSequence(instance: instance) { sink in self.observe(keyPaths: keyPaths, sink) }
    }
}

extension List {
    /// This list's changes as an AsyncSequence (see RealmChangeSequence).
    public var changes: RealmChangeSequence<RealmCollectionChange<List>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<RealmCollectionChange<List>> {
        RealmChangeSequence(instance: observableRef().instance) { sink in self.observe(keyPaths: keyPaths, sink) }
    }
}

extension MutableSet {
    /// This set's changes as an AsyncSequence (see RealmChangeSequence).
    public var changes: RealmChangeSequence<RealmCollectionChange<MutableSet>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<RealmCollectionChange<MutableSet>> {
        RealmChangeSequence(instance: observableRef().instance) { sink in self.observe(keyPaths: keyPaths, sink) }
    }
}

extension Map {
    /// This map's changes as an AsyncSequence (see RealmChangeSequence).
    public var changes: RealmChangeSequence<RealmMapChange<Map>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<RealmMapChange<Map>> {
        RealmChangeSequence(instance: observableRef().instance) { sink in self.observe(keyPaths: keyPaths, sink) }
    }
}

extension LinkingObjects {
    /// These linking objects' changes as an AsyncSequence (see RealmChangeSequence).
    public var changes: RealmChangeSequence<RealmCollectionChange<LinkingObjects>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<RealmCollectionChange<LinkingObjects>> {
        guard let target = observedTarget else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        return RealmChangeSequence(instance: target.instance) { sink in self.observe(keyPaths: keyPaths, sink) }
    }
}

extension AnyRealmCollection {
    /// The wrapped collection's changes as an AsyncSequence (see RealmChangeSequence).
    public var changes: RealmChangeSequence<RealmCollectionChange<AnyRealmCollection>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<RealmCollectionChange<AnyRealmCollection>> {
        guard let instance = realm?.instance else {
            fatalError("Only collections which are managed by a Realm support change notifications")
        }
        return RealmChangeSequence(instance: instance) { sink in self.observe(keyPaths: keyPaths, sink) }
    }
}

/// Gives every model class `changes`, typed by the class.
public protocol _ObjectChanges: AnyObject {}

extension Object: _ObjectChanges {}

extension _ObjectChanges where Self: Object {
    /// This object's changes as an AsyncSequence (see RealmChangeSequence); it
    /// ends after `.deleted`.
    public var changes: RealmChangeSequence<ObjectChange<Self>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChangeSequence<ObjectChange<Self>> {
        guard let instance = core.realm else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        return RealmChangeSequence(instance: instance, isLast: { if case .deleted = $0 { true } else { false } }) { sink in
            self.observe(keyPaths: keyPaths, sink)
        }
    }
}
