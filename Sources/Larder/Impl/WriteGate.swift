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
/// writer holding the gate never finds the LMDB lock held by this process. Waiters
/// are served in arrival order.
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
        let resume: @Sendable (Bool) -> Void  // true: the gate is handed over; false: cancelled
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
            waiters.append(Waiter(id: takeWaiterID(), resume: { _ in semaphore.signal() }))
            return semaphore
        }
        semaphore?.wait()
    }

    /// Takes the gate, suspending while another writer holds it; throws
    /// CancellationError, without the gate, when the task is cancelled first.
    func enter() async throws {
        let id = lock.withLock { takeWaiterID() }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, Error>) in
                lock.lock()
                // Checked under the lock: a cancellation either came before (seen here)
                // or finds the waiter queued below.
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if !held {
                    held = true
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiters.append(Waiter(id: id, resume: { handedOver in
                        if handedOver { continuation.resume() } else { continuation.resume(throwing: CancellationError()) }
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

    /// Hands the gate to the first waiter, or frees it.
    func leave() {
        let next = lock.withLock { () -> Waiter? in
            ownerThread = nil
            if waiters.isEmpty {
                held = false
                return nil
            }
            return waiters.removeFirst()
        }
        next?.resume(true)
    }

    private func takeWaiterID() -> UInt64 {
        nextWaiterID &+= 1
        return nextWaiterID
    }
}
