import Dispatch
import Foundation

/// A value the compiler cannot prove Sendable, handed to a queue or an actor that
/// is the only place it is then used: an instance to its own confinement.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}

/// Runs body isolated to actor.
func runIsolated(_ actor: isolated any Actor, _ body: UncheckedSendable<() -> Void>) {
    body.value()
}

/// An instance's writes queued by `writeAsync` and `beginAsyncWrite`, run one by one
/// where the instance is confined, each once no write of this instance is open and
/// the file's write gate is free; and the count of asynchronous work in progress.
final class AsyncWriteQueue {
    enum Work {
        /// writeAsync: the block, then a commit unless it ended the write itself.
        case write(() -> Void, onComplete: ((Swift.Error?) -> Void)?)
        /// beginAsyncWrite: the block runs in the write, which it commits or cancels.
        case begin(() -> Void)
    }

    private var pending: [(id: AsyncTransactionId, work: Work)] = []
    private var lastID: AsyncTransactionId = 0
    private var isScheduled = false
    /// asyncWrite calls under way and completions of commitAsyncWrite not yet delivered.
    var inProgress = 0
    /// Work a thread-confined instance off the main thread runs when it refreshes (no run loop on Linux).
    private var threadWork: [() -> Void] = []
    /// Completions of grouped commits (made without their fsyncs), called after one sync.
    private var awaitingSync: [((Swift.Error?) -> Void)?] = []
    /// The syncs grouped commits asked for: one per group (tests read it).
    private(set) var groupSyncs = 0
    /// Drains under way: their grouped commits wait for the end of the run to sync.
    private var drains = 0

    var isPerforming: Bool { !pending.isEmpty || inProgress > 0 }

    func newID() -> AsyncTransactionId {
        lastID &+= 1
        return lastID
    }

    func enqueue(_ work: Work, on instance: RealmInstance) -> AsyncTransactionId {
        let id = newID()
        pending.append((id, work))
        scheduleDrain(instance)
        return id
    }

    /// Drops a queued write that has not started; false when there is none with id.
    func cancel(_ id: AsyncTransactionId) -> Bool {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return false }
        pending.remove(at: index)
        return true
    }

    /// Each end of a write of the instance may let the next queued one run.
    func writeDidEnd(_ instance: RealmInstance) {
        if !pending.isEmpty { scheduleDrain(instance) }
    }

    private func scheduleDrain(_ instance: RealmInstance) {
        if isScheduled { return }
        isScheduled = true
        if case .actor(let actor, _) = instance.confinement {
            let box = UncheckedSendable(value: (self, instance))
            Task { await box.value.0.drain(box.value.1, isolatedTo: actor) }
        } else {
            schedule(on: instance) { [self] in
                isScheduled = false
                drainBlocking(instance)
            }
        }
    }

    /// Runs body later, where instance is confined and under its token: on its queue,
    /// on its actor, on the main queue for the main thread's instance, and for another
    /// thread's instance when that thread next refreshes it.
    func schedule(on instance: RealmInstance, _ body: @escaping () -> Void) {
        let token = instance.threadToken
        let job = UncheckedSendable(value: { withConfinement(token, body) })
        switch instance.confinement {
        case .queue(let context): context.queue.async { job.value() }
        case .actor(let actor, _): Task { await runIsolated(actor, job) }
        case .thread(isMain: true): DispatchQueue.main.async { job.value() }
        case .thread(isMain: false): threadWork.append(body)
        case .frozen: fatalError("Can't perform transactions on a frozen Realm")  // checkCanBeginWrite stops it first
        }
    }

    /// Calls onComplete, for a commit made without its fsyncs, once a sync has made it
    /// durable. Commits of queued writes run one after another form a group that syncs
    /// when the run ends; another one syncs at the next turn where instance is confined,
    /// with whatever commits came meanwhile.
    func completeAfterSync(_ onComplete: ((Swift.Error?) -> Void)?, on instance: RealmInstance) {
        inProgress += 1
        awaitingSync.append(onComplete)
        if awaitingSync.count == 1 && drains == 0 { schedule(on: instance) { [self] in syncGroup(instance) } }
    }

    /// Syncs the file once for the commits awaiting it, then calls their completions.
    private func syncGroup(_ instance: RealmInstance) {
        if awaitingSync.isEmpty { return }
        let group = awaitingSync
        awaitingSync = []
        groupSyncs += 1
        let failure = instance.environment.sync()
        for onComplete in group {
            inProgress -= 1
            onComplete?(failure)
        }
    }

    /// Runs queued writes through body (one drain; a completion may run another inside
    /// it), then syncs their grouped commits once the outermost ends.
    private func draining(_ instance: RealmInstance, _ body: () -> Void) {
        drains += 1
        body()
        drains -= 1
        if drains == 0 { syncGroup(instance) }
    }

    /// What `refresh()` runs on a thread-confined instance off the main thread.
    func runThreadWork() {
        while !threadWork.isEmpty { threadWork.removeFirst()() }
    }

    /// Runs the queued writes, waiting for the write gate on this thread (a queue's or a thread's).
    private func drainBlocking(_ instance: RealmInstance) {
        draining(instance) {
            while !instance.isInWriteTransaction, let next = pending.first {
                pending.removeFirst()
                instance.beginWrite()
                run(next.work, in: instance)
            }
        }
    }

    /// Runs the queued writes on actor, suspended rather than blocked while another writer holds the gate.
    private func drain(_ instance: RealmInstance, isolatedTo actor: isolated any Actor) async {
        drains += 1
        defer {
            isScheduled = false
            drains -= 1
            if drains == 0 { withConfinement(instance.threadToken) { syncGroup(instance) } }
        }
        while !instance.isInWriteTransaction, !pending.isEmpty {
            inProgress += 1
            // Nothing cancels this task: it does not throw.
            do { try await instance.environment.writeGate.enter() } catch { inProgress -= 1; return }
            inProgress -= 1
            // The queue may have changed, or a write begun, while this waited.
            guard !instance.isInWriteTransaction, !pending.isEmpty else {
                instance.environment.writeGate.leave()
                return
            }
            let next = pending.removeFirst()
            withConfinement(instance.threadToken) {
                instance.beginWriteHoldingGate()
                run(next.work, in: instance)
            }
        }
    }

    private func run(_ work: Work, in instance: RealmInstance) {
        switch work {
        case .begin(let block):
            block()
        case .write(let block, let onComplete):
            block()
            var failure: Swift.Error?
            if instance.isInWriteTransaction {
                do { try instance.commitWrite() } catch { failure = error }
            }
            onComplete?(failure)
        }
    }
}
