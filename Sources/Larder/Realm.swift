import CLarder
import Foundation

/// A database, as in Realm: `let realm = try Realm()`.
///
/// A Realm value refers to this thread's instance for its file: `Realm()` on
/// one thread returns the same instance each time, and the instance, with its
/// objects and results, must stay on that thread. It reads one consistent
/// version of the file until it refreshes or writes.
public struct Realm: Equatable {
    @usableFromInline let instance: RealmInstance

    init(instance: RealmInstance) {
        self.instance = instance
    }

    public init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    public init(configuration: Configuration) throws {
        instance = try RealmInstance.forCurrentThread(configuration)
    }

    public init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    public var configuration: Configuration { instance.configuration }

    /// The schema of the file: every class it stores, including classes this
    /// program declares no model for.
    public var schema: Schema {
        instance.verifyThread()
        return Schema(environment: instance.environment,
                      modelClasses: configuration.objectTypes ?? ClassSchema.all.map(\.type))
    }

    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.instance === rhs.instance }

    // MARK: Transactions

    public var isInWriteTransaction: Bool { instance.isInWriteTransaction }

    /// Runs block in a write transaction and commits it; if block throws, the
    /// transaction is cancelled and the error rethrown. A write that failed (for
    /// example on a duplicate primary key) is cancelled and its error thrown here.
    /// The observers of tokens registered on this thread are not told of this
    /// write (those of other threads and queues are).
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [],
                              _ block: () throws -> Result) throws -> Result {
        beginWrite()
        return try runInWrite(withoutNotifying: tokens, block)
    }

    /// Runs block in the write just begun and commits it, or cancels it when block throws.
    func runInWrite<Result>(withoutNotifying tokens: [NotificationToken] = [],
                            _ block: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Begins a write transaction, waiting for writers on other threads and
    /// processes, and moves this Realm to the newest version.
    public func beginWrite() { instance.beginWrite() }

    /// Commits the write transaction; throws, having cancelled it, when a write in it failed.
    /// Then tells this thread's observers what changed, except those of tokens.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try instance.commitWrite(withoutNotifying: tokens)
    }

    /// Discards the write transaction. Objects added in it become invalidated.
    public func cancelWrite() { instance.cancelWrite() }

    /// Moves to the newest version and delivers this thread's notifications.
    /// Returns false inside a write transaction.
    @discardableResult
    public func refresh() -> Bool { instance.refresh() }

    /// Linux has no run loop to refresh on: when true, `Realm()` refreshes the
    /// instance it hands out for this thread.
    public var autorefresh: Bool {
        get { instance.autorefresh }
        nonmutating set { instance.autorefresh = newValue }
    }

    /// Ends the read transaction; objects read so far become invalidated and the
    /// next read starts at the newest version. Cancels a write in progress.
    public func invalidate() { instance.invalidate() }

    // MARK: Writes

    public enum UpdatePolicy: Int, Sendable {
        /// Adding an object whose primary key exists is an error.
        case error = 1
        /// Writes only the properties whose values differ.
        case modified = 3
        /// Writes every property.
        case all = 2
    }

    /// Adds an unmanaged object; the instance itself becomes managed.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        instance.add(object, update: update)
    }

    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        for object in objects { instance.add(object, update: update) }
    }

    /// The older form: `update: true` is `.all`, `false` is `.error`.
    @available(*, deprecated, message: "Pass .error, .modified or .all rather than a boolean")
    public func add(_ object: Object, update: Bool) {
        add(object, update: update ? .all : .error)
    }

    @available(*, deprecated, message: "Pass .error, .modified or .all rather than a boolean")
    public func add<S: Sequence>(_ objects: S, update: Bool) where S.Iterator.Element: Object {
        add(objects, update: update ? .all : .error)
    }

    /// Creates (or with an update policy, updates) an object from a dictionary, an
    /// array or another object, and returns it managed; value itself is untouched.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        instance.create(type, value: value, update: update)
    }

    @available(*, deprecated, message: "Pass .error, .modified or .all rather than a boolean")
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: Bool) -> T {
        create(type, value: value, update: update ? .all : .error)
    }

    public func delete(_ object: Object) { instance.delete(object) }

    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: Object {
        instance.delete(Array(objects) as [Object])
    }

    public func delete<Element: Object>(_ objects: Results<Element>) {
        instance.delete(objects)
    }

    /// Deletes every object of every class in the file.
    public func deleteAll() { instance.deleteAll() }

    // MARK: Reads

    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        if ClassSchema.of(type).isEmbedded {
            fatalError("Embedded objects cannot be queried directly: '\(type.className())' is embedded; query its owners")
        }
        return Results(instance: instance, table: instance.table(for: type), sort: [])
    }

    @inlinable
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        // Specialized in the caller, the cast below is free for the usual key types.
        let stored = (key as? any _Persistable)?._larderStored
        return instance.object(ofType: type, primaryKey: stored, key: { key }).map { unsafeDowncast($0, to: Element.self) }
    }

    /// True when the file holds no objects.
    public var isEmpty: Bool { instance.isEmpty }
}
