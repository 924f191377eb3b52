import CLarder
import Foundation

/// What a commit watcher wakes after each commit; called on the watcher's thread.
protocol CommitSubscriber: AnyObject {
    func commitSeen()
}

/// Per open file, a thread that waits for commits of any thread or process
/// (`lar_watch`, a file descriptor it polls: no busy loop) and wakes the file's
/// subscribers (queue observations, change sequences). It starts with the file's first
/// subscriber and runs until the file closes (`Environment`'s deinit calls `end(for:)`):
/// a subscriber that comes and goes makes no thread and no inotify instance of its own,
/// where one per start ran out of inotify instances (closing one is slow in the kernel).
final class CommitWatcher: @unchecked Sendable {
    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var watchers: [ObjectIdentifier: CommitWatcher] = [:]

    /// Unowned: the watcher must not keep its file open; the file's deinit ends it.
    private unowned let environment: Environment
    private let lock = NSLock()
    private var subscribers: [any CommitSubscriber] = []
    /// Set while the thread runs.
    private var stopPipe: [Int32]?
    private var thread: Thread?
    private let ended = DispatchSemaphore(value: 0)

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

    /// Ends the thread of environment's watcher, if it has one, before the file closes:
    /// the thread reads the file's LMDB state. Called by `Environment`'s deinit.
    static func end(for environment: Environment) {
        let watcher = registryLock.withLock { watchers.removeValue(forKey: ObjectIdentifier(environment)) }
        watcher?.stop()
    }

    func add(_ subscriber: any CommitSubscriber) {
        lock.withLock {
            subscribers.append(subscriber)
            if stopPipe == nil { startThread() }
        }
    }

    func remove(_ subscriber: any CommitSubscriber) {
        lock.withLock { subscribers.removeAll { $0 === subscriber } }
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
        stopPipe = pipeEnds
        let handles = WatchHandles(watch: opened!, fd: fd, stopPipe: pipeEnds)
        let thread = Thread { [self] in run(handles) }
        thread.name = "Larder commit watcher"
        self.thread = thread
        thread.start()
    }

    /// Tells the thread to end and waits until it has, unless this is that thread (the
    /// file's last reference went in a subscriber's wake-up): it then ends after the
    /// wake-up without reading the file again.
    private func stop() {
        let running: Thread? = lock.withLock {
            guard let stopPipe else { return nil }
            var byte: UInt8 = 1
            _ = write(stopPipe[1], &byte, 1)
            return thread
        }
        guard let running, running !== Thread.current else { return }
        ended.wait()
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
            ended.signal()
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
