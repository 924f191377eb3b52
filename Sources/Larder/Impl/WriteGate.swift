import CLarderSwift
import Dispatch
import Foundation

/// One writer at a time per file in this process, taken before LMDB's writer lock.
///
/// LMDB's writer lock is a process-shared mutex owned by the thread that took it:
/// waiting for it blocks that thread. An `asyncWrite` waits here instead, suspended,
/// so a cooperative-pool thread is never parked behind another writer of this
/// process; once it holds the gate only writers of other processes can still make
/// LMDB's lock wait. Synchronous writers take the gate too (blocking), so that a
/// writer holding the gate never finds the LMDB lock held by this process.
///
/// A blocked thread is handed the gate directly when it frees, before any task. A
/// suspended task is only woken to try again: the gate is never held by a task that
/// has no thread to run on, which could otherwise wait forever for threads of the
/// pool blocked here by synchronous writes.
final class WriteGate: @unchecked Sendable {
    // Unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var held = false
    private var waiters: [Waiter] = []
    private var nextWaiterID: UInt64 = 0
    /// The OS thread whose write holds the gate (`larder_swift_os_thread_token()`), once begun.
    private var ownerThread: UnsafeRawPointer?

    private struct Waiter {
        let id: UInt64
        /// A blocked thread, handed the gate; otherwise a task, woken to try again.
        let isThread: Bool
        let resume: @Sendable (Bool) -> Void  // true: handed over or woken; false: cancelled
    }

    /// Takes the gate, blocking the calling thread while another writer holds it.
    /// Returns at once when the holder is a write of this very thread (another
    /// instance of the file): the C core refuses that write with its message, where
    /// waiting would never end.
    func enter() {
        let semaphore = lock.withLock { () -> DispatchSemaphore? in
            if held && ownerThread == larder_swift_os_thread_token() { return nil }
            if !held {
                held = true
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            waiters.append(Waiter(id: takeWaiterID(), isThread: true, resume: { _ in semaphore.signal() }))
            return semaphore
        }
        semaphore?.wait()
    }

    /// Takes the gate, suspending while another writer holds it; throws
    /// CancellationError, without the gate, when the task is cancelled first.
    /// Runs on the caller's actor, so that taking the gate and going on with the
    /// write needs no hop (a hop would hold the gate while waiting for a thread).
    func enter(isolation: isolated (any Actor)? = #isolation) async throws {
        while try await tryEnterOrWait(isolation: isolation) == false {}
    }

    /// Takes the gate when it is free (true); else waits to be woken (false) or cancelled (throws).
    private func tryEnterOrWait(isolation: isolated (any Actor)?) async throws -> Bool {
        let id = lock.withLock { takeWaiterID() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Bool, Error>) in
                lock.lock()
                // Checked under the lock: a cancellation either came before (seen here)
                // or finds the waiter queued below.
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if !held {
                    held = true
                    lock.unlock()
                    continuation.resume(returning: true)
                } else {
                    waiters.append(Waiter(id: id, isThread: false, resume: { woken in
                        if woken { continuation.resume(returning: false) } else { continuation.resume(throwing: CancellationError()) }
                    }))
                    lock.unlock()
                }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> Waiter? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index)
            }
            waiter?.resume(false)
        }
    }

    /// Records the thread that began the write holding the gate.
    func didBeginWrite() {
        lock.withLock { ownerThread = larder_swift_os_thread_token() }
    }

    /// Hands the gate to the first blocked thread; with none, frees it and wakes the
    /// first waiting task to take it. Threads go first: each one waiting is a thread
    /// the tasks (and the pool) may need.
    func leave() {
        let next = lock.withLock { () -> Waiter? in
            ownerThread = nil
            if let index = waiters.firstIndex(where: \.isThread) { return waiters.remove(at: index) }
            held = false
            return waiters.isEmpty ? nil : waiters.removeFirst()
        }
        next?.resume(true)
    }

    private func takeWaiterID() -> UInt64 {
        nextWaiterID &+= 1
        return nextWaiterID
    }
}
