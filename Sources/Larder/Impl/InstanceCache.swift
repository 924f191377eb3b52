import CLarder
import CLarderSwift
import Foundation

extension RealmInstance {
    private static let threadDictionaryKey = "larder.realms"
    private static let deliveringKey = "larder.delivering"

    /// This thread's instance for configuration's file, opening it on first use. The
    /// main thread and the main queue's blocks share one (Confinement.swift).
    static func forCurrentThread(_ configuration: Realm.Configuration) throws -> RealmInstance {
        if QueueContext.isMainQueueOrThread {
            return try cached(configuration, in: QueueContext.main.cache, confinement: .thread(isMain: true))
        }
        let dictionary = Thread.current.threadDictionary
        if let delivering = try delivering(configuration, in: dictionary) { return delivering }
        let cache = (dictionary[threadDictionaryKey] as? InstanceCache) ?? {
            let fresh = InstanceCache()
            dictionary[threadDictionaryKey] = fresh
            return fresh
        }()
        return try cached(configuration, in: cache, confinement: .thread(isMain: false))
    }

    /// queue's instance for configuration's file; the caller runs on queue. Inside a
    /// queue observation's delivery, the observation's instance (`whileDelivering`).
    static func forQueue(_ configuration: Realm.Configuration, _ queue: DispatchQueue) throws -> RealmInstance {
        let context = QueueContext.of(queue)
        if QueueContext.current !== context { fatalError("Realm opened from incorrect dispatch queue.") }
        if let delivering = try delivering(configuration, in: Thread.current.threadDictionary) { return delivering }
        return try cached(configuration, in: context.cache, confinement: .queue(context))
    }

    /// The instance a queue observation delivers in: the queue's for configuration's
    /// file (made with environment when the queue has none yet), shared by the queue's
    /// observations as in Realm. The caller runs on the queue. An observation gets
    /// an instance of its own on the main queue (whose cached instance is the main
    /// thread's) and where the queue's was opened with other settings (read-only).
    static func forQueueObservation(_ configuration: Realm.Configuration, environment: Environment,
                                    context: QueueContext) -> RealmInstance {
        let key = cacheKey(configuration)
        let cached = context === QueueContext.main ? nil : context.cache.instance(at: key)
        if let cached, (try? cached.checkSameSettings(as: configuration)) != nil { return cached }
        let instance = RealmInstance(configuration: configuration, environment: environment, confinement: .queue(context))
        if context === QueueContext.main || cached != nil { return instance }
        context.cache.insert(instance, at: key)
        instance.cache = context.cache
        return instance
    }

    /// Runs body, a queue observation's delivery, with instance as the one `Realm()` and
    /// `Realm(configuration:queue:)` give meanwhile: a callback's Realm is its collection's
    /// `realm` (Realm's queue observers use the queue's Realm), not the thread's.
    @discardableResult
    static func whileDelivering<R>(_ instance: RealmInstance, _ body: () -> R) -> R {
        let dictionary = Thread.current.threadDictionary
        let previous = dictionary[deliveringKey]
        dictionary[deliveringKey] = instance
        defer { dictionary[deliveringKey] = previous }
        return body()
    }

    /// The instance a delivery on the current queue runs for, when it is configuration's
    /// file. A block of another queue run synchronously from the delivery is not in it.
    private static func delivering(_ configuration: Realm.Configuration,
                                   in dictionary: NSMutableDictionary) throws -> RealmInstance? {
        guard let instance = dictionary[deliveringKey] as? RealmInstance,
              case .queue(let context) = instance.confinement, context === QueueContext.current,
              cacheKey(instance.configuration) == cacheKey(configuration) else { return nil }
        try instance.checkSameSettings(as: configuration)
        return instance
    }

    private static func cached(_ configuration: Realm.Configuration, in cache: InstanceCache,
                               confinement: Confinement) throws -> RealmInstance {
        let key = cacheKey(configuration)
        if let cached = cache.instance(at: key) {
            try cached.checkSameSettings(as: configuration)
            cached.autorefreshOrAnnounce()
            return cached
        }
        let instance = RealmInstance(configuration: configuration, environment: try Environment.open(configuration),
                                     confinement: confinement)
        if let error = instance.activeVersionsError() { throw error }
        cache.insert(instance, at: key)
        instance.cache = cache
        return instance
    }

    /// A new instance confined to actor; actors keep their Realm themselves.
    static func forActor(_ configuration: Realm.Configuration, _ actor: any Actor) throws -> RealmInstance {
        let instance = RealmInstance(configuration: configuration, environment: try Environment.open(configuration),
                                     confinement: .actor(actor, ActorContext()))
        if let error = instance.activeVersionsError() { throw error }
        return instance
    }

    /// Instances are per file and per list of classes: a Realm limited to some
    /// classes is not the one that may use them all.
    static func cacheKey(_ configuration: Realm.Configuration) -> String {
        guard let types = configuration.objectTypes else { return configuration.path }
        return configuration.path + "\n" + types.map { "\(ObjectIdentifier($0).hashValue)" }.joined(separator: ",")
    }

    /// Realm refuses to open a file again on a thread with settings its instance cannot honour.
    private func checkSameSettings(as other: Realm.Configuration) throws {
        let path = other.path
        if configuration.readOnly != other.readOnly {
            throw Realm.Error(.fail, "Realm at path '\(path)' already opened with different read permissions")
        }
        if configuration.schemaVersion != other.schemaVersion {
            throw Realm.Error(.fail, "Realm at path '\(path)' already opened with different schema version.")
        }
    }
}


/// A thread's (or queue's) Realm instances by `cacheKey`, unretained. An instance's last
/// reference may go on another thread while its own thread looks it up: a lookup retains
/// an instance only if its deinit has not begun (`larder_swift_try_retain`, the test weak
/// references make), and the deinit removes the entry, under the lock, before the
/// instance's memory is freed. Not a weak reference: that gives the instance a side table,
/// and every retain and release of it (one per object read from it) takes Swift's slow path.
final class InstanceCache {
    private let lock = NSLock()
    private var entries: [String: Unmanaged<RealmInstance>] = [:]

    func instance(at key: String) -> RealmInstance? {
        lock.withLock {
            guard let entry = entries[key], larder_swift_try_retain(entry.toOpaque()) != 0 else { return nil }
            return entry.takeRetainedValue()
        }
    }

    func insert(_ instance: RealmInstance, at key: String) {
        lock.withLock { entries[key] = Unmanaged.passUnretained(instance) }
    }

    /// Called by the instance's deinit (its memory is not reused before this returns,
    /// so its address names no other instance).
    func remove(_ instance: RealmInstance, at key: String) {
        lock.withLock {
            if entries[key]?.toOpaque() == Unmanaged.passUnretained(instance).toOpaque() { entries[key] = nil }
        }
    }
}
