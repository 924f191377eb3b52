import CLarder
import Foundation

/// Identifies a write queued by `writeAsync` or `beginAsyncWrite`, or a `commitAsyncWrite`.
public typealias AsyncTransactionId = UInt32

/// Writes that wait for the file's writer without blocking: `asyncWrite` from an
/// actor or the main actor, and Realm's callback API (`writeAsync`, `beginAsyncWrite`,
/// `commitAsyncWrite`). A write transaction begins and ends on one thread with no
/// suspension in between (LMDB's writer lock belongs to the thread that took it);
/// what is asynchronous is the wait for other writers (Impl/WriteGate.swift).
///
/// Callback writes run where the Realm is confined: on its queue, on its actor, on
/// the main queue for the main thread's Realm (the program runs it: `dispatchMain()`,
/// `RunLoop.main.run()`, or a test's waiting for an expectation). A Realm confined to
/// another thread has no run loop on Linux: its queued writes and completions run
/// when that thread next refreshes it (`refresh()`, or `Realm()` with autorefresh).
extension Realm {
    /// Runs block in a write transaction once the file's other writers are done,
    /// suspending (not blocking) meanwhile, and commits it. If block throws, the write
    /// is cancelled and the error rethrown; if the task is cancelled before the write
    /// begins, throws CancellationError. Only for Realms confined to an actor or the main thread.
    @discardableResult
    public func asyncWrite<Result>(_isolation actor: isolated any Actor = #isolation,
                                   _ block: () throws -> Result) async throws -> Result {
        guard instance.confinement.allowsAsyncWrite else {
            fatalError("asyncWrite() can only be called on main thread or actor-isolated Realms")
        }
        instance.verifyThread()
        instance.checkCanBeginWrite()
        // Waiting for the gate this very write holds would never end.
        if instance.isInWriteTransaction { fatalError("The Realm is already in a write transaction") }
        try Task.checkCancellation()
        let queue = instance.asyncWriteQueue
        queue.inProgress += 1
        defer { queue.inProgress -= 1 }
        try await instance.environment.writeGate.enter()
        // Back on the actor; from here to the commit nothing suspends.
        if instance.isInWriteTransaction {  // begun while this waited
            instance.environment.writeGate.leave()
            fatalError("The Realm is already in a write transaction")
        }
        return try withConfinement(instance.threadToken) {
            instance.beginWriteHoldingGate()
            return try runInWrite(block)
        }
    }

    /// Queues block to run in a write transaction where this Realm is confined, after
    /// any write in progress; then commits (unless block ended the write) and calls
    /// onComplete with the commit's error, if any. Returns an id for `cancelAsyncWrite`.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void,
                           onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        instance.verifyThread()
        instance.checkCanBeginWrite()
        return instance.asyncWriteQueue.enqueue(.write(block, onComplete: onComplete), on: instance)
    }

    /// Queues a write transaction that block runs in; block ends it, usually with
    /// `commitAsyncWrite`. On a Realm confined to a queue or an actor the write must
    /// end before block returns (it cannot stay open from one block or await to the next).
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        instance.verifyThread()
        instance.checkCanBeginWrite()
        return instance.asyncWriteQueue.enqueue(.begin(asyncWriteBlock), on: instance)
    }

    /// Commits the write transaction, then calls onComplete later, where this Realm is
    /// confined, with the commit's error if any. The commit is visible (and observers
    /// told) at once. With allowGrouping, it is made without waiting for the disk, and
    /// one sync flushes a group (the commits of writes queued behind one another, once
    /// the last has run; otherwise those made until the next turn where this Realm is
    /// confined); their completions run after it, each then durable (with the sync's
    /// error, if it failed).
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false,
                                 _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        instance.verifyThread()
        guard isInWriteTransaction else { fatalError("Can't commit a non-existing write transaction") }
        var failure: Swift.Error?
        do { try instance.commitWrite(durable: !allowGrouping) } catch { failure = error }
        let queue = instance.asyncWriteQueue
        let id = queue.newID()
        if allowGrouping && failure == nil {
            queue.completeAfterSync(onComplete, on: instance)
            return id
        }
        queue.inProgress += 1
        queue.schedule(on: instance) {
            queue.inProgress -= 1
            onComplete?(failure)
        }
        return id
    }

    /// Removes a write queued by `writeAsync` or `beginAsyncWrite` that has not begun:
    /// its block never runs and its completion is not called. Does nothing for an id
    /// that has begun, ended or is unknown.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        instance.verifyThread()
        _ = instance.asyncWrites?.cancel(asyncTransactionId)
    }

    /// True while writes queued here have not run, an asyncWrite is under way or a
    /// commitAsyncWrite's completion has not been called.
    public var isPerformingAsynchronousWriteOperations: Bool {
        instance.verifyThread()
        return instance.asyncWrites?.isPerforming ?? false
    }
}

extension Environment {
    /// Flushes the commits made without their fsyncs to disk; the error when that failed.
    func sync() -> Realm.Error? {
        let rc = lar_env_sync(handle)
        return rc == LAR_OK ? nil : Realm.Error.last(rc, context: "Cannot write the Realm at '\(path)' to disk")
    }
}

extension RealmInstance {
    var asyncWriteQueue: AsyncWriteQueue {
        if let asyncWrites { return asyncWrites }
        let created = AsyncWriteQueue()
        asyncWrites = created
        return created
    }

    /// The traps of beginWrite, raised when a write is asked for rather than when it runs.
    func checkCanBeginWrite() {
        if isFrozen { fatalError("Can't perform transactions on a frozen Realm") }
        if configuration.readOnly { fatalError("Can't perform transactions on read-only Realms.") }
    }
}
