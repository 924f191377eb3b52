import CLarder
import Foundation

extension RealmInstance {
    private static let cacheKey = "larder.realms"

    /// This thread's instance for configuration's file, opening it on first use.
    static func forCurrentThread(_ configuration: Realm.Configuration) throws -> RealmInstance {
        let dictionary = Thread.current.threadDictionary
        let cache = (dictionary[cacheKey] as? InstanceCache) ?? {
            let fresh = InstanceCache()
            dictionary[cacheKey] = fresh
            return fresh
        }()
        let path = configuration.path
        if let cached = cache.instance(at: path), cached.configuration.readOnly == configuration.readOnly {
            if cached.autorefresh { cached.refresh() }
            return cached
        }
        let instance = RealmInstance(configuration: configuration, environment: try Environment.open(configuration))
        if configuration.schemaVersion != 0 || configuration.objectTypes != nil {
            try instance.checkSchemaVersion()
        }
        cache.insert(instance, at: path)
        instance.cache = cache
        return instance
    }

    private func checkSchemaVersion() throws {
        var info = lar_env_info()
        lar_env_info_get(environment.handle, &info)
        if configuration.schemaVersion < info.schema_version {
            throw Realm.Error(.schemaMismatch, "Provided schema version \(configuration.schemaVersion) is less " +
                              "than last set version \(info.schema_version).")
        }
    }
}

/// A thread's Realm instances by path. It holds them unretained, not weakly: a
/// weak reference would put every retain of an instance on the runtime's slow path.
final class InstanceCache {
    private let lock = NSLock()
    private var instances: [String: Unmanaged<RealmInstance>] = [:]

    func instance(at path: String) -> RealmInstance? {
        lock.withLock { instances[path]?.takeUnretainedValue() }
    }

    func insert(_ instance: RealmInstance, at path: String) {
        lock.withLock { instances[path] = Unmanaged.passUnretained(instance) }
    }

    /// Called by the instance's deinit.
    func remove(_ instance: RealmInstance, at path: String) {
        lock.withLock {
            if instances[path]?.toOpaque() == Unmanaged.passUnretained(instance).toOpaque() {
                instances[path] = nil
            }
        }
    }
}
