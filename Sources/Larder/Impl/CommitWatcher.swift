import CLarder
import Foundation

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
            // A read transaction begun now sees the version reported: subscribers refresh to it.
            guard lar_watch_wait(watch, 0, &version) == LAR_OK else { continue }
            for subscriber in lock.withLock({ subscribers }) { subscriber.commitSeen() }
        }
    }
}
