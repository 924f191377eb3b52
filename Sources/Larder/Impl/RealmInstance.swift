import CLarder
import CLarderSwift
import Foundation

/// One thread's live view of a database file. It owns its transactions
/// (`TransactionState`) and its classes (`ClassRegistry`); the object store,
/// in `RealmInstance+Reads.swift` and `RealmInstance+Writes.swift`, works
/// through both.
@usableFromInline
final class RealmInstance {
    let configuration: Realm.Configuration
    let environment: Environment
    /// The thread that created the instance, the only one that may use it.
    @usableFromInline let threadToken = larder_swift_thread_token()
    var autorefresh = true

    @exclusivity(unchecked) @usableFromInline var state = TransactionState()
    @exclusivity(unchecked) private var classes = ClassRegistry()
    /// This thread's cache, which lists the instance until it is freed.
    var cache: InstanceCache?
    /// Bumped by every write to a managed collection (which leaves `version`, and
    /// so the row caches, alone): results of values keep what they read until
    /// this or the version moves.
    @exclusivity(unchecked) var collectionWrites: UInt64 = 0
    /// The owners of nested collections just read from collections, and the
    /// classes whose cached rows may hold some (Impl/NestedCollections.swift).
    var nestedParents: [UInt64: NestedParent] = [:]
    var tablesWithMixedValues: [ManagedClass] = []
    /// The observers of this instance's Realm, objects and collections; nil until the first.
    private(set) var observers: InstanceNotifier?
    var notifier: InstanceNotifier {
        if let observers { return observers }
        let fresh = InstanceNotifier(instance: self)
        observers = fresh
        return fresh
    }

    init(configuration: Realm.Configuration, environment: Environment) {
        self.configuration = configuration
        self.environment = environment
    }

    deinit {
        cache?.remove(self, at: RealmInstance.cacheKey(configuration))
        observers?.free()
        state.free()
    }

    // MARK: Transaction state, as the object store reads it

    var txn: OpaquePointer? { state.txn }
    var isInWriteTransaction: Bool { state.isWriting }
    var generation: UInt64 { state.generation }
    var writeSerial: UInt64 { state.writeSerial }
    var pendingError: Realm.Error? {
        get { state.pendingError }
        set { state.pendingError = newValue }
    }

    @inlinable var version: UInt64 {
        get { state.version }
        set { state.version = newValue }
    }

    /// What a class's one-row cache records as its version: the version combined
    /// with the thread, so that at the same version a row cached here is a miss on
    /// any other thread (whose read then traps in `load`). On this thread it moves
    /// exactly when the version does. The thread part is one xor with a value the
    /// compiler keeps out of loops, where comparing the thread on every property
    /// read cost a load and a branch.
    @inlinable var cacheStamp: UInt64 {
        version ^ UInt64(UInt(bitPattern: larder_swift_thread_token()))
    }

    // MARK: Transactions

    /// Checked on every entry point: instances, objects and results are confined to their thread.
    @inlinable
    func verifyThread() {
        if threadToken != larder_swift_thread_token() { accessedFromIncorrectThread() }
    }

    @usableFromInline
    func accessedFromIncorrectThread() -> Never {
        fatalError("Realm accessed from incorrect thread.")
    }

    /// The active transaction, beginning a read transaction when there is none.
    func currentTxn() -> OpaquePointer {
        verifyThread()
        if let txn = state.txn { return txn }
        return state.current(in: environment)
    }

    func beginWrite() {
        verifyThread()
        if isInWriteTransaction { fatalError("The Realm is already in a write transaction") }
        if configuration.readOnly { fatalError("Can't perform transactions on read-only Realms.") }
        if let observers, observers.isIdleWithObservers {
            // Delivered from a read transaction at the newest version, as the change sets need;
            // the snapshot the observers saw is kept until the commit is delivered.
            observers.keepOldSnapshot(state.detachRead())
            state.endRead()
            observers.deliver()
            observers.keepOldSnapshot(state.detachRead())
        }
        state.beginWrite(in: environment)
    }

    /// Commits, then tells this instance's observers, except those of tokens, what changed.
    func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        verifyThread()
        guard isInWriteTransaction else { fatalError("Can't commit a non-existing write transaction") }
        if let error = state.pendingError {
            cancelWrite()
            throw error
        }
        classes.didCommitWrite()
        if let error = state.commitWrite() {
            environment.forgetClassIDs()
            throw error
        }
        observers?.deliver(skipping: tokens, local: true)
    }

    func cancelWrite() {
        verifyThread()
        guard isInWriteTransaction else { fatalError("Can't cancel a non-existing write transaction") }
        state.cancelWrite()
        classes.didCancelWrite()
        environment.forgetClassIDs()
    }

    @discardableResult
    func refresh() -> Bool {
        verifyThread()
        if isInWriteTransaction { return false }
        if let observers, observers.isIdleWithObservers { observers.keepOldSnapshot(state.detachRead()) }
        state.endRead()
        observers?.deliver()
        return true
    }

    func invalidate() {
        verifyThread()
        if isInWriteTransaction { cancelWrite() }
        state.invalidate()
    }

    func requireWrite() {
        verifyThread()
        if !isInWriteTransaction {
            fatalError("Can only add, remove, or create objects in a Realm in a write transaction - " +
                       "call beginWriteTransaction on an RLMRealm instance first.")
        }
    }

    // MARK: Classes

    /// This instance's view of a class, declaring it to the file if it is new.
    /// Realm's APIs that get here cannot throw: a class this Realm may not use traps.
    func table(for type: Object.Type) -> ManagedClass {
        verifyThread()
        return classes.table(for: type, isWriting: isInWriteTransaction) { makeTable(for: type) }
    }

    /// The table links in mixed values to stored class id resolved to before (see mixedLinkTarget).
    func resolvedMixedTarget(_ id: lar_class) -> ManagedClass? { classes.mixedTarget(id) }

    func rememberMixedTarget(_ table: ManagedClass) { classes.rememberMixedTarget(table) }

    private func makeTable(for type: Object.Type) -> ManagedClass {
        let schema = ClassSchema.of(type)
        if let types = configuration.objectTypes, !types.contains(where: { $0.className() == schema.name }) {
            fatalError("Object type '\(schema.name)' is not managed by the Realm. If using a custom " +
                       "`objectClasses` / `objectTypes` array in your configuration, add `\(schema.name)` to the " +
                       "list of `objectClasses` / `objectTypes`.")
        }
        if schema.properties.isEmpty { fatalError(schema.noPropertiesMessage) }
        if let message = schema.optionalMixedMessage { fatalError(message) }
        do {
            let id = try environment.classID(for: schema, canDeclare: !configuration.readOnly)
            let table = try ManagedClass(schema: schema, id: id, environment: environment)
            if !table.mixedValueSlots.isEmpty { tablesWithMixedValues.append(table) }
            return table
        } catch let error as Realm.Error {
            fatalError(error.message)
        } catch {
            fatalError("\(error)")
        }
    }
}
