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
    /// What may use the instance (Impl/Confinement.swift) and its token, which
    /// `verifyThread` compares first.
    @usableFromInline let confinement: Confinement
    @usableFromInline let threadToken: UnsafeRawPointer
    var autorefresh = true

    @exclusivity(unchecked) @usableFromInline var state = TransactionState()
    @exclusivity(unchecked) var classes = ClassRegistry()
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
    /// The OS thread that began the write in progress: LMDB's writer lock belongs to it.
    private var writerThread: UnsafeRawPointer?
    /// Writes queued by writeAsync and beginAsyncWrite, and asyncWrites in progress
    /// (RealmAsyncWrites.swift); nil until the first.
    var asyncWrites: AsyncWriteQueue?
    /// The observers of this instance's Realm, objects and collections; nil until the first.
    private(set) var observers: InstanceNotifier?
    var notifier: InstanceNotifier {
        if let observers { return observers }
        let fresh = InstanceNotifier(instance: self)
        observers = fresh
        return fresh
    }

    /// Set on a frozen instance (Impl/RealmInstance+Freezing.swift): it reads one version
    /// forever, from any thread, and this lock lets one thread at a time use its
    /// transaction and caches. Nil on a live instance.
    @usableFromInline let frozenLock: NSRecursiveLock?
    /// The version a frozen instance reads (`lar_txn_version`); 0 on a live instance.
    let frozenVersion: UInt64
    /// A live instance's last frozen copy, handed out again while the version is the same.
    weak var frozenCopy: RealmInstance?

    init(configuration: Realm.Configuration, environment: Environment, confinement: Confinement) {
        self.configuration = configuration
        self.environment = environment
        self.confinement = confinement
        threadToken = confinement.token
        frozenLock = nil
        frozenVersion = 0
    }

    /// A frozen instance reading txn, a read transaction at version, until it is freed.
    init(frozen txn: OpaquePointer, version: UInt64, of live: RealmInstance) {
        configuration = live.configuration
        environment = live.environment
        confinement = .frozen
        threadToken = confinement.token
        frozenLock = NSRecursiveLock()
        frozenVersion = version
        state = TransactionState(frozen: txn)
    }

    @inlinable var isFrozen: Bool { frozenLock != nil }

    /// Tests only: runs at the start of every deinit (to hold one open while another
    /// thread looks the instance up).
    nonisolated(unsafe) static var deinitHookForTesting: (() -> Void)?

    deinit {
        RealmInstance.deinitHookForTesting?()
        cache?.remove(self, at: RealmInstance.cacheKey(configuration))
        let wasWriting = isInWriteTransaction
        observers?.free()
        state.free()
        if wasWriting { environment.writeGate.leave() }
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

    /// The stamp rows decoded now carry. Where `verifyThread` took its fast path it is
    /// `cacheStamp`. In a queue's or an actor's work checked the slow way it is one no
    /// read matches (the high bit, which versions xor addresses never reach): the next
    /// read on this thread may come after the queue or actor left it, and must be checked.
    @inlinable var decodeStamp: UInt64 {
        threadToken == larder_swift_thread_token() ? cacheStamp : cacheStamp | (1 << 63)
    }

    // MARK: Transactions

    /// Checked on every entry point: instances, objects and results are confined to
    /// their thread, queue or actor (Impl/Confinement.swift).
    @inlinable
    func verifyThread() {
        if threadToken != larder_swift_thread_token() { verifyConfinement() }
    }

    @usableFromInline @inline(never)
    func verifyConfinement() {
        if !confinement.isCurrent(instanceToken: threadToken) { accessedFromIncorrectThread() }
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
        if isFrozen { fatalError("Can't perform transactions on a frozen Realm") }
        if isInWriteTransaction { fatalError("The Realm is already in a write transaction") }
        if configuration.readOnly { fatalError("Can't perform transactions on read-only Realms.") }
        deliverBeforeWrite()
        environment.writeGate.enter()
        beginWriteHoldingGate()
    }

    /// Realm's beginWrite refreshes and delivers first. Done before taking the write
    /// gate: a callback may itself write, on this thread or another.
    private func deliverBeforeWrite() {
        if let observers, observers.isIdleWithObservers {
            // Delivered from a read transaction at the newest version, as the change sets need;
            // the snapshot the observers saw is kept until the commit is delivered.
            observers.keepOldSnapshot(state.detachRead())
            state.endRead()
            observers.deliver()
            observers.keepOldSnapshot(state.detachRead())
        }
    }

    /// Begins the write once this instance holds the file's write gate (Impl/WriteGate.swift).
    func beginWriteHoldingGate() {
        state.beginWrite(in: environment)
        writerThread = larder_swift_os_thread_token()
        environment.writeGate.didBeginWrite()
    }

    /// A queue's or an actor's work changes threads between blocks and awaits, and
    /// LMDB's writer lock can only be released by the thread that took it.
    private func verifyWriterThread() {
        if writerThread != larder_swift_os_thread_token() {
            fatalError("A write transaction must end on the thread that began it: a Realm confined to a queue " +
                       "or an actor cannot keep a write open from one block or await to the next.")
        }
    }

    /// Called once the write ended, committed or not.
    private func didEndWrite() {
        writerThread = nil
        environment.writeGate.leave()
        asyncWrites?.writeDidEnd(self)
    }

    /// Commits, then tells this instance's observers, except those of tokens, what changed.
    /// Unless durable, the commit skips its fsyncs (a grouped `commitAsyncWrite` syncs later).
    func commitWrite(withoutNotifying tokens: [NotificationToken] = [], durable: Bool = true) throws {
        verifyThread()
        guard isInWriteTransaction else { fatalError("Can't commit a non-existing write transaction") }
        if let error = state.pendingError ?? activeVersionsError() {
            cancelWrite()
            throw error
        }
        verifyWriterThread()
        classes.didCommitWrite()
        let failure = state.commitWrite(durable: durable)
        if failure != nil { environment.forgetClassIDs() }
        didEndWrite()
        if let failure { throw failure }
        observers?.deliver(skipping: tokens, local: true)
    }

    func cancelWrite() {
        verifyThread()
        guard isInWriteTransaction else { fatalError("Can't cancel a non-existing write transaction") }
        verifyWriterThread()
        state.cancelWrite()
        classes.didCancelWrite()
        environment.forgetClassIDs()
        didEndWrite()
    }

    @discardableResult
    func refresh() -> Bool {
        verifyThread()
        if isInWriteTransaction || isFrozen { return false }
        if let observers, observers.isIdleWithObservers { observers.keepOldSnapshot(state.detachRead()) }
        state.endRead()
        observers?.deliver()
        asyncWrites?.runThreadWork()
        return true
    }

    func invalidate() {
        verifyThread()
        if isFrozen { return } // its objects stay readable: the version is what it holds
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
        // Live instances keep the direct call: through `serialized` lookups took twice as long.
        if _slowPath(isFrozen) { return serialized { classes.table(for: type, isWriting: false) { makeTable(for: type) } } }
        return classes.table(for: type, isWriting: isInWriteTransaction) { makeTable(for: type) }
    }

    /// The table of a link's target type, unretained (the registry keeps it): the one
    /// the last link read resolved when the type matches, as in a loop over links.
    /// Live instances only: a frozen one's registry is shared under its lock.
    func linkTable(for type: Object.Type) -> Unmanaged<ManagedClass> {
        verifyThread()
        if let table = classes.linkTable(for: type) { return table }
        let table = table(for: type)
        classes.rememberLinkTable(table)
        return Unmanaged.passUnretained(table)
    }

    /// The table links in mixed values to stored class id resolved to before (see mixedLinkTarget).
    func resolvedMixedTarget(_ id: lar_class) -> ManagedClass? { classes.mixedTarget(id) }

    func rememberMixedTarget(_ table: ManagedClass) { classes.rememberMixedTarget(table) }

    /// Realm's trap for a class this Realm does not manage.
    static func trapNotManaged(_ name: String) -> Never {
        fatalError("Object type '\(name)' is not managed by the Realm. If using a custom " +
                   "`objectClasses` / `objectTypes` array in your configuration, add `\(name)` to the " +
                   "list of `objectClasses` / `objectTypes`.")
    }

    private func makeTable(for type: Object.Type) -> ManagedClass {
        if type == DynamicObject.self { fatalError("A DynamicObject's class is read by name (dynamicObjects(_:))") }
        let schema = ClassSchema.of(type)
        if let types = configuration.objectTypes, !types.contains(where: { $0.className() == schema.name }) {
            Self.trapNotManaged(schema.name)
        }
        if schema.properties.isEmpty { fatalError(schema.noPropertiesMessage) }
        if let message = schema.optionalMixedMessage { fatalError(message) }
        return makeTable(schema) {
            try environment.classID(for: schema, canDeclare: !configuration.readOnly && !isFrozen)
        }
    }

    /// This instance's table of schema's class, whose id findID gives; a failure traps.
    func makeTable(_ schema: ClassSchema, id findID: () throws -> lar_class) -> ManagedClass {
        do {
            let table = try ManagedClass(schema: schema, id: findID(), environment: environment)
            table.isShared = isFrozen
            if !table.mixedValueSlots.isEmpty { tablesWithMixedValues.append(table) }
            return table
        } catch let error as Realm.Error {
            fatalError(error.message)
        } catch {
            fatalError("\(error)")
        }
    }
}
