import CLarder

/// A Realm instance's transactions and the counters that tell its objects what
/// changed. Stored inline in the instance, so reading `version` is one load.
@usableFromInline
struct TransactionState {
    /// Bumped whenever what an object reads may have changed: writes, refreshes, new transactions.
    @usableFromInline var version: UInt64 = 0
    /// The transaction reads and writes go through; nil until needed.
    private(set) var txn: OpaquePointer?
    /// The read transaction, kept between uses so it can be renewed cheaply.
    private var readTxn: OpaquePointer?
    private(set) var isWriting = false
    /// Bumped whenever any class may have gained or lost objects other than by this
    /// instance's own creates and deletes (which its classes count): a new
    /// transaction, the end of one, `deleteAll`. Results keep their key snapshots until then.
    private(set) var membershipEpoch: UInt64 = 0
    /// Bumped by `invalidate()`: objects bound before it are invalidated.
    private(set) var generation: UInt64 = 0
    /// The first error of the current write; committing cancels the write and throws it.
    var pendingError: Realm.Error?
    /// Numbers the write transactions; objects remember the one that added them.
    private(set) var writeSerial: UInt64 = 0
    private var cancelledWrites: Set<UInt64> = []

    init() {}

    /// The state of a frozen instance: txn, a read transaction, is its only one.
    init(frozen txn: OpaquePointer) {
        self.txn = txn
        readTxn = txn
        version = 1
        membershipEpoch = 1
    }

    /// Gives the active read transaction away (to a frozen instance), as if it had
    /// ended: the next read begins another one. Nil when there is none to give.
    mutating func handOverRead() -> OpaquePointer? {
        guard !isWriting, let readTxn, txn == readTxn else { return nil }
        self.readTxn = nil
        txn = nil
        version &+= 1
        membershipEpoch &+= 1
        return readTxn
    }

    /// Frees the transactions; the instance's deinit calls it.
    func free() {
        if let txn { lar_txn_free(txn) }
        if let readTxn, readTxn != txn { lar_txn_free(readTxn) }
    }

    /// The active transaction, beginning (or renewing) a read transaction when there is none.
    mutating func current(in environment: Environment) -> OpaquePointer {
        if let txn { return txn }
        var rc: Int32
        if let readTxn {
            rc = lar_txn_renew(readTxn)
        } else {
            var fresh: OpaquePointer?
            rc = lar_txn_begin(environment.handle, LAR_TXN_READ, &fresh)
            readTxn = fresh
        }
        if rc != LAR_OK { fatalCoreError(rc, "Cannot read the Realm at '\(environment.path)'") }
        txn = readTxn
        version &+= 1
        membershipEpoch &+= 1
        return readTxn!
    }

    mutating func endRead() {
        if let readTxn, txn == readTxn { lar_txn_commit(readTxn) }
        if !isWriting { txn = nil }
        version &+= 1
        membershipEpoch &+= 1
    }

    /// Hands the active read transaction, still open, to the caller (a notifier
    /// keeps it as the old snapshot of a delivery) and forgets it; nil when none is active.
    mutating func detachRead() -> OpaquePointer? {
        guard let readTxn, txn == readTxn, !isWriting else { return nil }
        self.readTxn = nil
        txn = nil
        version &+= 1
        membershipEpoch &+= 1
        return readTxn
    }

    mutating func beginWrite(in environment: Environment) {
        endRead()
        var writer: OpaquePointer?
        let rc = lar_txn_begin(environment.handle, LAR_TXN_WRITE, &writer)
        if rc != LAR_OK { fatalCoreError(rc, "Cannot begin a write transaction") }
        txn = writer
        isWriting = true
        writeSerial &+= 1
        pendingError = nil
        version &+= 1
        membershipEpoch &+= 1
    }

    /// Commits the write (durable: with its fsyncs; otherwise stored and visible, made
    /// durable by a later sync); returns the error when the commit failed.
    mutating func commitWrite(durable: Bool = true) -> Realm.Error? {
        let rc = lar_txn_commit_flags(txn, durable ? 0 : LAR_COMMIT_NOSYNC)
        let error = rc == LAR_OK ? nil : Realm.Error.last(rc, context: "Cannot commit the write transaction")
        lar_txn_free(txn)
        finishWrite()
        return error
    }

    /// Aborts the write: objects it added become invalidated.
    mutating func cancelWrite() {
        lar_txn_free(txn)
        cancelledWrites.insert(writeSerial)
        finishWrite()
    }

    private mutating func finishWrite() {
        txn = nil
        isWriting = false
        pendingError = nil
        version &+= 1
        membershipEpoch &+= 1
    }

    /// Every class may have lost objects.
    mutating func membershipChanged() {
        membershipEpoch &+= 1
    }

    /// Ends the read and invalidates every object bound so far.
    mutating func invalidate() {
        endRead()
        generation &+= 1
    }

    /// Asked for every object linked or checked: the set is empty until a write is cancelled, and then
    /// checking that is cheaper than hashing.
    @inline(__always) // on every property read's decode: mostly the first test answers
    func wasCancelled(write serial: UInt64) -> Bool {
        serial != 0 && !cancelledWrites.isEmpty && cancelledWrites.contains(serial)
    }
}
